// Frontmatter over the size limit through the real headless server: a note that has it at start, one
// the watcher picks up and one an agent tries to create. Such a note is read, listed and found by its
// body; its properties are not extracted (and note_outline/note_read say so); edits that would parse
// or change its frontmatter are refused with the limit and the calls that still work.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { FRONTMATTER_LIMIT_BYTES, frontmatterParseCount } from "../../src/core/notes/frontmatter";
import { startTestServer, type TestServer, type ToolCallResult } from "../support/server";
import { EDGE_VAULT, tempVault, type TempVault } from "../support/vaults";
import { found } from "../support/poll";

let vault: TempVault;
let server: TestServer;

/** About `bytes` of frontmatter in many small keys; `comment` keeps it out of the fast simple-YAML path. */
function manyKeys(bytes: number, comment = false): string {
  const lines: string[] = [];
  for (let n = 0, size = 0; size < bytes; n++) {
    lines.push(`key${n}: value ${n}${comment ? " # c" : ""}`);
    size += lines[lines.length - 1]!.length + 1;
  }
  return `${lines.join("\n")}\n`;
}

const MIB = 1024 * 1024;
const AT_START = `---\ntags: [huge]\n${manyKeys(MIB)}---\n# Huge\n\nQuokkas live on Rottnest island.\n`;
const UNDER_LIMIT = `---\ntags: [big]\n${manyKeys(50 * 1024, true)}---\n# Big\n\n## Log\n\nKoalas sleep.\n`;

before(async () => {
  vault = tempVault(EDGE_VAULT);
  writeFileSync(path.join(vault.dir, "inbox", "huge.md"), AT_START);
  writeFileSync(path.join(vault.dir, "inbox", "big.md"), UNDER_LIMIT);
  server = await startTestServer({ fixture: EDGE_VAULT, name: "edge", vault });
});
after(async () => {
  await server.stop();
  vault.cleanup();
});

function ok(result: ToolCallResult): Record<string, unknown> {
  assert.equal(result.isError, false, result.text);
  return result.structured;
}

function limitRefusal(result: ToolCallResult): void {
  assert.equal(result.isError, true, "expected a refusal");
  const error = result.structured.error as { code: string; state: string };
  assert.equal(error.code, "too_large", result.text);
  assert.equal(error.state, "not_applied");
  assert.match(result.text, new RegExp(`over the limit of ${FRONTMATTER_LIMIT_BYTES} bytes \\(64 KiB\\)`));
}

function poll<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  return found(20_000, what, probe);
}

function assertNoProperties(outline: Record<string, unknown>): void {
  assert.equal(outline.frontmatter, null);
  assert.deepEqual(outline.tags, []);
  const warnings = outline.warnings as string[];
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /over the limit of 65536 bytes \(64 KiB\): it is not parsed, so its properties, tags and aliases are missing/);
  assert.match(warnings[0]!, /note_write/);
}

/** The call's result and how many YAML documents the server parsed while answering it. */
async function counted(name: string, args: Record<string, unknown>): Promise<{ result: Record<string, unknown>; parses: number }> {
  const before = frontmatterParseCount();
  const result = ok(await server.call(name, args));
  return { result, parses: frontmatterParseCount() - before };
}

describe("50 KB of frontmatter, under the limit: each write parses each YAML text once", () => {
  test("note_frontmatter: the note's YAML and the edited YAML", async () => {
    const { result, parses } = await counted("note_frontmatter", { path: "inbox/big.md", set: { status: "done" }, add_tags: ["more"], dry_run: true });
    assert.equal(parses, 2);
    assert.match(result.diff as string, /^\+status: done$/m);
    assert.match(result.diff as string, /^\+tags: \[big, more\]$/m);
  });

  test("note_section_edit and note_edit: the unchanged YAML once", async () => {
    const section = await counted("note_section_edit", { path: "inbox/big.md", heading: "Log", mode: "append_to_section", content: "Koalas wake.", dry_run: true });
    assert.equal(section.parses, 1);
    assert.match(section.result.diff as string, /^\+Koalas wake\.$/m);
    const edit = await counted("note_edit", { path: "inbox/big.md", old_string: "Koalas sleep.", new_string: "Koalas nap.", dry_run: true });
    assert.equal(edit.parses, 1);
    assert.match(edit.result.diff as string, /^\+Koalas nap\.$/m);
  });
});

describe("a note with 1 MiB of frontmatter at start", () => {
  test("is read, listed and found by its body; its properties are not extracted, and the outline and read say why", async () => {
    assertNoProperties(ok(await server.call("note_outline", { path: "inbox/huge.md" })));
    const read = ok(await server.call("note_read", { path: "inbox/huge.md", with_metadata: true, max_bytes: 4096 }));
    assert.equal(read.frontmatter, null);
    assert.match((read.warnings as string[])[0]!, /over the limit/);
    assert.ok((read.content as string).startsWith("---\ntags: [huge]\n"));
    const search = ok(await server.call("note_search", { query: "quokkas rottnest" }));
    assert.deepEqual((search.hits as Array<{ path: string }>).map((hit) => hit.path), ["inbox/huge.md"]);
    const listed = ok(await server.call("note_list", { prefix: "inbox/" }));
    assert.ok(JSON.stringify(listed).includes("inbox/huge.md"));
  });

  test("note_frontmatter is refused with the limit, without a parse, naming the calls that still work", async () => {
    const before = frontmatterParseCount();
    const result = await server.call("note_frontmatter", { path: "inbox/huge.md", set: { status: "done" }, dry_run: true });
    limitRefusal(result);
    assert.match(result.text, /note_read/);
    assert.match(result.text, /note_edit/);
    assert.match(result.text, /note_write/);
    assert.equal(frontmatterParseCount(), before);
  });

  test("note_edit of the body works and leaves the frontmatter as it is", async () => {
    const edited = ok(await server.call("note_edit", { path: "inbox/huge.md", old_string: "Quokkas live", new_string: "Quokkas still live" }));
    assert.match((edited.warnings as string[]).join(" "), /not stamped/);
    assert.equal(readFileSync(path.join(vault.dir, "inbox", "huge.md"), "utf8"), AT_START.replace("Quokkas live", "Quokkas still live"));
  });
});

test("note_create with 1 MiB of frontmatter answers with the limit error and writes nothing", async () => {
  const before = frontmatterParseCount();
  const result = await server.call("note_create", { path: "inbox/created-huge.md", content: `---\n${manyKeys(MIB, true)}---\n# Created\n` });
  limitRefusal(result);
  assert.match(result.text, /would be \d+ bytes/);
  assert.equal(frontmatterParseCount(), before);
  assert.equal(existsSync(path.join(vault.dir, "inbox", "created-huge.md")), false);
});

test("the watcher indexes a note with 1 MiB of frontmatter by its body without parsing the frontmatter", async () => {
  const before = frontmatterParseCount();
  writeFileSync(path.join(vault.dir, "inbox", "arrived.md"), `---\n${manyKeys(MIB, true)}---\n# Arrived\n\nWombats dig burrows.\n`);
  const hits = await poll("the watcher to index the note", async () => {
    const found = ok(await server.call("note_search", { query: "wombats burrows" })).hits as Array<{ path: string }>;
    return found.length > 0 ? found : undefined;
  });
  assert.deepEqual(hits.map((hit) => hit.path), ["inbox/arrived.md"]);
  assertNoProperties(ok(await server.call("note_outline", { path: "inbox/arrived.md" })));
  assert.equal(frontmatterParseCount(), before);
});
