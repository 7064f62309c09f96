import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { startOAuthTestServer, type OAuthTestServer } from "./helpers";

const REDIRECT = "http://127.0.0.1:5123/callback";
const PASSWORD = "correct horse battery staple";

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

async function start(now?: () => number): Promise<OAuthTestServer & { checked: string[] }> {
  const checked: string[] = [];
  const running = await startOAuthTestServer({
    ...(now ? { now } : {}),
    verifyPassword: (name, password) => {
      checked.push(name);
      return Promise.resolve(name === "tester" && password === PASSWORD);
    },
  });
  return { ...running, checked };
}

async function registerClient(origin: string, redirect = REDIRECT): Promise<string> {
  const response = await fetch(`${origin}/register`, { method: "POST", body: JSON.stringify({ redirect_uris: [redirect], client_name: "Browser <Test>" }) });
  return ((await response.json()) as { client_id: string }).client_id;
}

function authorizeUrl(origin: string, params: Record<string, string>): string {
  return `${origin}/authorize?${new URLSearchParams(params).toString()}`;
}

function csrfOf(html: string): string {
  const match = /name="csrf_token" value="([^"]+)"/.exec(html);
  assert.ok(match, "the page carries a CSRF token");
  return match[1]!;
}

function submit(origin: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${origin}/authorize`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
}

test("the login page carries the security headers, a nonce CSP whose form-action names the redirect origin, and a CSRF token; signing in redirects with a code that buys tokens", async () => {
  const running = await start();
  const origin = running.server.origin;
  try {
    const clientId = await registerClient(origin);
    const { verifier, challenge } = pkce();
    const params = { response_type: "code", client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: "S256", state: "xyz 1", resource: `${origin}/mcp` };
    const page = await fetch(authorizeUrl(origin, params));
    assert.equal(page.status, 200);
    assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
    assert.equal(page.headers.get("cache-control"), "no-store");
    assert.equal(page.headers.get("x-frame-options"), "DENY");
    assert.equal(page.headers.get("referrer-policy"), "no-referrer");
    assert.equal(page.headers.get("x-content-type-options"), "nosniff");
    const csp = String(page.headers.get("content-security-policy"));
    const nonce = /style-src 'nonce-([A-Za-z0-9_-]+)'/.exec(csp)?.[1];
    assert.ok(nonce);
    assert.match(csp, /^default-src 'none'; /);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /base-uri 'none'/);
    assert.match(csp, /form-action 'self' http:\/\/127\.0\.0\.1:5123$/);
    const html = await page.text();
    assert.ok(html.includes(`<style nonce="${nonce}">`));
    assert.ok(html.includes("Browser &#60;Test&#62;"), "the client's name is escaped");
    assert.ok(!/<script/i.test(html));
    assert.match(html, /<form method="post">/, "posts back to the page's own URL, inside form-action 'self'");
    const csrf = csrfOf(html);

    const signedIn = await submit(origin, { csrf_token: csrf, username: "tester", password: PASSWORD });
    assert.equal(signedIn.status, 302);
    const location = new URL(String(signedIn.headers.get("location")));
    assert.equal(`${location.origin}${location.pathname}`, REDIRECT);
    assert.equal(location.searchParams.get("state"), "xyz 1");
    assert.equal(location.searchParams.get("iss"), origin);
    const code = String(location.searchParams.get("code"));
    assert.match(code, /^[A-Za-z0-9_-]{43}$/);

    const tokens = await fetch(`${origin}/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code", code, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT }).toString(),
    });
    assert.equal(tokens.status, 200);
    const access = ((await tokens.json()) as { access_token: string }).access_token;
    const mcp = await fetch(`${origin}/mcp`, { method: "POST", headers: { Authorization: `Bearer ${access}` }, body: "{}" });
    assert.deepEqual(await mcp.json(), { user: "tester" });

    const again = await submit(origin, { csrf_token: csrf, username: "tester", password: PASSWORD });
    assert.equal(again.status, 400, "a CSRF token is spent once used");
    assert.match(await again.text(), /expired or was already used\. Start the connection again/);
    const text = JSON.stringify(running.logs);
    for (const secret of [PASSWORD, code, csrf, verifier, access]) assert.ok(!text.includes(secret), "a secret reached the log");
  } finally {
    await running.server.close();
  }
});

test("authorize checks the client, then the redirect URI (both an error page, never a redirect), then response_type, PKCE and the RFC 8707 resource (redirected back with the error)", async () => {
  const running = await start();
  const origin = running.server.origin;
  try {
    const clientId = await registerClient(origin);
    const { challenge } = pkce();
    const good = { response_type: "code", client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: "S256", state: "s1" };
    const cases: Array<[Record<string, string>, number, RegExp | string]> = [
      [{ ...good, client_id: "unknown", redirect_uri: "https://evil.example/cb", response_type: "token" }, 400, /not registered with this server/],
      [{ ...good, redirect_uri: "http://127.0.0.1:5123/other", response_type: "token" }, 400, /did not register/],
      [{ ...good, redirect_uri: `${REDIRECT}/` }, 400, /did not register/],
      [{ ...good, response_type: "token", code_challenge: "" }, 302, "unsupported_response_type"],
      [{ ...good, code_challenge: "" }, 302, "invalid_request"],
      [{ ...good, code_challenge_method: "plain" }, 302, "invalid_request"],
      [{ ...good, resource: "https://other.example/mcp" }, 302, "invalid_target"],
    ];
    for (const [params, status, expected] of cases) {
      const response = await fetch(authorizeUrl(origin, params), { redirect: "manual" });
      assert.equal(response.status, status, JSON.stringify(params));
      if (status === 400) {
        assert.equal(response.headers.get("location"), null);
        assert.equal(response.headers.get("x-frame-options"), "DENY");
        assert.match(await response.text(), expected as RegExp);
      } else {
        const location = new URL(String(response.headers.get("location")));
        assert.equal(`${location.origin}${location.pathname}`, REDIRECT);
        assert.equal(location.searchParams.get("error"), expected);
        assert.equal(location.searchParams.get("state"), "s1");
      }
    }
    assert.deepEqual(
      running.logs.filter((record) => record.event === "authorize_failed").map((record) => record.reason),
      ["client_unknown", "redirect_uri_mismatch", "redirect_uri_mismatch", "response_type", "pkce_missing", "pkce_missing", "resource_mismatch"],
    );
  } finally {
    await running.server.close();
  }
});

