// Client ID Metadata Documents against a real local server. The server is plain http on loopback,
// reached through the test-only allowLoopbackHttp switch: the refusals that matter (http, private and
// loopback targets, IP literals) are checked with the switch off and happen before any connection,
// while the document checks (status, redirect, size, time, JSON, client_id, redirect URIs) need a
// server that answers, and a self-signed certificate would need a second test-only switch to trust it.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { DOCUMENT_CACHE_ENTRIES, DOCUMENT_LIMIT_BYTES, fetchMetadataDocument, isMetadataDocumentUrl, isPublicAddress, MetadataDocumentCache, type DocumentResult } from "../../../src/auth/oauth/metadata-document";

let server: Server;
let base: string;
const requests: string[] = [];

before(async () => {
  server = createServer((req, res) => {
    requests.push(req.url ?? "");
    const self = `${base}${req.url ?? ""}`;
    const json = (body: unknown): void => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify(body));
    };
    switch (req.url) {
      case "/good.json":
        return json({ client_id: self, client_name: "Doc Client", redirect_uris: ["https://client.example/cb", "http://127.0.0.1:3000/cb"] });
      case "/other-id.json":
        return json({ client_id: `${base}/good.json`, redirect_uris: ["https://client.example/cb"] });
      case "/bad-redirect.json":
        return json({ client_id: self, redirect_uris: ["http://client.example/cb"] });
      case "/secret-client.json":
        return json({ client_id: self, redirect_uris: ["https://client.example/cb"], token_endpoint_auth_method: "client_secret_basic" });
      case "/redirect.json":
        res.writeHead(302, { Location: `${base}/good.json` });
        return res.end();
      case "/huge.json":
        res.writeHead(200, { "Content-Type": "application/json" });
        return res.end(JSON.stringify({ client_id: self, redirect_uris: ["https://client.example/cb"], pad: "x".repeat(DOCUMENT_LIMIT_BYTES) }));
      case "/slow.json":
        return void setTimeout(() => json({ client_id: self, redirect_uris: ["https://client.example/cb"] }), 3000);
      case "/not-json.json":
        res.writeHead(200, { "Content-Type": "text/html" });
        return res.end("<html>");
      default:
        res.writeHead(404);
        return res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

const loopback = { allowLoopbackHttp: true };

function reason(result: DocumentResult): string {
  return result.ok ? "ok" : result.reason;
}

test("a document whose client_id is its own URL gives the client's name and redirect URIs", async () => {
  const result = await fetchMetadataDocument(`${base}/good.json`, loopback);
  assert.ok(result.ok);
  assert.deepEqual(result.metadata, { client_name: "Doc Client", redirect_uris: ["https://client.example/cb", "http://127.0.0.1:3000/cb"] });
});

test("a document is refused when it names another client_id, breaks the registration rules, redirects, is not JSON, is over 64 KiB or takes too long", async () => {
  assert.equal(reason(await fetchMetadataDocument(`${base}/other-id.json`, loopback)), "document_client_id");
  const badRedirect = await fetchMetadataDocument(`${base}/bad-redirect.json`, loopback);
  assert.equal(reason(badRedirect), "document_metadata");
  assert.match(badRedirect.ok ? "" : badRedirect.description, /redirect_uris\[0\] must use https/);
  assert.equal(reason(await fetchMetadataDocument(`${base}/secret-client.json`, loopback)), "document_metadata");
  requests.length = 0;
  assert.equal(reason(await fetchMetadataDocument(`${base}/redirect.json`, loopback)), "document_status");
  assert.deepEqual(requests, ["/redirect.json"], "the redirect was not followed");
  assert.equal(reason(await fetchMetadataDocument(`${base}/missing.json`, loopback)), "document_status");
  assert.equal(reason(await fetchMetadataDocument(`${base}/not-json.json`, loopback)), "document_invalid");
  assert.equal(reason(await fetchMetadataDocument(`${base}/huge.json`, loopback)), "document_too_large");
  assert.equal(reason(await fetchMetadataDocument(`${base}/slow.json`, { ...loopback, timeoutMs: 300 })), "document_timeout");
});

test("without the test-only switch only https to public addresses is fetched: http, loopback, private and link-local targets are refused before connecting", async () => {
  requests.length = 0;
  assert.equal(reason(await fetchMetadataDocument(`${base}/good.json`)), "document_url", "http is refused");
  for (const target of ["https://127.0.0.1/c.json", "https://[::1]/c.json", "https://10.1.2.3/c.json", "https://192.168.1.1/c.json", "https://169.254.169.254/latest/meta-data", "https://[fe80::1]/c.json", "https://[::ffff:7f00:1]/c.json", "https://0.0.0.0/c.json"]) {
    assert.equal(reason(await fetchMetadataDocument(target)), "document_address", target);
  }
  // A name that resolves to loopback is refused on the address the socket would connect to.
  assert.equal(reason(await fetchMetadataDocument("https://localhost/c.json")), "document_address");
  assert.deepEqual(requests, [], "nothing reached the local server");
  assert.equal(isPublicAddress("::ffff:127.0.0.1"), false);
  assert.equal(isPublicAddress("93.184.216.34"), true);
  assert.equal(isPublicAddress("2606:2800:220:1::1"), true);
  for (const url of ["https://client.example/", "https://client.example/c.json#x", "https://u:p@client.example/c.json", "not a url"]) assert.equal(isMetadataDocumentUrl(url), false, url);
  assert.equal(isMetadataDocumentUrl("https://client.example/c.json"), true);
});

test("the cache keeps a document for a while and holds at most its bound", async () => {
  let now = 0;
  let fetched = 0;
  const cache = new MetadataDocumentCache((clientId) => {
    fetched += 1;
    return Promise.resolve({ ok: true, metadata: { redirect_uris: [`${clientId}/cb`] } });
  }, () => now);
  await cache.resolve("https://a.example/c.json");
  await cache.resolve("https://a.example/c.json");
  assert.equal(fetched, 1);
  now += 10 * 60_000;
  await cache.resolve("https://a.example/c.json");
  assert.equal(fetched, 2, "an old entry is fetched again");
  for (let i = 0; i < DOCUMENT_CACHE_ENTRIES + 20; i++) await cache.resolve(`https://c${i}.example/c.json`);
  assert.equal(cache.size, DOCUMENT_CACHE_ENTRIES);
});
