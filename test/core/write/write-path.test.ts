// Each step of the write path (SPEC §8) on a real temp vault through the Node host.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ToolError } from "../../../src/core/errors";
import type { WriteOperation } from "../../../src/core/write/write-path";
import { TRASH_FOLDER } from "../../../src/core/write/trash";
import { NodeVaultHost } from "../../../src/hosts/node/host";
import { JsonLineLogger } from "../../../src/hosts/node/services";
import { EDGE_VAULT, tempVault, type TempVault } from "../../support/vaults";

let vault: TempVault;
let host: NodeVaultHost;

before(async () => {
  vault = tempVault(EDGE_VAULT);
  host = new NodeVaultHost({ name: "edge", root: vault.dir, dataDir: vault.dataDir, logger: new JsonLineLogger({ write: () => undefined }), watch: false });
  await host.start();
});
after(async () => {
  await host.stop();
  vault.cleanup();
});

const file = (relative: string): string => path.join(vault.dir, ...relative.split("/"));
const read = (relative: string): string => readFileSync(file(relative), "utf8");
const hashOf = (relative: string): string => createHash("sha256").update(readFileSync(file(relative))).digest("hex").slice(0, 32);
const trashed = (): string[] => (existsSync(file(TRASH_FOLDER)) ? readdirSync(file(TRASH_FOLDER)).sort() : []);

function op(overrides: Partial<WriteOperation> & Pick<WriteOperation, "path" | "transform">): WriteOperation {
  return { tool: "test", dry_run: false, mode: "update", ...overrides };
}

async function rejects(work: Promise<unknown>, code: string, message: RegExp): Promise<ToolError> {
  try {
    await work;
  } catch (error) {
    assert.ok(error instanceof ToolError, String(error));
    assert.equal(error.code, code);
    assert.equal(error.state, "not_applied");
    assert.match(error.message, message);
    return error;
  }
  assert.fail("expected a refusal");
}

describe("hash checks (step 4)", () => {
  test("a stale expected_hash is refused with the current hash; nothing is written", async () => {
    const before = read("wiki/secrets.md");
    const error = await rejects(
      host.engine.writes.write(op({ path: "wiki/secrets.md", expected_hash: "0".repeat(32), transform: (text) => `${text}x` })),
      "conflict",
      /note_read/,
    );
    assert.equal(error.retry, "inspect_state");
    assert.equal(error.details?.content_hash, hashOf("wiki/secrets.md"));
    assert.match(error.message, new RegExp(hashOf("wiki/secrets.md")));
    assert.equal(read("wiki/secrets.md"), before);
  });

  test("the hash compares case-insensitively", async () => {
    const result = await host.engine.writes.write(
      op({ path: "wiki/secrets.md", expected_hash: hashOf("wiki/secrets.md").toUpperCase(), dry_run: true, transform: (text) => `${text}more\n` }),
    );
    assert.equal(result.dry_run, true);
  });

  test("an expected_hash for a missing note is not found; creating over an existing note is a conflict", async () => {
    await rejects(host.engine.writes.write(op({ path: "wiki/ghost.md", expected_hash: "a".repeat(32), transform: () => "x" })), "not_found", /note_create/);
    await rejects(host.engine.writes.write(op({ path: "wiki/index.md", mode: "create", transform: () => "x" })), "conflict", /note_edit/);
  });
});

