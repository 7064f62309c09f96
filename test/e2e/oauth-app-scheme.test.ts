// A native client whose callback is its own URI scheme (RFC 8252 §7.1), as Cursor's
// `cursor://anysphere.cursor-mcp/oauth/callback`: it registers, the user signs in on the headless
// server's login page in a real browser (Debian's Chromium), and the browser is sent on to the app's
// scheme with a code. The page's CSP must name that scheme in form-action: an origin (which such a URI
// does not have) would make the browser block the redirect after the POST.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import type { Browser } from "playwright-core";
import { defaultUser } from "../../src/auth/users";
import { generateToken } from "../../src/auth/tokens";
import { launchChromium } from "../support/oauth-browser";
import { found } from "../support/poll";
import { callTool, startTestServer, type TestServer } from "../support/server";
import { EDGE_VAULT } from "../support/vaults";

const CURSOR_CALLBACK = "cursor://anysphere.cursor-mcp/oauth/callback";
const PASSWORD = randomBytes(18).toString("base64url");

let browser: Browser;
let running: TestServer;

before(async () => {
  process.env.SBM_TEST_APP_SCHEME_PASSWORD = PASSWORD;
  browser = await launchChromium();
  running = await startTestServer({
    fixture: EDGE_VAULT,
    users: [defaultUser(generateToken()), { name: "carol", token_hashes: [], vaults: [], read_only: false, password: "env:SBM_TEST_APP_SCHEME_PASSWORD" }],
    extra: { oauth: {} },
  });
});

after(async () => {
  delete process.env.SBM_TEST_APP_SCHEME_PASSWORD;
  await browser?.close();
  await running?.stop();
});

test("Cursor's registration and sign-in: the browser is sent on to cursor:// with a code that buys a working token", async () => {
  const origin = new URL(running.url).origin;
  const registered = await fetch(`${origin}/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      client_name: "Cursor",
      redirect_uris: [CURSOR_CALLBACK, "https://www.cursor.com/agents/mcp/oauth/callback", "http://localhost:8787/callback"],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    }),
  });
  assert.equal(registered.status, 201, await registered.clone().text());
  const { client_id } = (await registered.json()) as { client_id: string };
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const query = new URLSearchParams({ response_type: "code", client_id, redirect_uri: CURSOR_CALLBACK, code_challenge: challenge, code_challenge_method: "S256", state: "cursor-state" });

  const page = await browser.newPage();
  try {
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    const redirects: string[] = [];
    page.on("response", (response) => {
      if (response.status() === 302) redirects.push(response.headers().location ?? "");
    });
    const shown = await page.goto(`${origin}/authorize?${query.toString()}`);
    assert.equal(shown?.status(), 200);
    assert.match(String(shown?.headers()["content-security-policy"]), /form-action 'self' cursor:$/);
    await page.fill("#username", "carol");
    await page.fill("#password", PASSWORD);
    await page.click("button[type=submit]");
    // Headless Chromium has no app for cursor: and drops the navigation; the redirect it was sent is what Cursor would get.
    const location = await found(10_000, "the browser follows the sign-in's redirect", () =>
      Promise.resolve(redirects.length > 0 || violations.length > 0 ? (redirects[0] ?? "") : undefined),
    );
    assert.deepEqual(violations, [], "the CSP let the form's redirect through");
    const back = new URL(location);
    assert.equal(`${back.protocol}//${back.host}${back.pathname}`, CURSOR_CALLBACK);
    assert.equal(back.searchParams.get("state"), "cursor-state");
    const code = back.searchParams.get("code") ?? "";
    assert.ok(code.length > 20, "a code in the redirect");

    const tokens = await fetch(`${origin}/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code", code, code_verifier: verifier, client_id, redirect_uri: CURSOR_CALLBACK }).toString(),
    });
    assert.equal(tokens.status, 200, await tokens.clone().text());
    const { access_token } = (await tokens.json()) as { access_token: string };
    const asCarol = await running.connect(access_token, "Cursor");
    const listed = await callTool(asCarol, "note_list", { limit: 1 });
    assert.equal(listed.isError, false, listed.text);
  } finally {
    await page.close();
  }
});