async function loginForm(running: OAuthTestServer, clientId: string): Promise<string> {
  const params = { response_type: "code", client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge, code_challenge_method: "S256" };
  return csrfOf(await (await fetch(authorizeUrl(running.server.origin, params))).text());
}

test("a wrong password and an unknown user get the same answer, and the unknown user still costs a password check", async () => {
  const running = await start();
  const origin = running.server.origin;
  try {
    const clientId = await registerClient(origin);
    const wrong = await submit(origin, { csrf_token: await loginForm(running, clientId), username: "tester", password: "not it" });
    const unknown = await submit(origin, { csrf_token: await loginForm(running, clientId), username: "nobody", password: PASSWORD });
    for (const response of [wrong, unknown]) {
      assert.equal(response.status, 401);
      const html = await response.text();
      assert.match(html, /Invalid username or password\./);
      csrfOf(html);
    }
    assert.deepEqual(running.checked, ["tester", "nobody"]);
    assert.ok(!JSON.stringify(running.logs).includes("not it"));
  } finally {
    await running.server.close();
  }
});

test("ten sign-in attempts a minute per address; the eleventh gets 429 with the form again", async () => {
  const running = await start();
  const origin = running.server.origin;
  try {
    const clientId = await registerClient(origin);
    let csrf = await loginForm(running, clientId);
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const response = await submit(origin, { csrf_token: csrf, username: "tester", password: "wrong" });
      assert.equal(response.status, 401, `attempt ${attempt + 1}`);
      csrf = csrfOf(await response.text());
    }
    const limited = await submit(origin, { csrf_token: csrf, username: "tester", password: PASSWORD });
    assert.equal(limited.status, 429);
    const html = await limited.text();
    assert.match(html, /Too many sign-in attempts/);
    csrfOf(html);
    assert.equal(running.checked.length, 10, "no password is checked once limited");
  } finally {
    await running.server.close();
  }
});

test("a CSRF token lasts ten minutes; an unknown one gets the restart page", async () => {
  let now = Date.now();
  const running = await start(() => now);
  const origin = running.server.origin;
  try {
    const clientId = await registerClient(origin);
    const csrf = await loginForm(running, clientId);
    now += 10 * 60 * 1000;
    const expired = await submit(origin, { csrf_token: csrf, username: "tester", password: PASSWORD });
    assert.equal(expired.status, 400);
    assert.match(await expired.text(), /expired or was already used/);
    const forged = await submit(origin, { csrf_token: "made-up", username: "tester", password: PASSWORD });
    assert.equal(forged.status, 400);
    assert.equal(running.checked.length, 0);
  } finally {
    await running.server.close();
  }
});

test("without password sign-in configured, /authorize says nobody can sign in here", async () => {
  const running = await startOAuthTestServer();
  try {
    const clientId = await registerClient(running.server.origin);
    const params = { response_type: "code", client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge, code_challenge_method: "S256" };
    const response = await fetch(authorizeUrl(running.server.origin, params));
    assert.equal(response.status, 503);
    assert.match(await response.text(), /No user of this server has a password/);
  } finally {
    await running.server.close();
  }
});

test("the login form posted with 'Origin: null', as its no-referrer policy makes browsers send it, signs in; a foreign Origin and 'null' elsewhere are still refused", async () => {
  const running = await start();
  const origin = running.server.origin;
  try {
    const clientId = await registerClient(origin);
    const { challenge } = pkce();
    const params = { response_type: "code", client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: "S256", state: "s" };
    const post = async (from: string): Promise<Response> => {
      const csrf = csrfOf(await (await fetch(authorizeUrl(origin, params))).text());
      return fetch(authorizeUrl(origin, params), {
        method: "POST",
        redirect: "manual",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: from },
        body: new URLSearchParams({ csrf_token: csrf, username: "tester", password: PASSWORD }).toString(),
      });
    };
    const signedIn = await post("null");
    assert.equal(signedIn.status, 302);
    assert.ok(new URL(String(signedIn.headers.get("location"))).searchParams.get("code"));
    assert.equal((await post("https://evil.example")).status, 403);
    const elsewhere = await fetch(`${origin}/register`, { method: "POST", headers: { Origin: "null" }, body: JSON.stringify({ redirect_uris: [REDIRECT] }) });
    assert.equal(elsewhere.status, 403);
  } finally {
    await running.server.close();
  }
});
