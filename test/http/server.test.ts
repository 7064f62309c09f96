import { test } from "node:test";
import assert from "node:assert/strict";
import { buildHealth } from "../../src/http/health";
import { authorized, rawRequest, startTestServer, TOKEN } from "./helpers";

const EIGHT_MIB = 8 * 1024 * 1024;

test("POST /mcp hands the parsed body and the user to the MCP handler", async () => {
  const { server, bodies } = await startTestServer();
  try {
    const message = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    const response = await fetch(server.url, { method: "POST", headers: authorized(), body: JSON.stringify(message) });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { user: "tester" });
    assert.deepEqual(bodies, [message]);
    assert.equal(response.headers.get("cache-control"), "no-store");
  } finally {
    await server.close();
  }
});

test("GET /mcp is 405 with Allow, DELETE is 204, other methods 405", async () => {
  const { server } = await startTestServer();
  try {
    const get = await fetch(server.url, { headers: authorized({ Accept: "text/event-stream" }) });
    assert.equal(get.status, 405);
    assert.equal(get.headers.get("allow"), "POST, DELETE");
    assert.equal(get.headers.get("cache-control"), "no-store");
    const remove = await fetch(server.url, { method: "DELETE", headers: authorized() });
    assert.equal(remove.status, 204);
    assert.equal(remove.headers.get("cache-control"), "no-store");
    const put = await fetch(server.url, { method: "PUT", headers: authorized(), body: "{}" });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get("allow"), "POST, DELETE");
  } finally {
    await server.close();
  }
});

test("a missing or wrong bearer gets 401 telling how to pass a token, with no OAuth discovery to follow", async () => {
  const { server, logs } = await startTestServer();
  try {
    const missing = await fetch(server.url, { method: "POST", body: "{}" });
    assert.equal(missing.status, 401);
    assert.equal(missing.headers.get("www-authenticate"), 'Bearer realm="Second Brain MCP"');
    assert.equal(missing.headers.get("cache-control"), "no-store");
    const body = (await missing.json()) as { error: string; error_description: string };
    assert.equal(body.error, "invalid_token");
    assert.match(body.error_description, /^A bearer token is required\. Send the header `Authorization: Bearer <token>`/);
    assert.match(body.error_description, /Settings → Second Brain MCP → Users/);
    assert.match(body.error_description, /SECONDBRAIN_TOKEN/);
    assert.match(body.error_description, /mcp-remote \(Claude Desktop\): pass --header "Authorization: Bearer <token>"/);
    const viaLocalhost = await rawRequest(server.port, { method: "POST", headers: { host: `localhost:${server.port}` }, body: "{}" });
    assert.equal(viaLocalhost.status, 401);
    const wrong = await fetch(server.url, { method: "POST", headers: { Authorization: "Bearer sbm_not-the-token" }, body: "{}" });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get("www-authenticate"), 'Bearer realm="Second Brain MCP", error="invalid_token"');
    assert.match(((await wrong.json()) as { error_description: string }).error_description, /^The bearer token is not valid .*Authorization: Bearer <token>/);
    for (const response of [missing, viaLocalhost, wrong]) {
      const challenge = String(response instanceof Response ? response.headers.get("www-authenticate") : response.headers["www-authenticate"]);
      assert.doesNotMatch(challenge, /resource_metadata|well-known/);
    }
    const failures = logs.filter((record) => record.event === "auth_failed");
    assert.deepEqual(failures.map((record) => record.reason), ["missing_token", "missing_token", "invalid_token"]);
    assert.ok(!JSON.stringify(logs).includes("sbm_not-the-token"));
    assert.ok(!JSON.stringify(logs).includes(TOKEN));
  } finally {
    await server.close();
  }
});

