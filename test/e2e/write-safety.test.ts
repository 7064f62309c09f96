// No tool can remove or overwrite a note without a trash copy, and no write puts note text or a
// secret into a log line. The test walks every mutating tool the server lists: a new one without a
// case here fails it.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { startTestServer, type TestServer } from "../support/server";
import { EDGE_VAULT } from "../support/vaults";

let server: TestServer;
before(async () => {
  server = await startTestServer({ fixture: EDGE_VAULT });
});
after(async () => server.stop());

const MARKER = "quasar-lantern-velvet";
const SECRET = "sk-ant-api03-Zq7Lm2Xc9Vb4Nn6Kk1Jh8Gf5Dd3Ss0Aa";

const file = (relative: string): string => path.join(server.vault.dir, ...relative.split("/"));
const trashFolder = (): string => file(".trash/secondbrain");

function newestTrashCopy(relative: string): Buffer | null {
  if (!existsSync(trashFolder())) return null;
  const suffix = `-${relative.split("/").join("__")}`;
  const copies = readdirSync(trashFolder()).filter((name) => name.endsWith(suffix)).sort();
  const newest = copies[copies.length - 1];
  return newest ? readFileSync(path.join(trashFolder(), newest)) : null;
}

async function hashOf(relative: string): Promise<string> {
  const read = await server.call("note_read", { path: relative });
  return read.structured.content_hash as string;
}

type Case = () => Promise<void>;

/** Runs a call that replaces or removes `target`, then checks the trash holds the bytes it had. */
async function replaces(target: string, name: string, args: Record<string, unknown>): Promise<void> {
  const before = readFileSync(file(target));
  const result = await server.call(name, args);
  assert.equal(result.isError, false, `${name}: ${result.text}`);
  const after = existsSync(file(target)) ? readFileSync(file(target)) : null;
  assert.notDeepEqual(after, before, `${name} changed ${target}`);
  assert.deepEqual(newestTrashCopy(target), before, `${name} left a trash copy of ${target}`);
}

/** Tools that only create: they must refuse to overwrite what exists. */
async function neverOverwrites(name: string, args: Record<string, unknown>, existing: string): Promise<void> {
  const before = readFileSync(file(existing));
  await server.call(name, args);
  assert.deepEqual(readFileSync(file(existing)), before, `${name} left ${existing} alone`);
}

