// SPEC §11: no log line contains note text or a token, whatever the tools are asked.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { startTestServer, type TestServer } from "../support/server";
import { EDGE_VAULT, HELP_VAULT, vaultFiles } from "../support/vaults";

function noteFiles(dir: string): string[] {
  return vaultFiles(dir).filter((file) => file.endsWith(".md"));
}

/** Lines distinctive enough that finding one in a log can only mean note text leaked. */
function distinctiveLines(dir: string): string[] {
  const lines = new Set<string>();
  for (const file of noteFiles(dir)) {
    for (const raw of readFileSync(path.join(dir, file), "utf8").split(/\r?\n/)) {
      const line = raw.trim();
      if (line.length >= 24 && !line.startsWith("---") && /\s/.test(line)) lines.add(line.slice(0, 40));
    }
  }
  return [...lines];
}

async function exercise(server: TestServer, paths: string[]): Promise<void> {
  const secretQuery = "zanzibar quixotic umbrella";
  const calls: Array<[string, Record<string, unknown>]> = [
    ["vault_list", {}],
    ["vault_stats", {}],
    ["note_list", { limit: 1000 }],
    ["attachment_list", {}],
    ["tag_list", {}],
    ["task_list", { status: "all" }],
    ["note_search", { query: secretQuery }],
    ["note_search", { query: "link note" }],
    ["note_search", { query: '"unclosed' }],
    ["vault_grep", { pattern: "the", context: 2 }],
    ["vault_grep", { pattern: "(" }],
    ["note_query", { where: { tags: { contains: "fixture" } } }],
    ["note_read", { path: "no/such/note" }],
  ];
  for (const notePath of paths) {
    calls.push(["note_read", { path: notePath, with_metadata: true }]);
    calls.push(["note_outline", { path: notePath }]);
    calls.push(["note_backlinks", { path: notePath }]);
    calls.push(["note_related", { path: notePath }]);
  }
  const client = await server.connect();
  for (const [name, args] of calls) await client.callTool({ name, arguments: args });
  await client.listResources();
  for (const notePath of paths.slice(0, 10)) {
    await client.readResource({ uri: `secondbrain://test/${notePath.split("/").map(encodeURIComponent).join("/")}` }).catch(() => undefined);
  }
  await client.listPrompts();
  const unauthorized = await fetch(server.url, { method: "POST", headers: { Authorization: "Bearer wrong-token-value-123456" } });
  assert.equal(unauthorized.status, 401);
  for (const line of server.logs) assert.ok(!line.includes(secretQuery), "query text never logged");
}

for (const [name, fixture] of [["edge-vault", EDGE_VAULT], ["obsidian-help-en", HELP_VAULT]] as const) {
  describe(name, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ fixture });
  });
  after(async () => server.stop());

  test(`no note text or token in any log line (${name})`, async () => {
    const paths = noteFiles(server.vault.dir);
    await exercise(server, name === "edge-vault" ? paths : paths.slice(0, 60));
    const toolCalls = server.logs.filter((line) => line.includes('"tool_call"'));
    assert.ok(toolCalls.length >= 20, `tool calls were logged (${toolCalls.length})`);
    const leaks: string[] = [];
    const texts = distinctiveLines(server.vault.dir);
    assert.ok(texts.length > 10);
    for (const line of server.logs) {
      if (line.includes(server.token)) leaks.push("token");
      if (line.includes("wrong-token-value")) leaks.push("attempted token");
      for (const text of texts) if (line.includes(text)) leaks.push(text);
    }
    assert.deepEqual(leaks, []);
  });
  });
}