test("no OAuth discovery or registration is served: each such path is 404 and says how to pass a token", async () => {
  const { server } = await startTestServer();
  try {
    const probes: Array<[string, string]> = [
      ["GET", "/.well-known/oauth-protected-resource"],
      ["GET", "/.well-known/oauth-protected-resource/mcp"],
      ["GET", "/.well-known/oauth-authorization-server"],
      ["GET", "/.well-known/oauth-authorization-server/mcp"],
      ["GET", "/.well-known/openid-configuration"],
      ["POST", "/register"],
      ["GET", "/authorize"],
      ["POST", "/token"],
    ];
    for (const [method, path] of probes) {
      const response = await fetch(`${server.origin}${path}`, { method, headers: authorized(), ...(method === "POST" ? { body: "{}" } : {}) });
      assert.equal(response.status, 404, path);
      const body = (await response.json()) as { error: { message: string } };
      assert.match(body.error.message, /^Not found: this server has no OAuth\. Send the header `Authorization: Bearer <token>`/, path);
      assert.match(body.error.message, /The MCP endpoint is \/mcp\.$/, path);
    }
    const other = await fetch(`${server.origin}/elsewhere`);
    assert.equal(other.status, 404);
    assert.doesNotMatch(((await other.json()) as { error: { message: string } }).error.message, /OAuth/);
  } finally {
    await server.close();
  }
});

test("/healthz needs no token and reports only the health fields", async () => {
  const startedAt = Date.now() - 5_000;
  const health = (): Record<string, unknown> =>
    buildHealth({ version: "1.2.3", vaultCount: 2, startedAt, protocolVersion: "2025-11-25", now: Date.now() });
  const { server } = await startTestServer({ health });
  try {
    const response = await fetch(`${server.origin}/healthz`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("cache-control"), "no-store");
    const body = (await response.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ["protocol_version", "started", "stateless", "status", "uptime_s", "vaults", "version"]);
    assert.equal(body.vaults, 2);
    assert.equal(body.stateless, true);
    assert.ok(typeof body.uptime_s === "number" && body.uptime_s >= 4);
    assert.equal(body.started, new Date(startedAt).toISOString());
    assert.ok(!JSON.stringify(body).includes("tester"));
    const post = await fetch(`${server.origin}/healthz`, { method: "POST" });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get("allow"), "GET");
    assert.equal((await fetch(`${server.origin}/elsewhere`)).status, 404);
  } finally {
    await server.close();
  }
});

test("a Host that is not a loopback name is refused with 403 (DNS rebinding)", async () => {
  const { server } = await startTestServer();
  try {
    for (const host of ["evil.example", `evil.example:${server.port}`, "127.0.0.2", "localhost.evil.example"]) {
      const response = await rawRequest(server.port, { path: "/healthz", headers: { host } });
      assert.equal(response.status, 403, host);
      assert.equal(response.headers["cache-control"], "no-store");
    }
    for (const host of ["localhost", `localhost:${server.port}`, `[::1]:${server.port}`, "127.0.0.1"]) {
      assert.equal((await rawRequest(server.port, { path: "/healthz", headers: { host } })).status, 200, host);
    }
  } finally {
    await server.close();
  }
});

test("a server bound to another interface on purpose accepts other Host names", async () => {
  const { server, logs } = await startTestServer({ host: "0.0.0.0" });
  try {
    assert.equal((await rawRequest(server.port, { path: "/healthz", headers: { host: "brain.lan:8080" } })).status, 200);
    assert.ok(logs.some((record) => record.event === "http_exposed"));
  } finally {
    await server.close();
  }
});

test("a foreign Origin is refused with 403; the own origin and listed origins pass", async () => {
  const { server } = await startTestServer({ allowedOrigins: ["http://localhost:5173"] });
  try {
    const post = (origin: string): Promise<Response> =>
      fetch(server.url, { method: "POST", headers: authorized({ Origin: origin }), body: "{}" });
    assert.equal((await post("https://evil.example")).status, 403);
    assert.equal((await post(`http://evil.example:${server.port}`)).status, 403);
    assert.equal((await post("null")).status, 403);
    assert.equal((await post(`http://127.0.0.1:${server.port}`)).status, 200);
    assert.equal((await post(`http://localhost:${server.port}`)).status, 200);
    assert.equal((await post("http://localhost:5173")).status, 200);
  } finally {
    await server.close();
  }
});

