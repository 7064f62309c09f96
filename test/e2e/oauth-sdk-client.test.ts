// The official SDK client's own OAuth flow against the headless server: discovery, dynamic
// registration, PKCE, the login form (submitted here as the browser would) and the token exchange,
// then tool calls with the token it got, and a refresh when that token is refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { callTool, startTestServer } from "../support/server";
import { EDGE_VAULT } from "../support/vaults";

const REDIRECT = "http://127.0.0.1:7778/oauth/callback";

class MemoryProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;

  get redirectUrl(): string {
    return REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "SDK client", redirect_uris: [REDIRECT], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.information;
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.information = information;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }
}

/** What the user does in the browser: open the page, fill in the form, follow the redirect. */
async function signInAsBrowser(authorizationUrl: URL, username: string, password: string): Promise<string> {
  const page = await fetch(authorizationUrl);
  assert.equal(page.status, 200);
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(await page.text())?.[1] ?? "";
  const submitted = await fetch(new URL("/authorize", authorizationUrl), {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: authorizationUrl.origin },
    body: new URLSearchParams({ csrf_token: csrf, username, password }).toString(),
  });
  assert.equal(submitted.status, 302);
  const location = new URL(String(submitted.headers.get("location")));
  assert.equal(`${location.origin}${location.pathname}`, REDIRECT);
  assert.equal(location.searchParams.get("state"), authorizationUrl.searchParams.get("state"));
  return location.searchParams.get("code") ?? "";
}

test("the SDK client registers, signs in through the login form, calls tools with its token, and refreshes it", async () => {
  const password = randomBytes(18).toString("base64url");
  process.env.SBM_TEST_SDK_PASSWORD = password;
  const running = await startTestServer({
    fixture: EDGE_VAULT,
    users: [{ name: "alice", token_hashes: [], vaults: [], read_only: false, password: "env:SBM_TEST_SDK_PASSWORD" }],
    extra: { oauth: {} },
  });
  const provider = new MemoryProvider();
  try {
    const first = new StreamableHTTPClientTransport(new URL(running.url), { authProvider: provider });
    await assert.rejects(new Client({ name: "sdk-oauth", version: "1.0.0" }).connect(first), UnauthorizedError);
    assert.ok(provider.information?.client_id, "the client registered itself");
    const authorizationUrl = provider.authorizationUrl;
    assert.ok(authorizationUrl);
    assert.equal(authorizationUrl.searchParams.get("code_challenge_method"), "S256");
    assert.equal(authorizationUrl.searchParams.get("resource"), running.url, "the client names this server (RFC 8707), which the server checks");
    const code = await signInAsBrowser(authorizationUrl, "alice", password);
    await first.finishAuth(code);
    assert.match(provider.saved?.access_token ?? "", /^sbm_oat_/);

    const client = new Client({ name: "sdk-oauth", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url), { authProvider: provider }));
    assert.equal((await callTool(client, "note_query", { where: { status: { exists: true } } })).isError, false);
    await client.close();

    // An access token the server no longer knows: the client refreshes with its refresh token and goes on.
    const refreshToken = provider.saved?.refresh_token;
    provider.saveTokens({ ...provider.saved!, access_token: "sbm_oat_" + "x".repeat(43) });
    const again = new Client({ name: "sdk-oauth", version: "1.0.0" });
    await again.connect(new StreamableHTTPClientTransport(new URL(running.url), { authProvider: provider }));
    assert.equal((await callTool(again, "note_query", { where: { status: { exists: true } } })).isError, false);
    assert.notEqual(provider.saved?.refresh_token, refreshToken, "the refresh token was rotated");
    await again.close();
    const log = running.logs.join("\n");
    assert.ok(log.includes('"event":"token_issued"') && log.includes('"grant_type":"refresh_token"'));
    assert.ok(!log.includes(password));
  } finally {
    delete process.env.SBM_TEST_SDK_PASSWORD;
    await running.stop();
  }
});