const CASES: Record<string, Case> = {
  note_create: () => replaces("wiki/dots-end.md", "note_create", { path: "wiki/dots-end.md", content: `# Replaced ${MARKER}\n`, overwrite: true }),
  note_write: async () =>
    replaces("wiki/hr-not-frontmatter.md", "note_write", { path: "wiki/hr-not-frontmatter.md", content: `# Rewritten ${MARKER}\n`, content_hash: await hashOf("wiki/hr-not-frontmatter.md") }),
  note_edit: () => replaces("wiki/big-sections.md", "note_edit", { path: "wiki/big-sections.md", old_string: "a1", new_string: `a1 ${MARKER}` }),
  note_section_edit: () =>
    replaces("wiki/big-sections.md", "note_section_edit", { path: "wiki/big-sections.md", heading: "C", mode: "replace_section", content: `c2 ${MARKER}` }),
  note_frontmatter: () => replaces("archive/orphan.md", "note_frontmatter", { path: "archive/orphan.md", set: { status: MARKER } }),
  note_delete: () => replaces("wiki/unterminated.md", "note_delete", { path: "wiki/unterminated.md" }),
  note_from_template: () => neverOverwrites("note_from_template", { template: "meeting", path: "wiki/index.md", title: MARKER }, "wiki/index.md"),
  journal: () => replaces("journal/2026/2026-01-05.md", "journal", { date: "2026-01-05", append: `- ${MARKER}` }),
  capture: async () => {
    const before = readdirSync(file("inbox")).sort();
    const result = await server.call("capture", { text: `Captured ${MARKER}`, title: "Safety capture" });
    assert.equal(result.isError, false, result.text);
    const after = readdirSync(file("inbox")).sort();
    assert.deepEqual(after.filter((name) => before.includes(name)), before, "capture only adds files");
    assert.equal(after.length, before.length + 1);
  },
  task_toggle: () => replaces("wiki/rate-limiting.md", "task_toggle", { path: "wiki/rate-limiting.md", line: 23 }),
  tag_rename: () => replaces("wiki/bom-crlf.md", "tag_rename", { from: "crlf", to: "line-endings" }),
  vault_replace: () =>
    replaces("Deutsch Notizen/Überlegungen.md", "vault_replace", { pattern: "Straße, Maß, Fuß.", literal: true, replace: `Straße. ${MARKER}`, dry_run: false }),
  note_merge: () => replaces("wiki/big-sections.md", "note_merge", { path: "wiki/dots-end.md", into: "wiki/big-sections.md" }),
  // The links to the moved note are rewritten in wiki/index.md, which keeps a trash copy.
  note_move: () => replaces("wiki/index.md", "note_move", { path: "projects/beta/plan.md", to: "projects/plan-moved.md" }),
  // The split section leaves the original, which keeps a trash copy of its text before the split.
  note_split: () => replaces("projects/alpha/Team notes.md", "note_split", { path: "projects/alpha/Team notes.md", level: 1, folder: "projects/alpha/split" }),
  note_restore: async () => {
    const created = await server.call("note_create", { path: "wiki/restore-me.md", content: "first\n", reason: "a version to restore" });
    assert.equal(created.isError, false, created.text);
    const rewritten = await server.call("note_write", { path: "wiki/restore-me.md", content: `second ${MARKER}\n`, content_hash: created.structured.content_hash, reason: "a newer one" });
    assert.equal(rewritten.isError, false, rewritten.text);
    const history = await server.call("note_history", { path: "wiki/restore-me.md" });
    const older = (history.structured.revisions as Array<{ commit: string }>)[1]!.commit;
    await replaces("wiki/restore-me.md", "note_restore", { path: "wiki/restore-me.md", revision: older });
  },
  attachment_put: () =>
    replaces("Attachments/diagram.png", "attachment_put", { path: "Attachments/diagram.png", data_base64: Buffer.from(`png ${MARKER}`).toString("base64"), overwrite: true }),
  canvas_edit: () => replaces("board.canvas", "canvas_edit", { path: "board.canvas", action: "change_node", id: "n1", fields: { text: `Card ${MARKER}` } }),
  vault_create: async () => {
    await neverOverwrites("vault_create", { layout: "wiki-raw" }, "INSTRUCTIONS.md");
    await neverOverwrites("vault_create", { layout: "wiki-raw" }, "wiki/index.md");
  },
};

test("every mutating tool keeps a trash copy of what it replaces or removes", async () => {
  const client = await server.connect();
  const { tools } = await client.listTools();
  const mutating = tools.filter((tool) => tool.annotations?.readOnlyHint === false).map((tool) => tool.name).sort();
  assert.deepEqual(mutating, Object.keys(CASES).sort(), "each mutating tool has a case here");
  for (const name of mutating) await CASES[name]!();
});

test("write tools never log note text or secrets, refusals included", async () => {
  const refusals: Array<[string, Record<string, unknown>]> = [
    ["note_create", { path: "wiki/leak-a.md", content: `key ${SECRET}` }],
    ["note_edit", { path: "wiki/index.md", old_string: `missing ${MARKER}`, new_string: "x" }],
    ["note_edit", { path: "wiki/index.md", old_string: "Index", new_string: `Index ${SECRET}`, replace_all: true }],
    ["note_section_edit", { path: "wiki/index.md", heading: MARKER, mode: "append_to_section", content: MARKER }],
    ["note_write", { path: "wiki/index.md", content: MARKER, content_hash: "0".repeat(32) }],
    ["capture", { text: `secret ${SECRET}` }],
    ["journal", { date: "2026-01-07", append: `${MARKER} ${SECRET}` }],
    ["canvas_edit", { path: "board.canvas", action: "change_node", id: `missing ${MARKER}`, fields: { text: `${MARKER} ${SECRET}` } }],
  ];
  for (const [name, args] of refusals) {
    const result = await server.call(name, args);
    assert.equal(result.isError, true, `${name} refused`);
    assert.ok(!result.text.includes(SECRET), `${name}'s refusal does not echo the secret`);
  }
  const offending = server.logs.filter((line) => line.includes(MARKER) || line.includes(SECRET) || line.includes(server.token));
  assert.deepEqual(offending, []);
  assert.ok(server.logs.filter((line) => line.includes('"tool_call"')).length >= 15);
});
