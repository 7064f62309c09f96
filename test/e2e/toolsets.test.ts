// Toolsets per user on the headless server, over real HTTP with the official SDK client: tools/list
// offers only the user's groups, a call to another group is refused with the way to enable it, and
// read-only still removes the mutating tools of the groups left.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { hashToken } from "../../src/auth/tokens";
import type { UserRecord } from "../../src/auth/users";
import { ALL_TOOLS } from "../../src/tools/registry";
import { callTool, startTestServer, type TestServer } from "../support/server";
import { EDGE_VAULT } from "../support/vaults";

const EVERYTHING = "sbm_everything-token-000000000001";
const FINDER = "sbm_finder-token-00000000000000002";
const HISTORIAN = "sbm_historian-token-00000000000003";

const USERS: UserRecord[] = [
  { name: "everything", token_hashes: [hashToken(EVERYTHING)], vaults: [], read_only: false },
  { name: "finder", token_hashes: [hashToken(FINDER)], vaults: [], read_only: false, toolsets: ["find", "history"] },
  { name: "historian", token_hashes: [hashToken(HISTORIAN)], vaults: [], read_only: true, toolsets: ["history"] },
];

function namesOf(group: string): string[] {
  return ALL_TOOLS.filter((tool) => tool.group === group).map((tool) => tool.name);
}

let server: TestServer;

before(async () => {
  server = await startTestServer({ fixture: EDGE_VAULT, name: "edge", users: USERS });
});
after(async () => {
  await server.stop();
});

test("the history group holds note_history, note_diff and note_restore", () => {
  assert.deepEqual(namesOf("history").sort(), ["note_diff", "note_history", "note_restore"]);
});

test("a user without toolsets is offered every tool", async () => {
  const { tools } = await (await server.connect(EVERYTHING)).listTools();
  assert.deepEqual(tools.map((tool) => tool.name).sort(), ALL_TOOLS.map((tool) => tool.name).sort());
});

test("toolsets [find, history] offer exactly those groups, in the registry's order", async () => {
  const { tools } = await (await server.connect(FINDER)).listTools();
  const expected = ALL_TOOLS.filter((tool) => tool.group === "find" || tool.group === "history").map((tool) => tool.name);
  assert.deepEqual(tools.map((tool) => tool.name), expected);
  assert.ok(tools.some((tool) => tool.name === "note_restore"), "history's writing tool stays for a user who may write");
  assert.ok(!tools.some((tool) => tool.name === "note_create" || tool.name === "note_move"));
});

test("a call to a tool outside the user's toolsets is refused, naming its toolset and where to enable it", async () => {
  const client = await server.connect(FINDER);
  const refused = await callTool(client, "note_create", { path: "wiki/never.md", content: "never\n" });
  assert.equal(refused.isError, true);
  const error = refused.structured.error as Record<string, unknown>;
  assert.equal(error.code, "forbidden");
  assert.equal(error.state, "not_applied");
  assert.equal(error.toolset, "write");
  assert.match(refused.text, /"write" toolset, which is not enabled for you/);
  assert.match(refused.text, /users\[\]\.toolsets in the headless server's config file/);
  assert.match(refused.text, /Toolsets under your user in the Obsidian plugin's settings/);
  const read = await callTool(client, "note_read", { path: "wiki/index.md" });
  assert.equal(read.isError, false, "a tool of an enabled toolset still works");
  const listed = await callTool(client, "note_list", { prefix: "wiki/never" });
  assert.equal(listed.structured.total, 0, "the refused call wrote nothing");
});

test("read-only removes the mutating tools of the toolsets left, and the refusal says read-only", async () => {
  const client = await server.connect(HISTORIAN);
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name), ["note_history", "note_diff"]);
  const restore = await callTool(client, "note_restore", { path: "wiki/index.md", revision: "0000000" });
  assert.equal((restore.structured.error as { code: string }).code, "read_only");
  const create = await callTool(client, "note_create", { path: "wiki/x.md", content: "x\n" });
  assert.equal((create.structured.error as { code: string }).code, "read_only", "a mutating tool of another toolset: read-only is the reason that stays");
  const search = await callTool(client, "note_search", { query: "index" });
  assert.equal((search.structured.error as { code: string }).code, "forbidden");
  assert.match(search.text, /"find" toolset/);
});

test("the instructions name the toolsets and leave out rules about tools not offered", async () => {
  const finder = (await server.connect(FINDER)).getInstructions() ?? "";
  assert.match(finder, /Toolsets enabled for you: find, history\./);
  assert.match(finder, /note_outline before note_read/);
  assert.ok(!finder.includes("Prefer note_edit"), "no write rules without the write or maintain toolsets");
  const historian = (await server.connect(HISTORIAN)).getInstructions() ?? "";
  assert.match(historian, /Toolsets enabled for you: history\./);
  assert.ok(!historian.includes("note_search for topics"), "no find rules without the find toolset");
  const everything = (await server.connect(EVERYTHING)).getInstructions() ?? "";
  assert.ok(!everything.includes("Toolsets enabled"));
  assert.match(everything, /Prefer note_edit/);
});
