// OAuth in the headless server: off unless configured; on, discovery names the public URL and the
// registered clients live in the data folder across a restart.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import { EDGE_VAULT, tempVault } from "../support/vaults";
import { callTool, startTestServer } from "../support/server";
import { defaultUser } from "../../src/auth/users";
import { generateToken } from "../../src/auth/tokens";
import bcrypt from "bcryptjs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const PUBLIC = "https://brain.example.com";

test("a headless server without OAuth configured offers no discovery and writes no OAuth state", async () => {
  const running = await startTestServer({ fixture: EDGE_VAULT });
  try {
    const origin = new URL(running.url).origin;
    assert.equal((await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).status, 404);
    assert.equal((await fetch(`${origin}/register`, { method: "POST", body: "{}" })).status, 404);
    const unauthorized = await fetch(running.url, { method: "POST", body: "{}" });
    assert.doesNotMatch(String(unauthorized.headers.get("www-authenticate")), /resource_metadata/);
    assert.ok(!existsSync(path.join(running.vault.dataDir, "oauth-state.json")));
  } finally {
    await running.stop();
  }
});

test("with OAuth on, the headless server serves discovery from its public URL and keeps registered clients across a restart", async () => {
  const vault = tempVault(EDGE_VAULT);
  const first = await startTestServer({ fixture: EDGE_VAULT, vault, extra: { oauth: { publicUrl: PUBLIC } } });
  let clientId: string;
  try {
    const origin = new URL(first.url).origin;
    const metadata = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as { issuer: string; registration_endpoint: string };
    assert.equal(metadata.issuer, PUBLIC);
    assert.equal(metadata.registration_endpoint, `${PUBLIC}/register`);
    const unauthorized = await fetch(first.url, { method: "POST", body: "{}" });
    assert.match(String(unauthorized.headers.get("www-authenticate")), new RegExp(`resource_metadata="${PUBLIC}/\\.well-known/oauth-protected-resource/mcp"`));
    const registered = await fetch(`${origin}/register`, { method: "POST", body: JSON.stringify({ redirect_uris: ["http://127.0.0.1:9/cb"] }) });
    assert.equal(registered.status, 201);
    clientId = ((await registered.json()) as { client_id: string }).client_id;
    // Pasted tokens keep working next to OAuth.
    assert.equal((await first.call("note_query", { where: { status: { exists: true } } })).isError, false);
  } finally {
    await first.stop();
  }
  const second = await startTestServer({ fixture: EDGE_VAULT, vault, extra: { oauth: { publicUrl: PUBLIC } } });
  try {
    const origin = new URL(second.url).origin;
    // The client is still known: a token request with it fails on the missing code, not on the client.
    const response = await fetch(`${origin}/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code", client_id: clientId, code: "unknown-code", code_verifier: "v".repeat(43) }).toString(),
    });
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as { error: string }).error, "invalid_grant");
    assert.ok(second.logs.some((line) => line.includes('"event":"token_failed"') && line.includes('"reason":"code_unknown"')));
  } finally {
    await second.stop();
    vault.cleanup();
  }
});

test("a user signs in with the password its env: reference names, and the client then works as that user over MCP", async () => {
  const password = randomBytes(18).toString("base64url");
  process.env.SBM_TEST_OAUTH_PASSWORD = password;
  const operatorToken = generateToken();
  const running = await startTestServer({
    fixture: EDGE_VAULT,
    users: [defaultUser(operatorToken), { name: "alice", token_hashes: [], vaults: [], read_only: true, password: "env:SBM_TEST_OAUTH_PASSWORD" }],
    extra: { oauth: {} },
  });
  try {
    const origin = new URL(running.url).origin;
    const redirect = "http://127.0.0.1:7777/callback";
    const registered = await fetch(`${origin}/register`, { method: "POST", body: JSON.stringify({ redirect_uris: [redirect], client_name: "E2E" }) });
    const clientId = ((await registered.json()) as { client_id: string }).client_id;
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const query = new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: redirect, code_challenge: challenge, code_challenge_method: "S256", state: "st" });
    const page = await (await fetch(`${origin}/authorize?${query.toString()}`)).text();
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page)?.[1] ?? "";
    const form = (fields: Record<string, string>): Promise<Response> =>
      fetch(`${origin}/authorize`, { method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() });
    const wrong = await form({ csrf_token: csrf, username: "alice", password: "not-the-password" });
    assert.equal(wrong.status, 401);
    const retry = /name="csrf_token" value="([^"]+)"/.exec(await wrong.text())?.[1] ?? "";
    const signedIn = await form({ csrf_token: retry, username: "alice", password });
    assert.equal(signedIn.status, 302);
    const code = new URL(String(signedIn.headers.get("location"))).searchParams.get("code") ?? "";
    const tokenResponse = await fetch(`${origin}/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code", code, code_verifier: verifier, client_id: clientId, redirect_uri: redirect }).toString(),
    });
    assert.equal(tokenResponse.status, 200);
    const accessToken = ((await tokenResponse.json()) as { access_token: string }).access_token;

    const asAlice = await running.connect(accessToken, "oauth-client");
    const asOperator = await running.connect(operatorToken, "token-client");
    const aliceTools = (await asAlice.listTools()).tools.map((tool) => tool.name);
    const operatorTools = (await asOperator.listTools()).tools.map((tool) => tool.name);
    assert.ok(aliceTools.length > 0 && aliceTools.length < operatorTools.length, "the read-only user is offered no mutating tool");
    assert.equal((await callTool(asAlice, "note_query", { where: { status: { exists: true } } })).isError, false);
    const log = running.logs.join("\n");
    for (const secret of [password, "not-the-password", code, verifier, accessToken, csrf]) assert.ok(!log.includes(secret), "a secret reached the log");
    assert.ok(log.includes('"event":"authorize_signed_in"'));

    // A reload without alice revokes her sign-ins; putting her back does not revive them.
    const alice = { name: "alice", token_hashes: [], vaults: [], read_only: true, password: "env:SBM_TEST_OAUTH_PASSWORD" };
    const mcpStatus = async (): Promise<number> => (await fetch(running.url, { method: "POST", headers: { Authorization: `Bearer ${accessToken}` }, body: "{}" })).status;
    running.server.setUsers([defaultUser(operatorToken)]);
    assert.equal(await mcpStatus(), 401);
    running.server.setUsers([defaultUser(operatorToken), alice]);
    assert.equal(await mcpStatus(), 401);
    assert.ok(running.logs.some((line) => line.includes('"event":"oauth_tokens_revoked"') && line.includes('"reason":"user_removed"')));
  } finally {
    delete process.env.SBM_TEST_OAUTH_PASSWORD;
    await running.stop();
  }
});

