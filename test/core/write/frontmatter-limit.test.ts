// Frontmatter through the write path: each YAML text is parsed once per write, however many steps
// read it, and frontmatter over the size limit is never parsed (edits to it are refused, the body
// stays editable).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ToolError } from "../../../src/core/errors";
import { FRONTMATTER_LIMIT_BYTES, frontmatterParseCount } from "../../../src/core/notes/frontmatter";
import { editFrontmatter } from "../../../src/core/write/frontmatter-edit";
import type { WriteOperation, WriteResult } from "../../../src/core/write/write-path";
import { NodeVaultHost } from "../../../src/hosts/node/host";
import { JsonLineLogger } from "../../../src/hosts/node/services";
import { EDGE_VAULT, tempVault, type TempVault } from "../../support/vaults";

let vault: TempVault;
let host: NodeVaultHost;

/** Frontmatter of many small keys, each with a comment, so that only the full YAML parser reads it. */
function manyKeys(bytes: number): string {
  const lines: string[] = [];
  for (let n = 0, size = 0; size < bytes; n++) {
    lines.push(`key${n}: value ${n} # note ${n}`);
    size += lines[lines.length - 1]!.length + 1;
  }
  return `${lines.join("\n")}\n`;
}

const UNDER = `---\n${manyKeys(50 * 1024)}---\n# Under\n\nThe body of a note with big frontmatter.\n`;
const OVER = `---\n${manyKeys(1024 * 1024)}---\n# Over\n\nThe body of a note with huge frontmatter.\n`;

const file = (relative: string): string => path.join(vault.dir, ...relative.split("/"));
const read = (relative: string): string => readFileSync(file(relative), "utf8");

before(async () => {
  vault = tempVault(EDGE_VAULT);
  writeFileSync(file("inbox/under.md"), UNDER);
  writeFileSync(file("inbox/over.md"), OVER);
  host = new NodeVaultHost({ name: "edge", root: vault.dir, dataDir: vault.dataDir, logger: new JsonLineLogger({ write: () => undefined }), watch: false });
  await host.start();
  // Every write is a history commit: the first snapshot is recorded first, so none says it was queued.
  await host.historyIdle();
});
after(async () => {
  await host.stop();
  vault.cleanup();
});

function op(overrides: Partial<WriteOperation> & Pick<WriteOperation, "path" | "transform">): WriteOperation {
  return { tool: "test", dry_run: true, mode: "update", ...overrides };
}

/** The write's result and how many YAML documents it parsed. */
async function counted(operation: WriteOperation): Promise<{ result: WriteResult; parses: number }> {
  const before = frontmatterParseCount();
  const result = await host.engine.writes.write(operation);
  return { result, parses: frontmatterParseCount() - before };
}

async function refused(operation: WriteOperation): Promise<{ error: ToolError; parses: number }> {
  const before = frontmatterParseCount();
  try {
    await host.engine.writes.write(operation);
  } catch (error) {
    assert.ok(error instanceof ToolError, String(error));
    return { error, parses: frontmatterParseCount() - before };
  }
  assert.fail("expected a refusal");
}

describe("each frontmatter text is parsed once per write", () => {
  test("setting a key in 50 KB of frontmatter: the note's YAML once, the edited YAML once", async () => {
    const { result, parses } = await counted(
      op({ path: "inbox/under.md", transform: (text, parses) => editFrontmatter(text!, [{ key: "key7", value: "changed" }], { createIfMissing: false, parses }) }),
    );
    assert.equal(parses, 2);
    assert.match(result.diff, /^\+key7: changed # note 7$/m);
    assert.match(result.diff, /^\+updated: \d{4}-\d{2}-\d{2}$/m);
  });

  test("a body edit parses the unchanged frontmatter once: guard, touch and link check share it", async () => {
    const { result, parses } = await counted(op({ path: "inbox/under.md", transform: (text) => text!.replace("The body", "The whole body") }));
    assert.equal(parses, 1);
    assert.match(result.diff, /^\+The whole body of a note with big frontmatter\.$/m);
    assert.match(result.diff, /^\+updated: /m);
  });

  test("creating a note with frontmatter parses it once", async () => {
    const { result, parses } = await counted(op({ path: "inbox/created.md", mode: "create", transform: () => UNDER }));
    assert.equal(parses, 1);
    assert.equal(result.created, true);
    assert.match(result.diff, /^\+created: \d{4}-\d{2}-\d{2}$/m);
  });
});

describe("frontmatter over the limit", () => {
  test("an edit of its keys is refused with the limit and the calls that still work, without parsing it", async () => {
    const { error, parses } = await refused(
      op({ path: "inbox/over.md", transform: (text, parses) => editFrontmatter(text!, [{ key: "status", value: "done" }], { createIfMissing: false, parses }) }),
    );
    assert.equal(parses, 0);
    assert.equal(error.code, "too_large");
    assert.equal(error.state, "not_applied");
    assert.match(error.message, new RegExp(`over the limit of ${FRONTMATTER_LIMIT_BYTES} bytes \\(64 KiB\\)`));
    assert.match(error.message, /note_read/);
    assert.match(error.message, /note_edit/);
    assert.match(error.message, /note_write/);
    assert.equal(error.details?.limit, FRONTMATTER_LIMIT_BYTES);
  });

  test("a body edit is written, the frontmatter left byte for byte and unstamped, with a warning", async () => {
    const { result, parses } = await counted(op({ path: "inbox/over.md", dry_run: false, transform: (text) => text!.replace("The body", "The whole body") }));
    assert.equal(parses, 0);
    assert.equal(result.changed, true);
    assert.equal(read("inbox/over.md"), OVER.replace("The body", "The whole body"));
    assert.equal(result.warnings.length, 1);
    assert.match(result.warnings[0]!, /created\/updated were not stamped: the frontmatter is \d+ bytes, over the 64 KiB limit/);
  });

  test("a change inside it is refused as what the write would leave; nothing is written", async () => {
    const before = read("inbox/over.md");
    const { error, parses } = await refused(op({ path: "inbox/over.md", dry_run: false, transform: (text) => text!.replace("key3: value 3", "key3: value three") }));
    assert.equal(parses, 0);
    assert.equal(error.code, "too_large");
    assert.match(error.message, /^The frontmatter of "inbox\/over\.md" would be \d+ bytes, over the limit of 65536 bytes/);
    assert.equal(read("inbox/over.md"), before);
  });

  test("replacing it with a small one works", async () => {
    const { result } = await counted(op({ path: "inbox/over.md", transform: (text) => text!.replace(/^---\n[\s\S]*?\n---\n/, "---\ntitle: Over\n---\n") }));
    assert.equal(result.changed, true);
    assert.match(result.diff, /^\+title: Over$/m);
  });

  test("creating a note with 1 MiB of frontmatter is refused before any parse", async () => {
    const { error, parses } = await refused(op({ path: "inbox/huge.md", mode: "create", transform: () => OVER }));
    assert.equal(parses, 0);
    assert.equal(error.code, "too_large");
    assert.match(error.message, /would be \d+ bytes, over the limit/);
  });
});
