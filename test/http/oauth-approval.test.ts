// Sign-in by approval (the plugin's authorization endpoint): the same checks as a login come first,
// then a waiting page whose script polls a status endpoint while the host asks the person; Allow
// redirects with a code, Deny with access_denied, no decision in time gives the timed-out page.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import type { Approval } from "../../src/auth/oauth/approval";
import type { UserInfo } from "../../src/tools/types";
import { authorized, startOAuthTestServer, type OAuthTestServer } from "./helpers";

const REDIRECT = "http://127.0.0.1:5124/callback";
const TIMEOUT_MS = 300_000;

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

interface ApprovalServer extends OAuthTestServer {
  asked: Approval[];
  clock: { now: number };
  acting: { user: UserInfo | string };
}

async function start(): Promise<ApprovalServer> {
  const asked: Approval[] = [];
  const clock = { now: Date.now() };
  const acting: { user: UserInfo | string } = { user: { name: "tester", readOnly: false, vaults: [] } };
  const running = await startOAuthTestServer({
    now: () => clock.now,
    approval: { actingUser: () => acting.user, ask: (approval) => asked.push(approval), timeoutMs: TIMEOUT_MS },
  });
  return { ...running, asked, clock, acting };
}

async function registerClient(origin: string): Promise<string> {
  const response = await fetch(`${origin}/register`, { method: "POST", body: JSON.stringify({ redirect_uris: [REDIRECT], client_name: "Approval <Test>" }) });
  return ((await response.json()) as { client_id: string }).client_id;
}

function authorizeParams(clientId: string, challenge: string): Record<string, string> {
  return { response_type: "code", client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: "S256", state: "st 1" };
}

function tokenOf(html: string): string {
  const match = /name="approval" value="([^"]+)"/.exec(html);
  assert.ok(match, "the page carries its approval token");
  return match[1]!;
}

