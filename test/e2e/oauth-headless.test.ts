// OAuth in the headless server: off unless configured; on, discovery names the public URL and the
// registered clients live in the data folder across a restart.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { EDGE_VAULT, tempVault } from "../support/vaults";
import { startTestServer } from "../support/server";

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
