import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { FileOAuthPersistence } from "../../src/hosts/node/oauth-state";
import { startOAuthTestServer } from "./helpers";

interface Registered {
  client_id: string;
  client_id_issued_at: number;
  redirect_uris: string[];
  token_endpoint_auth_method: string;
  client_name?: string;
}

function register(origin: string, body: unknown): Promise<Response> {
  return fetch(`${origin}/register`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

test("a public client registers with https or loopback redirect URIs and gets a client_id", async () => {
  const { server, service } = await startOAuthTestServer();
  try {
    const response = await register(server.origin, {
      client_name: "MCP Test",
      redirect_uris: ["http://127.0.0.1:5123/callback", "https://app.example/cb", "http://localhost/cb", "http://[::1]:9/cb"],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    });
    assert.equal(response.status, 201);
    assert.equal(response.headers.get("cache-control"), "no-store");
    const client = (await response.json()) as Registered;
    assert.match(client.client_id, /^[A-Za-z0-9_-]{22}$/);
    assert.equal(client.token_endpoint_auth_method, "none");
    assert.equal(client.client_name, "MCP Test");
    assert.equal(client.redirect_uris.length, 4);
    assert.ok(Math.abs(client.client_id_issued_at - Date.now() / 1000) < 60);
    assert.ok(service.clients.has(client.client_id));
    assert.notEqual(((await (await register(server.origin, { redirect_uris: ["https://a.example/cb"] })).json()) as Registered).client_id, client.client_id);
  } finally {
    await server.close();
  }
});

test("an application's own scheme is a redirect URI (RFC 8252 §7.1): Cursor registers with its three callbacks at once", async () => {
  const { server, service } = await startOAuthTestServer();
  try {
    // The body Cursor sends: its app scheme, its hosted callback and a loopback one.
    const redirects = ["cursor://anysphere.cursor-mcp/oauth/callback", "https://www.cursor.com/agents/mcp/oauth/callback", "http://localhost:8787/callback"];
    const response = await register(server.origin, { client_name: "Cursor", redirect_uris: redirects, token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], response_types: ["code"] });
    assert.equal(response.status, 201, await response.clone().text());
    const client = (await response.json()) as Registered;
    assert.deepEqual(client.redirect_uris, redirects);
    assert.ok(service.clients.has(client.client_id));
    const reverseDomain = await register(server.origin, { redirect_uris: ["com.example.notes:/oauth2redirect"] });
    assert.equal(reverseDomain.status, 201, "the reverse domain form RFC 8252 recommends");
    // Schemes the browser acts on itself never reach an application, in any spelling the URL parser reads.
    const browserSchemes = [
      "javascript:alert(1)",
      "JavaScript:alert(1)",
      "java\tscript:alert(1)",
      " javascript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "vbscript:msgbox(1)",
      "file:///etc/passwd",
      "blob:https://app.example/1",
      "about:blank",
      "wss://app.example/cb",
      "urn:ietf:wg:oauth:2.0:oob",
      "mailto:someone@app.example",
    ];
    for (const uri of browserSchemes) {
      const refused = await register(server.origin, { redirect_uris: [redirects[0], uri] });
      assert.equal(refused.status, 400, uri);
      const answer = (await refused.json()) as { error: string; error_description: string };
      assert.equal(answer.error, "invalid_redirect_uri", uri);
      assert.match(answer.error_description, /^redirect_uris\[1\] /, uri);
    }
    assert.equal(service.clients.size, 2);
  } finally {
    await server.close();
  }
});

test("registration refuses unsafe redirect URIs, confidential clients and other grants with RFC 7591 errors", async () => {
  const { server, service } = await startOAuthTestServer();
  try {
    const refused: Array<[unknown, string]> = [
      [{ redirect_uris: ["http://app.example/cb"] }, "invalid_redirect_uri"],
      [{ redirect_uris: ["https://app.example/cb#frag"] }, "invalid_redirect_uri"],
      [{ redirect_uris: ["/relative/cb"] }, "invalid_redirect_uri"],
      [{ redirect_uris: ["javascript:alert(1)"] }, "invalid_redirect_uri"],
      [{ redirect_uris: ["http://127.0.0.1.evil.example/cb"] }, "invalid_redirect_uri"],
      [{ redirect_uris: ["https://user:pw@app.example/cb"] }, "invalid_redirect_uri"],
      [{ redirect_uris: [] }, "invalid_redirect_uri"],
      [{}, "invalid_redirect_uri"],
      [{ redirect_uris: ["https://app.example/cb"], token_endpoint_auth_method: "client_secret_basic" }, "invalid_client_metadata"],
      [{ redirect_uris: ["https://app.example/cb"], grant_types: ["client_credentials"] }, "invalid_client_metadata"],
      [{ redirect_uris: ["https://app.example/cb"], response_types: ["token"] }, "invalid_client_metadata"],
      [[1, 2], "invalid_client_metadata"],
    ];
    for (const [body, error] of refused) {
      const response = await register(server.origin, body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.equal(response.headers.get("cache-control"), "no-store");
      const answer = (await response.json()) as { error: string; error_description: string };
      assert.equal(answer.error, error, JSON.stringify(body));
      assert.ok(answer.error_description.length > 10);
    }
    const notJson = await fetch(`${server.origin}/register`, { method: "POST", body: "{nope" });
    assert.equal(notJson.status, 400);
    assert.equal((await fetch(`${server.origin}/register`)).status, 405);
    assert.equal(service.clients.size, 0);
  } finally {
    await server.close();
  }
});

test("registration takes at most 64 KiB of body and 20 registrations an hour per address", async () => {
  const { server, service, logs } = await startOAuthTestServer();
  try {
    const padded = { redirect_uris: ["https://app.example/cb"], padding: "x".repeat(64 * 1024) };
    const tooLarge = await register(server.origin, padded);
    assert.equal(tooLarge.status, 413);
    assert.equal(((await tooLarge.json()) as { error: string }).error, "invalid_client_metadata");
    for (let index = 1; index < 20; index += 1) {
      assert.equal((await register(server.origin, { redirect_uris: ["https://app.example/cb"] })).status, 201, `registration ${index}`);
    }
    const limited = await register(server.origin, { redirect_uris: ["https://app.example/cb"] });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get("retry-after")) >= 60);
    assert.equal(service.clients.size, 19);
    assert.deepEqual(
      logs.filter((record) => record.event === "oauth_registration_refused").map((record) => record.reason),
      ["body_too_large", "rate_limited"],
    );
  } finally {
    await server.close();
  }
});