describe("transform, touch and result (steps 5–7)", () => {
  test("a refusing transform writes nothing", async () => {
    const before = trashed();
    await rejects(
      host.engine.writes.write(op({ path: "wiki/secrets.md", transform: () => { throw new ToolError("invalid_argument", "old_string not found; call note_read"); } })),
      "invalid_argument",
      /note_read/,
    );
    assert.deepEqual(trashed(), before);
  });

  test("a note with frontmatter gains updated (and created when missing); other keys stay byte-identical", async () => {
    const before = read("wiki/index.md");
    const result = await host.engine.writes.write(op({ path: "wiki/index.md", transform: (text) => text!.replace("Links of every spelling:", "Links of every spelling (all of them):") }));
    const after = read("wiki/index.md");
    assert.match(after, /\nupdated: \d{4}-\d{2}-\d{2}\n---\n/);
    assert.equal(after.replace(/updated: \d{4}-\d{2}-\d{2}\n/, "").replace(" (all of them)", ""), before);
    assert.equal(result.changed, true);
    assert.equal(result.content_hash, hashOf("wiki/index.md"));
    assert.match(result.diff, /^--- a\/wiki\/index\.md\n\+\+\+ b\/wiki\/index\.md\n@@ /);
    assert.match(result.diff, /^-Links of every spelling:$/m);
    assert.match(result.diff, /^\+Links of every spelling \(all of them\):$/m);
  });

  test("a note without frontmatter gets none from a body edit", async () => {
    await host.engine.writes.write(op({ path: "projects/alpha/Team notes.md", transform: (text) => `${text!}More.\n` }));
    assert.ok(read("projects/alpha/Team notes.md").startsWith("# Team notes"));
  });

  test("a created note gets created and updated; skip_touch leaves them alone", async () => {
    const created = await host.engine.writes.write(op({ path: "inbox/new.md", mode: "create", transform: () => "# New\n" }));
    assert.equal(created.created, true);
    assert.equal(created.hash_before, null);
    assert.match(read("inbox/new.md"), /^---\ncreated: \d{4}-\d{2}-\d{2}\nupdated: \d{4}-\d{2}-\d{2}\n---\n# New\n$/);
    const before = read("archive/orphan.md");
    await host.engine.writes.write(op({ path: "archive/orphan.md", skip_touch: true, transform: (text) => text!.replace("Nothing", "Nobody") }));
    assert.equal(read("archive/orphan.md"), before.replace("Nothing", "Nobody"));
  });

  test("BOM and CRLF survive a write", async () => {
    await host.engine.writes.write(op({ path: "wiki/bom-crlf.md", transform: (text) => text!.replace("# BOM and CRLF", "# BOM and CRLF, edited") }));
    const bytes = readFileSync(file("wiki/bom-crlf.md"));
    assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    const text = bytes.toString("utf8");
    assert.equal((text.match(/\n/g) ?? []).length, (text.match(/\r\n/g) ?? []).length);
    assert.match(text, /# BOM and CRLF, edited\r\n/);
  });
});

describe("no change, dry run, trash, atomic write, index (steps 8–12)", () => {
  test("identical content writes nothing and keeps no trash copy", async () => {
    const before = trashed();
    const result = await host.engine.writes.write(op({ path: "wiki/dots-end.md", transform: (text) => text! }));
    assert.equal(result.changed, false);
    assert.match(result.message, /No change/);
    assert.deepEqual(trashed(), before);
  });

  test("a dry run returns the diff and writes nothing", async () => {
    const before = read("wiki/hr-not-frontmatter.md");
    const trash = trashed();
    const result = await host.engine.writes.write(op({ path: "wiki/hr-not-frontmatter.md", dry_run: true, transform: (text) => `${text!}Added.\n` }));
    assert.equal(result.dry_run, true);
    assert.match(result.message, /nothing was written/);
    assert.match(result.diff, /^\+Added\.$/m);
    assert.equal(read("wiki/hr-not-frontmatter.md"), before);
    assert.deepEqual(trashed(), trash);
  });

  test("every overwrite keeps the previous bytes in the trash, two writes in one second included", async () => {
    const original = readFileSync(file("wiki/big-sections.md"));
    const first = await host.engine.writes.write(op({ path: "wiki/big-sections.md", transform: (text) => text!.replace("a1", "a2") }));
    const second = await host.engine.writes.write(op({ path: "wiki/big-sections.md", transform: (text) => text!.replace("a2", "a3") }));
    assert.ok(first.trash && second.trash && first.trash !== second.trash);
    assert.deepEqual(readFileSync(file(first.trash)), original);
    assert.equal(readFileSync(file(second.trash), "utf8"), original.toString("utf8").replace("a1", "a2"));
    assert.match(path.basename(first.trash), /^\d{8}-\d{6}-\d{3}(~\d+)?-wiki__big-sections\.md$/);
  });

  test("no temp file is left and the index follows the write", async () => {
    await host.engine.writes.write(op({ path: "wiki/unterminated.md", transform: (text) => `${text!}\nA note about marmosets.\n` }));
    const temps = readdirSync(file("wiki")).filter((name) => name.startsWith(".sbtmp-"));
    assert.deepEqual(temps, []);
    const hits = await host.engine.search("marmosets", { limit: 5, offset: 0 });
    assert.deepEqual(hits.hits.map((hit) => hit.path), ["wiki/unterminated.md"]);
  });

  test("a concurrent writer between check and rename is caught", async () => {
    const target = "journal/2026/2026-01-05.md";
    const result = host.engine.writes.write(
      op({
        path: target,
        transform: (text) => {
          writeFileSync(file(target), "changed behind our back\n");
          return `${text!}our change\n`;
        },
      }),
    );
    await rejects(result, "conflict", /Read it again/);
    assert.equal(read(target), "changed behind our back\n");
  });
});

describe("guards", () => {
  test("invalid resulting frontmatter is refused unless allowed", async () => {
    await rejects(host.engine.writes.write(op({ path: "inbox/2026-01-06-0930-idea.md", transform: (text) => text!.replace("title: Idea", "title: [unclosed") })), "invalid_argument", /allow_invalid_frontmatter/);
    const allowed = await host.engine.writes.write(
      op({ path: "inbox/2026-01-06-0930-idea.md", allow_invalid_frontmatter: true, transform: (text) => text!.replace("title: Idea", "title: [unclosed") }),
    );
    assert.equal(allowed.changed, true);
  });

  test("credentials are refused with line and detector and never echoed; placeholders pass", async () => {
    const secret = `sk-${"Ab3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5".repeat(1)}`;
    const error = await rejects(
      host.engine.writes.write(op({ path: "wiki/secrets.md", transform: (text) => `${text!}\nkey: ${secret}\n` })),
      "forbidden",
      /line 5 \(OpenAI API key\)/,
    );
    assert.ok(!error.message.includes(secret));
    const placeholders = await host.engine.writes.write(op({ path: "wiki/secrets.md", transform: (text) => `${text!}\nUse \`Authorization: Bearer <token>\` and \`sk-...\`.\n` }));
    assert.equal(placeholders.changed, true);
    for (const [name, value] of <Array<[string, string]>>[
      ["JSON web token", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"],
      ["private key", "-----BEGIN RSA PRIVATE KEY-----"],
      ["GitHub token", `ghp_${"a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"}`],
      ["AWS access key", "AKIAIOSFODNN7REALKEY"],
    ]) {
      await rejects(host.engine.writes.write(op({ path: "wiki/secrets.md", transform: (text) => `${text!}${value}\n` })), "forbidden", new RegExp(name));
    }
  });

  test("new broken links come back as warnings, not refusals", async () => {
    const result = await host.engine.writes.write(op({ path: "archive/orphan.md", transform: (text) => `${text!}\nSee [[nowhere-note]] and [[rate-limiting]].\n` }));
    assert.equal(result.changed, true);
    assert.equal(result.warnings.length, 1);
    assert.match(result.warnings[0]!, /\[\[nowhere-note\]\]/);
  });
});

describe("delete and binary writes", () => {
  test("delete checks the hash, copies to the trash, then removes", async () => {
    await rejects(host.engine.writes.remove({ path: "projects/beta/plan.md", tool: "test", expected_hash: "f".repeat(32), dry_run: false }), "conflict", /note_read/);
    const bytes = readFileSync(file("projects/beta/plan.md"));
    const result = await host.engine.writes.remove({ path: "projects/beta/plan.md", tool: "test", expected_hash: hashOf("projects/beta/plan.md"), dry_run: false });
    assert.equal(result.deleted, true);
    assert.ok(!existsSync(file("projects/beta/plan.md")));
    assert.deepEqual(readFileSync(file(result.trash!)), bytes);
    assert.equal(host.engine.file("projects/beta/plan.md"), undefined);
    const copies = await host.engine.trashCopies("projects/beta/plan.md");
    assert.equal(copies[0]?.trash, result.trash);
  });

  test("a binary overwrite needs overwrite and keeps the old bytes", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    await rejects(host.engine.writes.writeBinary({ path: "Attachments/diagram.png", tool: "test", bytes: png, overwrite: false, dry_run: false }), "conflict", /overwrite: true/);
    const old = readFileSync(file("Attachments/diagram.png"));
    const result = await host.engine.writes.writeBinary({ path: "Attachments/diagram.png", tool: "test", bytes: png, overwrite: true, dry_run: false });
    assert.deepEqual(readFileSync(file(result.trash!)), old);
    assert.deepEqual(new Uint8Array(readFileSync(file("Attachments/diagram.png"))), png);
  });
});

test("trash copies past the retention are purged at start", async () => {
  const old = `${TRASH_FOLDER}/20200101-000000-000-wiki__ancient.md`;
  writeFileSync(file(old), "ancient");
  const purged = await host.engine.purgeTrash();
  assert.ok(purged >= 1);
  assert.ok(!existsSync(file(old)));
  assert.ok(trashed().length > 0, "recent copies stay");
});
