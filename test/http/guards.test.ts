import { test } from "node:test";
import assert from "node:assert/strict";
import { isLoopbackBinding, isLoopbackHost, isOriginAllowed, parseHostHeader } from "../../src/http/guards";

test("parseHostHeader splits names, ports and bracketed IPv6", () => {
  assert.deepEqual(parseHostHeader("LocalHost:8080"), { hostname: "localhost", port: "8080" });
  assert.deepEqual(parseHostHeader("127.0.0.1"), { hostname: "127.0.0.1", port: "80" });
  assert.deepEqual(parseHostHeader("[::1]:27125"), { hostname: "[::1]", port: "27125" });
  assert.equal(parseHostHeader("a:b:c"), null);
  assert.equal(parseHostHeader(""), null);
});

test("only loopback names pass the Host check", () => {
  for (const host of ["127.0.0.1", "localhost:1", "[::1]", "[::1]:443", "LOCALHOST"]) assert.ok(isLoopbackHost(host), host);
  for (const host of [undefined, "", "127.0.0.1.evil.example", "0.0.0.0", "[::2]", "localhost.:80"]) {
    assert.equal(isLoopbackHost(host), false, String(host));
  }
  assert.ok(isLoopbackBinding("::1"));
  assert.ok(isLoopbackBinding("[::1]"));
  assert.equal(isLoopbackBinding("0.0.0.0"), false);
});

test("an Origin passes when it is the server's own (any loopback name, same port) or listed", () => {
  const listed = new Set(["https://app.example.com"]);
  assert.ok(isOriginAllowed("http://127.0.0.1:3000", "127.0.0.1:3000", listed));
  assert.ok(isOriginAllowed("http://localhost:3000", "127.0.0.1:3000", listed));
  assert.ok(isOriginAllowed("https://APP.example.com/", "127.0.0.1:3000", listed));
  assert.equal(isOriginAllowed("http://127.0.0.1:3001", "127.0.0.1:3000", listed), false);
  assert.equal(isOriginAllowed("http://evil.example:3000", "127.0.0.1:3000", listed), false);
  assert.equal(isOriginAllowed("null", "127.0.0.1:3000", listed), false);
  assert.equal(isOriginAllowed("http://127.0.0.1:3000", undefined, listed), false);
});