function post(origin: string, path: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${origin}${path}`, { method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() });
}

async function status(origin: string, token: string): Promise<string> {
  const response = await post(origin, "/authorize/status", { approval: token });
  assert.equal(response.headers.get("cache-control"), "no-store");
  return ((await response.json()) as { status: string }).status;
}

test("the request is checked first; the waiting page has the page headers and a nonce script allowed to reach its own server only; Allow redirects once with a code that buys tokens", async () => {
  const running = await start();
  const origin = running.server.origin;
  try {
    const clientId = await registerClient(origin);
    const { verifier, challenge } = pkce();
    const params = authorizeParams(clientId, challenge);

    const unknown = await fetch(`${origin}/authorize?${new URLSearchParams({ ...params, client_id: "nobody" }).toString()}`, { redirect: "manual" });
    assert.equal(unknown.status, 400);
    assert.match(await unknown.text(), /not registered/);
    const elsewhere = await fetch(`${origin}/authorize?${new URLSearchParams({ ...params, redirect_uri: "http://127.0.0.1:5124/other" }).toString()}`, { redirect: "manual" });
    assert.equal(elsewhere.status, 400, "an unregistered redirect URI gets a page, never a redirect");
    const noPkce = await fetch(`${origin}/authorize?${new URLSearchParams({ ...params, code_challenge_method: "plain" }).toString()}`, { redirect: "manual" });
    assert.equal(noPkce.status, 302);
    assert.equal(new URL(String(noPkce.headers.get("location"))).searchParams.get("error"), "invalid_request");
    assert.equal(running.asked.length, 0, "nobody is asked about a request that failed its checks");

    const page = await fetch(`${origin}/authorize?${new URLSearchParams(params).toString()}`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get("cache-control"), "no-store");
    assert.equal(page.headers.get("x-frame-options"), "DENY");
    assert.equal(page.headers.get("referrer-policy"), "no-referrer");
    assert.equal(page.headers.get("x-content-type-options"), "nosniff");
    const csp = String(page.headers.get("content-security-policy"));
    const nonce = /script-src 'nonce-([A-Za-z0-9_-]+)'/.exec(csp)?.[1];
    assert.ok(nonce);
    assert.match(csp, /^default-src 'none'; style-src 'nonce-/);
    assert.match(csp, /frame-ancestors 'none'; base-uri 'none'; form-action 'self' http:\/\/127\.0\.0\.1:5124;/);
    assert.match(csp, /connect-src 'self'$/);
    const html = await page.text();
    assert.ok(html.includes(`<script nonce="${nonce}">`));
    assert.equal(html.match(/<script/g)?.length, 1, "no script without the nonce");
    assert.match(html, /Approve in Obsidian/);
    assert.ok(html.includes("Approval &#60;Test&#62;") && html.includes("a name the application gave itself"));
    const token = tokenOf(html);

    assert.equal(running.asked.length, 1);
    const approval = running.asked[0]!;
    assert.equal(approval.request.client_name, "Approval <Test>");
    assert.equal(approval.user, "tester");
    assert.equal(await status(origin, token), "pending");
    assert.equal(await status(origin, "not-a-token"), "unknown");
    const fromNullOrigin = await fetch(`${origin}/authorize/status`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "null" }, body: `approval=${token}` });
    assert.equal(fromNullOrigin.status, 200, "the page's poll is answered when the browser sends Origin: null under no-referrer");
    const foreign = await fetch(`${origin}/authorize/status`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://evil.example" }, body: `approval=${token}` });
    assert.equal(foreign.status, 403);

    assert.equal(approval.decide("allow"), true);
    assert.equal(approval.decide("deny"), false, "a decision is taken once");
    assert.equal(await status(origin, token), "decided");
    const allowed = await post(origin, "/authorize", { approval: token });
    assert.equal(allowed.status, 302);
    const location = new URL(String(allowed.headers.get("location")));
    assert.equal(`${location.origin}${location.pathname}`, REDIRECT);
    assert.equal(location.searchParams.get("state"), "st 1");
    assert.equal(location.searchParams.get("iss"), origin);
    const code = location.searchParams.get("code") ?? "";
    assert.match(code, /^[A-Za-z0-9_-]{43}$/);

    const again = await post(origin, "/authorize", { approval: token });
    assert.equal(again.status, 400, "the page's token is spent once");
    assert.match(await again.text(), /expired or was already used/);

    const tokens = await post(origin, "/token", { grant_type: "authorization_code", code, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT });
    assert.equal(tokens.status, 200);
    const { access_token } = (await tokens.json()) as { access_token: string };
    const mcp = await fetch(`${origin}/mcp`, { method: "POST", headers: authorized({ Authorization: `Bearer ${access_token}` }), body: "{}" });
    assert.deepEqual(await mcp.json(), { user: "tester" });
    const events = running.logs.map((record) => JSON.stringify(record)).join("\n");
    for (const secret of [token, code, verifier, access_token]) assert.ok(!events.includes(secret), "no secret in the log");
  } finally {
    await running.server.close();
  }
});

test("Deny redirects with access_denied and the state; a submit before any decision shows the same page with the same token", async () => {
  const running = await start();
  const origin = running.server.origin;
  try {
    const clientId = await registerClient(origin);
    const html = await (await fetch(`${origin}/authorize?${new URLSearchParams(authorizeParams(clientId, pkce().challenge)).toString()}`)).text();
    const token = tokenOf(html);
    const early = await post(origin, "/authorize", { approval: token });
    assert.equal(early.status, 200);
    assert.match(String(early.headers.get("content-security-policy")), /form-action 'self' http:\/\/127\.0\.0\.1:5124;/);
    assert.equal(tokenOf(await early.text()), token);

    assert.equal(running.asked[0]!.decide("deny"), true);
    const denied = await post(origin, "/authorize", { approval: token });
    assert.equal(denied.status, 302);
    const location = new URL(String(denied.headers.get("location")));
    assert.equal(location.searchParams.get("error"), "access_denied");
    assert.equal(location.searchParams.get("state"), "st 1");
    assert.equal(location.searchParams.get("code"), null);
    assert.ok(running.logs.some((record) => record.event === "authorize_denied"));
  } finally {
    await running.server.close();
  }
});

test("a client whose callback is its own scheme (cursor://): the waiting page's form-action names the scheme, and Allow redirects there with a code", async () => {
  const running = await start();
  const origin = running.server.origin;
  const callback = "cursor://anysphere.cursor-mcp/oauth/callback";
  try {
    const registered = await fetch(`${origin}/register`, { method: "POST", body: JSON.stringify({ redirect_uris: [callback], client_name: "Cursor" }) });
    const clientId = ((await registered.json()) as { client_id: string }).client_id;
    const { verifier, challenge } = pkce();
    const page = await fetch(`${origin}/authorize?${new URLSearchParams({ ...authorizeParams(clientId, challenge), redirect_uri: callback }).toString()}`);
    assert.equal(page.status, 200);
    assert.match(String(page.headers.get("content-security-policy")), /form-action 'self' cursor:;/);
    const token = tokenOf(await page.text());
    assert.equal(running.asked[0]!.decide("allow"), true);
    const allowed = await post(origin, "/authorize", { approval: token });
    assert.equal(allowed.status, 302);
    const location = new URL(String(allowed.headers.get("location")));
    assert.equal(`${location.protocol}//${location.host}${location.pathname}`, callback);
    const code = location.searchParams.get("code") ?? "";
    const tokens = await post(origin, "/token", { grant_type: "authorization_code", code, code_verifier: verifier, client_id: clientId, redirect_uri: callback });
    assert.equal(tokens.status, 200, await tokens.clone().text());
  } finally {
    await running.server.close();
  }
});

