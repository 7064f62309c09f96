import { test } from "node:test";
import assert from "node:assert/strict";
import { rawRequest, startOAuthTestServer } from "./helpers";

const PUBLIC = "https://brain.example.com";

test("with OAuth on, both well-known paths serve metadata built from the public URL, cached five minutes", async () => {
  const { server } = await startOAuthTestServer({ publicUrl: `${PUBLIC}/` });
  try {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      // A forged Host must not move any URL: it never comes from the request.
      const response = await rawRequest(server.port, { path, headers: { host: `localhost:${server.port}`, "x-forwarded-host": "evil.example" } });
      assert.equal(response.status, 200, path);
      assert.equal(response.headers["cache-control"], "max-age=300");
      assert.deepEqual(JSON.parse(response.body), {
        resource: `${PUBLIC}/mcp`,
        authorization_servers: [PUBLIC],
        bearer_methods_supported: ["header"],
        resource_name: "Second Brain MCP",
      });
    }
    for (const path of ["/.well-known/oauth-authorization-server", "/.well-known/oauth-authorization-server/mcp"]) {
      const response = await fetch(`${server.origin}${path}`);
      assert.equal(response.status, 200, path);
      assert.equal(response.headers.get("cache-control"), "max-age=300");
      assert.deepEqual(await response.json(), {
        issuer: PUBLIC,
        authorization_endpoint: `${PUBLIC}/authorize`,
        token_endpoint: `${PUBLIC}/token`,
        registration_endpoint: `${PUBLIC}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
      });
    }
    const post = await fetch(`${server.origin}/.well-known/oauth-authorization-server`, { method: "POST" });
    assert.equal(post.status, 405);
    const openid = await fetch(`${server.origin}/.well-known/openid-configuration`);
    assert.equal(openid.status, 404);
    assert.match(((await openid.json()) as { error: { message: string } }).error.message, /^Not found\. OAuth discovery is at https:\/\/brain\.example\.com\/\.well-known\/oauth-authorization-server\.$/);
  } finally {
    await server.close();
  }
});

test("without a public URL the listen address is the issuer", async () => {
  const { server } = await startOAuthTestServer();
  try {
    const response = await rawRequest(server.port, { path: "/.well-known/oauth-authorization-server", headers: { host: `localhost:${server.port}` } });
    const metadata = JSON.parse(response.body) as { issuer: string; token_endpoint: string };
    assert.equal(metadata.issuer, server.origin);
    assert.equal(metadata.token_endpoint, `${server.origin}/token`);
  } finally {
    await server.close();
  }
});

test("with OAuth on, a 401 names the protected-resource metadata (RFC 9728 §5.1) and says how to sign in", async () => {
  const { server } = await startOAuthTestServer({ publicUrl: PUBLIC });
  try {
    const missing = await fetch(server.url, { method: "POST", body: "{}" });
    assert.equal(missing.status, 401);
    assert.equal(
      missing.headers.get("www-authenticate"),
      `Bearer realm="Second Brain MCP", resource_metadata="${PUBLIC}/.well-known/oauth-protected-resource/mcp"`,
    );
    assert.match(((await missing.json()) as { error_description: string }).error_description, /Sign in through the client's OAuth flow/);
    const wrong = await fetch(server.url, { method: "POST", headers: { Authorization: "Bearer sbm_wrong" }, body: "{}" });
    assert.equal(
      wrong.headers.get("www-authenticate"),
      `Bearer realm="Second Brain MCP", resource_metadata="${PUBLIC}/.well-known/oauth-protected-resource/mcp", error="invalid_token"`,
    );
  } finally {
    await server.close();
  }
});

test("a loopback-bound server behind a proxy accepts the public URL's Host, and still no other", async () => {
  const { server } = await startOAuthTestServer({ publicUrl: PUBLIC });
  try {
    assert.equal((await rawRequest(server.port, { path: "/healthz", headers: { host: "brain.example.com" } })).status, 200);
    assert.equal((await rawRequest(server.port, { path: "/healthz", headers: { host: "evil.example" } })).status, 403);
    // The login form posts from the public origin (port 443) to a proxy that forwards Host without a port.
    const fromPublic = await rawRequest(server.port, { method: "POST", path: "/authorize", headers: { host: "brain.example.com", origin: PUBLIC }, body: "" });
    assert.equal(fromPublic.status, 400, "reaches the form handler (no CSRF token), not the Origin guard's 403");
    const foreign = await rawRequest(server.port, { method: "POST", path: "/authorize", headers: { host: "brain.example.com", origin: "https://evil.example" }, body: "" });
    assert.equal(foreign.status, 403);
  } finally {
    await server.close();
  }
});
