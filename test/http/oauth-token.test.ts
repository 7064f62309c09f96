import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { LogRecord } from "../../src/core/ports";
import { FileOAuthPersistence } from "../../src/hosts/node/oauth-state";
import { startOAuthTestServer, type OAuthTestServer } from "./helpers";

const REDIRECT = "http://127.0.0.1:5123/callback";

interface Tokens {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token: string;
}

interface SignIn {
  clientId: string;
  code: string;
  verifier: string;
}

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

async function registerClient(origin: string): Promise<string> {
  const response = await fetch(`${origin}/register`, { method: "POST", body: JSON.stringify({ redirect_uris: [REDIRECT], client_name: "Token Test" }) });
  return ((await response.json()) as { client_id: string }).client_id;
}

/** What /authorize will do after a successful sign-in: a code bound to client, redirect and challenge. */
async function signIn(running: OAuthTestServer, user = "tester"): Promise<SignIn> {
  const clientId = await registerClient(running.server.origin);
  const { verifier, challenge } = pkce();
  const code = await running.service.issueCode({ client_id: clientId, user, redirect_uri: REDIRECT, code_challenge: challenge });
  return { clientId, code, verifier };
}

function token(origin: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${origin}/token`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() });
}

function redeem(origin: string, grant: SignIn, extra: Record<string, string> = {}): Promise<Response> {
  return token(origin, { grant_type: "authorization_code", code: grant.code, code_verifier: grant.verifier, client_id: grant.clientId, redirect_uri: REDIRECT, ...extra });
}

function refresh(origin: string, clientId: string, refreshToken: string): Promise<Response> {
  return token(origin, { grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId });
}

async function expectError(response: Response, status: number, error: string): Promise<void> {
  assert.equal(response.status, status);
  assert.equal(response.headers.get("cache-control"), "no-store");
  assert.equal(((await response.json()) as { error: string }).error, error);
}

function mcpAs(origin: string, accessToken: string): Promise<Response> {
  return fetch(`${origin}/mcp`, { method: "POST", headers: { Authorization: `Bearer ${accessToken}`, "Content-Type": "application/json" }, body: "{}" });
}

function failures(logs: LogRecord[]): unknown[] {
  return logs.filter((record) => record.event === "token_failed").map((record) => record.reason);
}

/** No code, token or verifier anywhere in the log. */
function assertNoSecrets(logs: LogRecord[], secrets: string[]): void {
  const text = JSON.stringify(logs);
  for (const secret of secrets) assert.ok(!text.includes(secret), "a secret reached the log");
}

test("a code with its PKCE verifier buys a 12 h access token that calls /mcp as its user, with that user's scope", async () => {
  const running = await startOAuthTestServer();
  try {
    const grant = await signIn(running, "reader");
    const response = await redeem(running.server.origin, grant);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("cache-control"), "no-store");
    assert.equal(response.headers.get("pragma"), "no-cache");
    const tokens = (await response.json()) as Tokens;
    assert.equal(tokens.token_type, "Bearer");
    assert.equal(tokens.expires_in, 43_200);
    assert.match(tokens.access_token, /^sbm_oat_[A-Za-z0-9_-]{43}$/);
    assert.match(tokens.refresh_token, /^sbm_ort_[A-Za-z0-9_-]{43}$/);
    const mcp = await mcpAs(running.server.origin, tokens.access_token);
    assert.equal(mcp.status, 200);
    assert.deepEqual(await mcp.json(), { user: "reader", vaults: ["notes"], read_only: true, toolsets: ["find"] });
    assert.equal((await mcpAs(running.server.origin, tokens.refresh_token)).status, 401, "a refresh token is no access token");
    assert.equal((await mcpAs(running.server.origin, "sbm_oat_" + "A".repeat(43))).status, 401);
    assert.ok(running.logs.some((record) => record.event === "token_issued" && record.user === "reader"));
    assertNoSecrets(running.logs, [grant.code, grant.verifier, tokens.access_token, tokens.refresh_token]);
  } finally {
    await running.server.close();
  }
});

test("a wrong PKCE verifier, a malformed one, a foreign redirect URI or client each fail, and the code is gone after any attempt", async () => {
  const running = await startOAuthTestServer();
  const origin = running.server.origin;
  try {
    const wrongVerifier = await signIn(running);
    await expectError(await redeem(origin, wrongVerifier, { code_verifier: pkce().verifier }), 400, "invalid_grant");
    await expectError(await redeem(origin, wrongVerifier), 400, "invalid_grant");

    const short = await signIn(running);
    await expectError(await redeem(origin, short, { code_verifier: "a".repeat(42) }), 400, "invalid_request");
    const long = await signIn(running);
    await expectError(await redeem(origin, long, { code_verifier: "a".repeat(129) }), 400, "invalid_request");

    const mismatch = await signIn(running);
    await expectError(await redeem(origin, mismatch, { redirect_uri: "http://127.0.0.1:5123/other" }), 400, "invalid_grant");

    const otherClient = await signIn(running);
    await expectError(await redeem(origin, otherClient, { client_id: await registerClient(origin) }), 400, "invalid_grant");

    const unknownClient = await signIn(running);
    await expectError(await redeem(origin, unknownClient, { client_id: "never-registered" }), 401, "invalid_client");
    await expectError(await redeem(origin, unknownClient), 400, "invalid_grant");

    // The redirect URI may be left out; the binding to it was checked when the code was issued.
    const withoutRedirect = await signIn(running);
    const body = { grant_type: "authorization_code", code: withoutRedirect.code, code_verifier: withoutRedirect.verifier, client_id: withoutRedirect.clientId };
    assert.equal((await token(origin, body)).status, 200);

    assert.deepEqual(failures(running.logs), [
      "pkce_failed",
      "code_replayed",
      "verifier_malformed",
      "verifier_malformed",
      "redirect_uri_mismatch",
      "client_mismatch",
      "client_unknown",
      "code_replayed",
    ]);
    assertNoSecrets(running.logs, [wrongVerifier.code, wrongVerifier.verifier, mismatch.code, withoutRedirect.code]);
  } finally {
    await running.server.close();
  }
});

test("a replayed code fails and revokes the tokens it bought", async () => {
  const running = await startOAuthTestServer();
  const origin = running.server.origin;
  try {
    const grant = await signIn(running);
    const tokens = (await (await redeem(origin, grant)).json()) as Tokens;
    assert.equal((await mcpAs(origin, tokens.access_token)).status, 200);
    await expectError(await redeem(origin, grant), 400, "invalid_grant");
    assert.equal((await mcpAs(origin, tokens.access_token)).status, 401);
    await expectError(await refresh(origin, grant.clientId, tokens.refresh_token), 400, "invalid_grant");
    const reuse = running.logs.filter((record) => record.event === "token_reuse_detected");
    assert.deepEqual(reuse.map((record) => record.reason), ["code_replayed"]);
    assert.equal(reuse[0]!.revoked, 2);
  } finally {
    await running.server.close();
  }
});

test("a refresh token is rotated on every use; presenting a rotated one kills the whole family and logs token_reuse_detected", async () => {
  const running = await startOAuthTestServer();
  const origin = running.server.origin;
  try {
    const grant = await signIn(running);
    const first = (await (await redeem(origin, grant)).json()) as Tokens;
    const secondResponse = await refresh(origin, grant.clientId, first.refresh_token);
    assert.equal(secondResponse.status, 200);
    const second = (await secondResponse.json()) as Tokens;
    assert.notEqual(second.refresh_token, first.refresh_token);
    assert.notEqual(second.access_token, first.access_token);
    assert.equal((await mcpAs(origin, second.access_token)).status, 200);
    const third = (await (await refresh(origin, grant.clientId, second.refresh_token)).json()) as Tokens;

    // Another sign-in of the same client and user, and one of another client: the kill takes the first with it, not the second.
    const other = await signIn(running);
    const otherTokens = (await (await redeem(origin, other)).json()) as Tokens;

    await expectError(await refresh(origin, grant.clientId, first.refresh_token), 400, "invalid_grant");
    for (const access of [first.access_token, second.access_token, third.access_token]) assert.equal((await mcpAs(origin, access)).status, 401);
    await expectError(await refresh(origin, grant.clientId, third.refresh_token), 400, "invalid_grant");
    assert.equal((await mcpAs(origin, otherTokens.access_token)).status, 200);
    assert.deepEqual(running.logs.filter((record) => record.event === "token_reuse_detected").map((record) => record.reason), ["refresh_reused"]);
    assert.deepEqual(failures(running.logs), ["refresh_reused", "refresh_unknown"]);
    assertNoSecrets(running.logs, [first.refresh_token, second.refresh_token, third.refresh_token, first.access_token]);
  } finally {
    await running.server.close();
  }
});

test("a refresh token presented by another client kills its family", async () => {
  const running = await startOAuthTestServer();
  const origin = running.server.origin;
  try {
    const grant = await signIn(running);
    const tokens = (await (await redeem(origin, grant)).json()) as Tokens;
    await expectError(await refresh(origin, await registerClient(origin), tokens.refresh_token), 400, "invalid_grant");
    assert.equal((await mcpAs(origin, tokens.access_token)).status, 401);
    await expectError(await refresh(origin, grant.clientId, tokens.refresh_token), 400, "invalid_grant");
    assert.deepEqual(running.logs.filter((record) => record.event === "token_reuse_detected").map((record) => record.reason), ["client_mismatch"]);
  } finally {
    await running.server.close();
  }
});

test("malformed token requests get RFC 6749 §5.2 errors, each with one token_failed line", async () => {
  const running = await startOAuthTestServer();
  const origin = running.server.origin;
  try {
    await expectError(await token(origin, { grant_type: "client_credentials" }), 400, "unsupported_grant_type");
    await expectError(await token(origin, {}), 400, "invalid_request");
    await expectError(await token(origin, { grant_type: "authorization_code", client_id: "x" }), 400, "invalid_request");
    await expectError(await token(origin, { grant_type: "refresh_token", refresh_token: "sbm_ort_x" }), 401, "invalid_client");
    const json = await fetch(`${origin}/token`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ grant_type: "refresh_token" }) });
    await expectError(json, 400, "invalid_request");
    const repeated = await fetch(`${origin}/token`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "grant_type=refresh_token&grant_type=authorization_code" });
    await expectError(repeated, 400, "invalid_request");
    assert.equal((await fetch(`${origin}/token`)).status, 405);
    const pasted = "sbm_oat_pasted-into-the-wrong-field";
    await expectError(await token(origin, { grant_type: "refresh_token", refresh_token: "sbm_ort_x", client_id: pasted }), 401, "invalid_client");
    assert.ok(!JSON.stringify(running.logs).includes(pasted), "an unregistered client_id is not logged");
    assert.deepEqual(failures(running.logs), ["grant_type_unsupported", "grant_type_missing", "code_missing", "client_id_missing", "content_type", "parameter_repeated", "client_unknown"]);
  } finally {
    await running.server.close();
  }
});

test("an access token stops working after 12 hours, and a removed user's tokens stop at once", async () => {
  let now = Date.now();
  const running = await startOAuthTestServer({ now: () => now });
  const origin = running.server.origin;
  try {
    const grant = await signIn(running);
    const tokens = (await (await redeem(origin, grant)).json()) as Tokens;
    now += 12 * 60 * 60 * 1000 - 1000;
    assert.equal((await mcpAs(origin, tokens.access_token)).status, 200);
    now += 1000;
    assert.equal((await mcpAs(origin, tokens.access_token)).status, 401);
    const renewed = (await (await refresh(origin, grant.clientId, tokens.refresh_token)).json()) as Tokens;
    assert.equal((await mcpAs(origin, renewed.access_token)).status, 200);
    await running.service.forgetUsersExcept(new Set(["reader"]));
    assert.equal((await mcpAs(origin, renewed.access_token)).status, 401);
    await expectError(await refresh(origin, grant.clientId, renewed.refresh_token), 400, "invalid_grant");
  } finally {
    await running.server.close();
  }
});

test("tokens and clients survive a restart, stored only as hashes", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "sbm-oauth-"));
  try {
    const first = await startOAuthTestServer({ persistence: new FileOAuthPersistence(dir) });
    let grant: SignIn;
    let tokens: Tokens;
    try {
      grant = await signIn(first);
      tokens = (await (await redeem(first.server.origin, grant)).json()) as Tokens;
    } finally {
      await first.server.close();
    }
    const saved = readFileSync(path.join(dir, "oauth-state.json"), "utf8");
    for (const secret of [grant.code, grant.verifier, tokens.access_token, tokens.refresh_token]) assert.ok(!saved.includes(secret), "a secret was saved in the clear");
    const second = await startOAuthTestServer({ persistence: new FileOAuthPersistence(dir) });
    try {
      assert.equal((await mcpAs(second.server.origin, tokens.access_token)).status, 200);
      const renewed = await refresh(second.server.origin, grant.clientId, tokens.refresh_token);
      assert.equal(renewed.status, 200);
      await expectError(await redeem(second.server.origin, grant), 400, "invalid_grant");
      assert.deepEqual(failures(second.logs), ["code_replayed"]);
    } finally {
      await second.server.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