test("no decision within the approval time: the status says expired, a late Allow is refused, and the page says it timed out", async () => {
  const running = await start();
  const origin = running.server.origin;
  try {
    const clientId = await registerClient(origin);
    const token = tokenOf(await (await fetch(`${origin}/authorize?${new URLSearchParams(authorizeParams(clientId, pkce().challenge)).toString()}`)).text());
    running.clock.now += TIMEOUT_MS - 1;
    assert.equal(await status(origin, token), "pending");
    running.clock.now += 1;
    assert.equal(await status(origin, token), "expired");
    assert.equal(running.asked[0]!.decide("allow"), false, "too late to allow");
    const late = await post(origin, "/authorize", { approval: token });
    assert.equal(late.status, 400);
    assert.match(await late.text(), /timed out\. Start the connection again in the application/);
    assert.equal((await post(origin, "/authorize", { approval: token })).status, 400);
  } finally {
    await running.server.close();
  }
});

test("without a user to act as, the page says what to do and nobody is asked; at most five requests wait at once", async () => {
  const running = await start();
  const origin = running.server.origin;
  try {
    const clientId = await registerClient(origin);
    const url = (): string => `${origin}/authorize?${new URLSearchParams(authorizeParams(clientId, pkce().challenge)).toString()}`;
    running.acting.user = "Choose a user in the settings.";
    const none = await fetch(url());
    assert.equal(none.status, 503);
    assert.match(await none.text(), /Choose a user in the settings\./);
    assert.equal(running.asked.length, 0);

    running.acting.user = { name: "tester", readOnly: false, vaults: [] };
    for (let i = 0; i < 5; i++) assert.equal((await fetch(url())).status, 200);
    const sixth = await fetch(url());
    assert.equal(sixth.status, 429);
    assert.equal(running.asked.length, 5);
    running.asked[0]!.decide("deny");
    assert.equal((await fetch(url())).status, 200, "a decided request no longer counts");
  } finally {
    await running.server.close();
  }
});

test("signed-in clients are listed per client and user, and revoking one stops its access and refresh tokens at once", async () => {
  const running = await start();
  const origin = running.server.origin;
  try {
    const clientId = await registerClient(origin);
    const { verifier, challenge } = pkce();
    const token = tokenOf(await (await fetch(`${origin}/authorize?${new URLSearchParams(authorizeParams(clientId, challenge)).toString()}`)).text());
    running.asked[0]!.decide("allow");
    const code = new URL(String((await post(origin, "/authorize", { approval: token })).headers.get("location"))).searchParams.get("code") ?? "";
    const tokens = (await (await post(origin, "/token", { grant_type: "authorization_code", code, code_verifier: verifier, client_id: clientId })).json()) as { access_token: string; refresh_token: string };
    running.clock.now += 1000;
    const call = (): Promise<Response> => fetch(`${origin}/mcp`, { method: "POST", headers: authorized({ Authorization: `Bearer ${tokens.access_token}` }), body: "{}" });
    assert.equal((await call()).status, 200);
    const listed = running.service.signedIn();
    assert.deepEqual(listed, [{ client_id: clientId, client_name: "Approval <Test>", user: "tester", last_used: running.clock.now }]);

    assert.ok((await running.service.revoke(clientId, "tester")) >= 2);
    assert.equal((await call()).status, 401);
    const refreshed = await post(origin, "/token", { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: clientId });
    assert.equal(refreshed.status, 400);
    assert.deepEqual(running.service.signedIn(), []);
    assert.ok(running.logs.some((record) => record.event === "oauth_tokens_revoked" && record.reason === "revoked_by_user"));
  } finally {
    await running.server.close();
  }
});