test("bodies over 8 MiB get 413, invalid JSON 400, both as JSON-RPC errors", async () => {
  const { server, bodies } = await startTestServer();
  try {
    const tooLarge = await fetch(server.url, { method: "POST", headers: authorized(), body: Buffer.alloc(EIGHT_MIB + 1, 0x20) });
    assert.equal(tooLarge.status, 413);
    assert.equal(((await tooLarge.json()) as { error: { code: number } }).error.code, -32000);
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let index = 0; index < 9; index += 1) controller.enqueue(new Uint8Array(1024 * 1024).fill(0x20));
        controller.close();
      },
    });
    const streamed = await fetch(server.url, { method: "POST", headers: authorized(), body: chunks, duplex: "half" } as RequestInit);
    assert.equal(streamed.status, 413);
    const atLimit = await fetch(server.url, { method: "POST", headers: authorized(), body: `${" ".repeat(EIGHT_MIB - 2)}{}` });
    assert.equal(atLimit.status, 200);
    const invalid = await fetch(server.url, { method: "POST", headers: authorized(), body: "{not json" });
    assert.equal(invalid.status, 400);
    assert.deepEqual(((await invalid.json()) as { error: { code: number }; id: null }).error.code, -32700);
    assert.equal(bodies.length, 1);
  } finally {
    await server.close();
  }
});

test("the rate limit answers 429 with Retry-After once the burst is spent, per token", async () => {
  const { server } = await startTestServer({ rateLimit: { perMinute: 6, burst: 3 } });
  try {
    const post = (headers: Record<string, string>): Promise<Response> => fetch(server.url, { method: "POST", headers, body: "{}" });
    for (let index = 0; index < 3; index += 1) assert.equal((await post(authorized())).status, 200);
    const limited = await post(authorized());
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get("retry-after"), "10");
    assert.equal(limited.headers.get("cache-control"), "no-store");
    // Checked before method dispatch: a GET is limited too.
    assert.equal((await fetch(server.url, { headers: authorized() })).status, 429);
    // Callers without a valid token count against their address, in a bucket of their own.
    for (let index = 0; index < 3; index += 1) assert.equal((await post({ Authorization: "Bearer guess" })).status, 401);
    assert.equal((await post({ Authorization: "Bearer another-guess" })).status, 429);
  } finally {
    await server.close();
  }
});

test("each message of a JSON-RPC batch counts against the rate limit", async () => {
  const { server, bodies } = await startTestServer({ rateLimit: { perMinute: 6, burst: 5 } });
  try {
    const ping = (id: number): Record<string, unknown> => ({ jsonrpc: "2.0", id, method: "ping" });
    const post = (body: unknown): Promise<Response> => fetch(server.url, { method: "POST", headers: authorized(), body: JSON.stringify(body) });
    assert.equal((await post([ping(1), ping(2), ping(3)])).status, 200, "three of five");
    const second = await post([ping(4), ping(5), ping(6)]);
    assert.equal(second.status, 429, "two left: the request pays one, the batch needs two more");
    assert.ok(Number(second.headers.get("retry-after")) >= 1);
    assert.equal(bodies.length, 1, "the refused batch never reached the MCP layer");
    const huge = await post(Array.from({ length: 6 }, (_, index) => ping(index)));
    assert.equal(huge.status, 429);
    assert.match(((await huge.json()) as { error: { message: string } }).error.message, /Too many calls in one batch: 6; the rate limit allows 5 at once/);
  } finally {
    await server.close();
  }
});

test("close() lets a request in flight finish, then stops accepting", async () => {
  let entered: () => void = () => {};
  const arrived = new Promise<void>((resolve) => (entered = resolve));
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const { server, logs } = await startTestServer({
    handleMcp: async (_req, res) => {
      entered();
      await gate;
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end("{}");
    },
  });
  const inFlight = fetch(server.url, { method: "POST", headers: authorized(), body: "{}" });
  await arrived;
  const closed = server.close();
  release();
  assert.equal((await inFlight).status, 200);
  await closed;
  await assert.rejects(fetch(`${server.origin}/healthz`));
  assert.ok(logs.some((record) => record.event === "http_closed"));
});

test("close() cuts requests that outlast the drain time", async () => {
  const { server } = await startTestServer({ drainMs: 100, handleMcp: () => new Promise(() => {}) });
  const stuck = fetch(server.url, { method: "POST", headers: authorized(), body: "{}" });
  await new Promise((resolve) => setTimeout(resolve, 50));
  const started = Date.now();
  await server.close();
  assert.ok(Date.now() - started < 1000);
  await assert.rejects(stuck);
});
