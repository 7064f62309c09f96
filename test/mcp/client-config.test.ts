import { test } from "node:test";
import assert from "node:assert/strict";
import { CLIENT_KINDS, TOKEN_PLACEHOLDER, clientConfig } from "../../src/mcp/client-config";

const URL = "http://127.0.0.1:27126/mcp";

test("every client's snippet names the endpoint and carries the token or the placeholder", () => {
  for (const kind of CLIENT_KINDS) {
    const withToken = clientConfig(kind, URL, "sbm_abc");
    assert.ok(withToken.text.includes(URL), kind);
    assert.ok(withToken.text.includes("sbm_abc"), kind);
    const placeholder = clientConfig(kind, URL);
    assert.ok(placeholder.text.includes(TOKEN_PLACEHOLDER), kind);
    assert.ok(!placeholder.text.includes("sbm_abc"), kind);
    assert.ok(placeholder.where.length > 0, kind);
  }
});

test("the JSON snippets are valid JSON in the shape the clients read", () => {
  const cursor = JSON.parse(clientConfig("cursor", URL, "sbm_abc").text) as { mcpServers: Record<string, { url: string; headers: Record<string, string> }> };
  assert.deepEqual(cursor.mcpServers.secondbrain, { url: URL, headers: { Authorization: "Bearer sbm_abc" } });
  const desktop = JSON.parse(clientConfig("claude-desktop", URL, "sbm_abc").text) as {
    mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
  };
  const entry = desktop.mcpServers.secondbrain!;
  assert.equal(entry.command, "npx");
  assert.ok(entry.args.includes(URL));
  assert.ok(entry.args.includes("mcp-remote"));
  assert.equal(entry.env.AUTH_HEADER, "Bearer sbm_abc");
});

test("Claude Code gets one shell line and Codex a TOML table", () => {
  const code = clientConfig("claude-code", URL, "sbm_abc").text;
  assert.equal(code, `claude mcp add --transport http secondbrain ${URL} --header "Authorization: Bearer sbm_abc"`);
  const codex = clientConfig("codex", URL, "sbm_abc").text;
  assert.match(codex, /^\[mcp_servers\.secondbrain\]\nurl = "http:\/\/127\.0\.0\.1:27126\/mcp"\nbearer_token_env_var = "SECONDBRAIN_TOKEN"/);
});
