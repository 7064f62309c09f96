// Globs built to make a backtracking engine run for minutes, sent by a read-only user to a real server
// on a copy of the help vault, while a second client keeps reading a note.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { defaultUser } from "../../src/auth/users";
import { generateToken, hashToken } from "../../src/auth/tokens";
import { callTool, startTestServer, type TestServer } from "../support/server";
import { HELP_VAULT } from "../support/vaults";

let server: TestServer;
const readerToken = generateToken();

before(async () => {
  const writerToken = generateToken();
  server = await startTestServer({
    fixture: HELP_VAULT,
    name: "help",
    users: [defaultUser(writerToken), { name: "reader", token_hashes: [hashToken(readerToken)], vaults: [], read_only: true }],
  });
});
after(async () => {
  await server.stop();
});

/** Reads one note again and again until `done` settles; resolves to the longest wait for one read. */
async function readAlongside(done: Promise<unknown>): Promise<number> {
  const client = await server.connect(readerToken, "reader-beside");
  const path = (await callTool(client, "note_list", { limit: 1, notes_only: true })).structured.entries as Array<{ path: string }>;
  let finished = false;
  void done.finally(() => (finished = true));
  let longest = 0;
  do {
    const started = performance.now();
    const read = await callTool(client, "note_read", { path: path[0]!.path });
    assert.equal(read.isError, false);
    longest = Math.max(longest, performance.now() - started);
  } while (!finished);
  return longest;
}

test("note_list, note_search and note_query answer backtracking-bomb globs from a read-only user at once", async () => {
  const reader = await server.connect(readerToken, "attacker");
  const cases: Array<[string, Record<string, unknown>]> = [
    ["note_list", { glob: "**?".repeat(18) + "Z" }],
    ["note_list", { glob: "*a".repeat(14) + "*b" }],
    ["note_search", { query: "obsidian", glob: "*a".repeat(14) + "*b" }],
    ["note_search", { glob: "**?".repeat(18) + "Z" }],
    ["note_query", { glob: "**a".repeat(40) + "**b" }],
  ];
  for (const [tool, args] of cases) {
    const attack = callTool(reader, tool, args);
    const longestRead = await readAlongside(attack);
    const result = await attack;
    assert.equal(result.isError, false, `${tool} ${result.text}`);
    assert.equal(result.structured.total, 0, `${tool}: nothing in the vault matches`);
    assert.ok(longestRead < 2000, `${tool}: a note_read waited ${Math.round(longestRead)} ms`);
  }
});

test("a glob over the limit is refused with the limit named", async () => {
  const reader = await server.connect(readerToken, "long-glob");
  const result = await callTool(reader, "note_list", { glob: "*".repeat(300) });
  assert.equal(result.isError, true);
  assert.equal((result.structured.error as { code: string }).code, "invalid_argument");
  assert.match(result.text, /Argument "glob" must be at most 256 characters; got 300 characters\./);
});

test("ordinary globs still select the same files", async () => {
  const reader = await server.connect(readerToken, "plain-glob");
  const all = (await callTool(reader, "note_list", { limit: 1000 })).structured.entries as Array<{ path: string }>;
  const result = await callTool(reader, "note_list", { glob: "{bases,plugins}/**/?*s.MD", limit: 1000 });
  const expected = all.map((file) => file.path).filter((path) => /^(Bases|Plugins)\/(.*\/)?[^/]+s\.md$/.test(path));
  assert.ok(expected.length > 5);
  assert.deepEqual((result.structured.entries as Array<{ path: string }>).map((file) => file.path).sort(), expected.sort());
});
