// The caller's address behind a reverse proxy: only a proxy named in server.trusted_proxies is
// believed about who it forwards, only for the hops it added, and the per-address sign-in limit then
// counts each caller apart instead of all of them as the proxy.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { TrustedProxies, trustedProxyProblem } from "../../src/http/client-address";
import { startOAuthTestServer, type OAuthTestServer } from "./helpers";

const REDIRECT = "http://127.0.0.1:5125/callback";

test("the caller is the rightmost forwarded address that is no trusted proxy; nothing is believed from any other peer", () => {
  const proxies = new TrustedProxies(["127.0.0.1", "10.0.0.0/8", "fd00::/8"]);
  const cases: Array<[peer: string, forwarded: string | string[] | undefined, caller: string]> = [
    ["127.0.0.1", "203.0.113.7", "203.0.113.7"],
    ["::ffff:127.0.0.1", "203.0.113.7", "203.0.113.7"],
    // What the caller wrote itself lies to the left of what the proxy added.
    ["127.0.0.1", "198.51.100.1, 203.0.113.7", "203.0.113.7"],
    ["127.0.0.1", ["198.51.100.1", "203.0.113.7"], "203.0.113.7"],
    // Two proxies of ours: the address the inner one saw is the first one that is not ours.
    ["127.0.0.1", "198.51.100.1, 203.0.113.7, 10.1.2.3", "203.0.113.7"],
    ["127.0.0.1", "203.0.113.7:51234", "203.0.113.7"],
    ["127.0.0.1", "[2001:db8::7]:443", "2001:db8::7"],
    ["127.0.0.1", "2001:DB8::7", "2001:db8::7"],
    ["fd12::1", "203.0.113.7", "203.0.113.7"],
    // Every hop ours: the furthest one.
    ["127.0.0.1", "10.9.9.9", "10.9.9.9"],
    // A hop that is no address ends the walk at the last trusted address.
    ["127.0.0.1", "203.0.113.7, garbage", "127.0.0.1"],
    ["127.0.0.1", "unknown", "127.0.0.1"],
    ["127.0.0.1", "", "127.0.0.1"],
    ["127.0.0.1", undefined, "127.0.0.1"],
    // A peer that is no trusted proxy is the caller, whatever it claims.
    ["203.0.113.9", "198.51.100.1", "203.0.113.9"],
    ["192.168.1.5", "127.0.0.1", "192.168.1.5"],
  ];
  for (const [peer, forwarded, caller] of cases) assert.equal(proxies.callerOf(peer, forwarded), caller, `${peer} forwarding ${JSON.stringify(forwarded)}`);
  // No trusted proxy at all: the header means nothing.
  assert.equal(new TrustedProxies([]).callerOf("127.0.0.1", "203.0.113.7"), "127.0.0.1");
  // A forged chain of trusted addresses is walked no further than 20 hops.
  const long = [...Array.from({ length: 30 }, () => "10.0.0.1"), "10.0.0.2"].join(",");
  assert.equal(proxies.callerOf("127.0.0.1", `198.51.100.1,${long}`), "10.0.0.1");
});

test("trusted_proxies takes addresses and ranges, and says what is wrong with anything else", () => {
  for (const good of ["127.0.0.1", "::1", "10.0.0.0/8", "0.0.0.0/0", "fd00::/8", "2001:db8::/128"]) assert.equal(trustedProxyProblem(good), null, good);
  for (const bad of ["localhost", "10.0.0.0/33", "::1/129", "10.0.0.0/8/1", "10.0.0.0/", "10.0.0.0/x", "300.1.1.1", "", "10.0.0.0/08a"]) {
    assert.match(String(trustedProxyProblem(bad)), /must be|prefix length/, bad);
  }
  assert.throws(() => new TrustedProxies(["proxy.internal"]), /trusted proxy "proxy.internal" must be an IP address/);
});

async function signInAttempts(running: OAuthTestServer, forwardedFor: string, attempts: number): Promise<number[]> {
  const origin = running.server.origin;
  const registered = await fetch(`${origin}/register`, { method: "POST", body: JSON.stringify({ redirect_uris: [REDIRECT] }) });
  const clientId = ((await registered.json()) as { client_id: string }).client_id;
  const challenge = createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url");
  const params = new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: "S256" });
  const csrfOf = (html: string): string => /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? "";
  let csrf = csrfOf(await (await fetch(`${origin}/authorize?${params.toString()}`, { headers: { "X-Forwarded-For": forwardedFor } })).text());
  const statuses: number[] = [];
  for (let attempt = 0; attempt < attempts; attempt++) {
    const response = await fetch(`${origin}/authorize`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Forwarded-For": forwardedFor },
      body: new URLSearchParams({ csrf_token: csrf, username: "tester", password: "wrong" }).toString(),
    });
    statuses.push(response.status);
    csrf = csrfOf(await response.text());
  }
  return statuses;
}

const wrongPassword = { verifyPassword: (): Promise<boolean> => Promise.resolve(false) };

test("behind a trusted proxy each caller has its own ten sign-in attempts a minute, and the log names the caller", async () => {
  const running = await startOAuthTestServer(wrongPassword, { trustedProxies: ["127.0.0.1"] });
  try {
    const guesser = await signInAttempts(running, "203.0.113.7", 11);
    assert.deepEqual(guesser, [...Array<number>(10).fill(401), 429]);
    assert.deepEqual(await signInAttempts(running, "198.51.100.2", 1), [401], "another caller behind the same proxy can still sign in");
    // The guesser cannot get a fresh allowance by writing another address in front of the proxy's.
    assert.deepEqual(await signInAttempts(running, "198.51.100.3, 203.0.113.7", 1), [429]);
    const failures = running.logs.filter((record) => record.event === "authorize_failed" && record.reason === "invalid_login");
    assert.ok(failures.length > 0 && failures.every((record) => record.remote === "203.0.113.7" || record.remote === "198.51.100.2"), JSON.stringify(failures.map((record) => record.remote)));
  } finally {
    await running.server.close();
  }
});

test("without trusted proxies X-Forwarded-For is ignored: every caller is the connection's address", async () => {
  const running = await startOAuthTestServer(wrongPassword);
  try {
    assert.deepEqual(await signInAttempts(running, "203.0.113.7", 10), Array<number>(10).fill(401));
    assert.deepEqual(await signInAttempts(running, "198.51.100.2", 1), [429], "a claimed address buys no fresh allowance");
  } finally {
    await running.server.close();
  }
});