test("a user whose password is a bcrypt hash in the config signs in with the password, not with the hash", async () => {
  const password = randomBytes(18).toString("base64url");
  const hash = bcrypt.hashSync(password, 4);
  const running = await startTestServer({ fixture: EDGE_VAULT, users: [{ name: "fay", token_hashes: [], vaults: [], read_only: false, password: hash }], extra: { oauth: {} } });
  try {
    const origin = new URL(running.url).origin;
    const redirect = "http://127.0.0.1:7779/callback";
    const registered = await fetch(`${origin}/register`, { method: "POST", body: JSON.stringify({ redirect_uris: [redirect] }) });
    const clientId = ((await registered.json()) as { client_id: string }).client_id;
    const challenge = createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url");
    const query = new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: redirect, code_challenge: challenge, code_challenge_method: "S256", state: "st" });
    let csrf = /name="csrf_token" value="([^"]+)"/.exec(await (await fetch(`${origin}/authorize?${query.toString()}`)).text())?.[1] ?? "";
    const attempt = async (given: string): Promise<number> => {
      const response = await fetch(`${origin}/authorize`, {
        method: "POST",
        redirect: "manual",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrf_token: csrf, username: "fay", password: given }).toString(),
      });
      if (response.status !== 302) csrf = /name="csrf_token" value="([^"]+)"/.exec(await response.text())?.[1] ?? "";
      return response.status;
    };
    assert.equal(await attempt(hash), 401, "the hash itself is no password");
    assert.equal(await attempt(`${password}x`), 401);
    assert.equal(await attempt(password), 302);
    assert.ok(!running.logs.join("\n").includes(hash.slice(7)), "the hash is not logged");
  } finally {
    await running.stop();
  }
});

test("with client_id_metadata_documents on, an https client_id is resolved from its document and signs in; off, it is an unknown client and the metadata does not advertise it", async () => {
  // The document is served over http on loopback through the test-only switch (see test/auth/oauth/metadata-document.test.ts for why).
  const documentServer = createServer((req, res) => {
    const self = `http://127.0.0.1:${(documentServer.address() as AddressInfo).port}${req.url ?? ""}`;
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ client_id: self, client_name: "Document Client", redirect_uris: ["http://127.0.0.1:7780/callback"] }));
  });
  await new Promise<void>((resolve) => documentServer.listen(0, "127.0.0.1", resolve));
  const clientId = `http://127.0.0.1:${(documentServer.address() as AddressInfo).port}/client.json`;
  const password = randomBytes(18).toString("base64url");
  const users = [{ name: "gil", token_hashes: [], vaults: [], read_only: false, password: bcrypt.hashSync(password, 4) }];
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const query = new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: "http://127.0.0.1:7780/callback", code_challenge: challenge, code_challenge_method: "S256", state: "st" });
  const on = await startTestServer({ fixture: EDGE_VAULT, users, extra: { oauth: { clientIdMetadataDocuments: true, metadataDocumentsOverLoopbackHttp: true } } });
  try {
    const origin = new URL(on.url).origin;
    const metadata = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    assert.equal(metadata.client_id_metadata_document_supported, true);
    const page = await fetch(`${origin}/authorize?${query.toString()}`);
    const html = await page.text();
    assert.equal(page.status, 200, html);
    assert.match(html, /Document Client/);
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? "";
    const signedIn = await fetch(`${origin}/authorize`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf_token: csrf, username: "gil", password }).toString(),
    });
    assert.equal(signedIn.status, 302);
    const code = new URL(String(signedIn.headers.get("location"))).searchParams.get("code") ?? "";
    const tokens = await fetch(`${origin}/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code", code, code_verifier: verifier, client_id: clientId }).toString(),
    });
    assert.equal(tokens.status, 200);
    assert.match(((await tokens.json()) as { access_token: string }).access_token, /^sbm_oat_/);
    const inside = new URLSearchParams(query);
    inside.set("client_id", "https://10.0.0.1/client.json");
    const refused = await fetch(`${origin}/authorize?${inside.toString()}`);
    assert.equal(refused.status, 400);
    assert.match(await refused.text(), /not public/);
    assert.ok(on.logs.some((line) => line.includes('"event":"client_metadata_document_refused"') && line.includes('"reason":"document_address"')));
  } finally {
    await on.stop();
  }
  const off = await startTestServer({ fixture: EDGE_VAULT, users, extra: { oauth: {} } });
  try {
    const origin = new URL(off.url).origin;
    const metadata = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    assert.equal("client_id_metadata_document_supported" in metadata, false);
    const page = await fetch(`${origin}/authorize?${query.toString()}`);
    assert.equal(page.status, 400, "an unknown client: the document is not fetched");
  } finally {
    await off.stop();
    documentServer.closeAllConnections();
    documentServer.close();
  }
});