test("above the client bound the least recently used client is dropped and logged", async () => {
  let now = 1_000_000;
  const { server, service, logs } = await startOAuthTestServer({ maxClients: 3, now: () => now });
  try {
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      now += 1000;
      ids.push(((await (await register(server.origin, { redirect_uris: ["https://app.example/cb"] })).json()) as Registered).client_id);
    }
    service.clients.touch(ids[0]!, (now += 1000));
    await register(server.origin, { redirect_uris: ["https://app.example/cb"] });
    assert.equal(service.clients.size, 3);
    assert.ok(service.clients.has(ids[0]!), "the client used last stays");
    assert.ok(!service.clients.has(ids[1]!), "the least recently used goes");
    const evicted = logs.filter((record) => record.event === "oauth_client_evicted");
    assert.deepEqual(evicted.map((record) => record.client_id), [ids[1]]);
  } finally {
    await server.close();
  }
});

test("registered clients survive a restart through the state file in the data folder", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "sbm-oauth-"));
  try {
    const first = await startOAuthTestServer({ persistence: new FileOAuthPersistence(dir) });
    let clientId: string;
    try {
      clientId = ((await (await register(first.server.origin, { redirect_uris: ["https://app.example/cb"], client_name: "Keeps" })).json()) as Registered).client_id;
    } finally {
      await first.server.close();
    }
    const file = path.join(dir, "oauth-state.json");
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.ok(readFileSync(file, "utf8").includes(clientId));
    const second = await startOAuthTestServer({ persistence: new FileOAuthPersistence(dir) });
    try {
      assert.equal(second.service.clients.get(clientId)?.client_name, "Keeps");
    } finally {
      await second.server.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
