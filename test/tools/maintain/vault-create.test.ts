// vault_create through the real headless server: each layout on an empty vault (dry run first, then
// for real, then again with nothing left to create), one history commit, templates that
// note_from_template fills, and on edge-vault: existing files kept byte for byte, existing folder
// spellings adopted.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startTestServer, type TestServer, type ToolCallResult } from "../../support/server";
import { EDGE_VAULT, vaultFiles } from "../../support/vaults";

interface Created {
  vault: string;
  layout: string;
  dry_run: boolean;
  created: string[];
  skipped: Array<{ path: string; reason: string }>;
  diffs?: Array<{ path: string; diff: string }>;
  next: string;
}

function ok(result: ToolCallResult): Record<string, unknown> {
  assert.equal(result.isError, false, result.text);
  return result.structured;
}

async function create(server: TestServer, args: Record<string, unknown>): Promise<Created> {
  return ok(await server.call("vault_create", args)) as unknown as Created;
}

async function hasInstructions(server: TestServer): Promise<boolean> {
  const listed = ok(await server.call("vault_list", {}));
  return (listed.vaults as Array<{ has_instructions: boolean }>)[0]!.has_instructions;
}

async function emptyVaultServer(): Promise<{ server: TestServer; cleanup: () => void }> {
  const source = mkdtempSync(path.join(os.tmpdir(), "sbmcp-empty-"));
  const server = await startTestServer({ fixture: source });
  return { server, cleanup: () => rmSync(source, { recursive: true, force: true }) };
}

const LAYOUT_FILES: Record<string, { files: string[]; template: string; folder: string }> = {
  "wiki-raw": {
    files: ["INSTRUCTIONS.md", "raw/README.md", "templates/source.md", "templates/wiki-page.md", "wiki/index.md"],
    template: "wiki-page",
    folder: "wiki",
  },
  para: {
    files: ["Archive/README.md", "Areas/README.md", "INSTRUCTIONS.md", "Projects/README.md", "Resources/README.md", "index.md", "templates/area.md", "templates/project.md", "templates/resource.md"],
    template: "project",
    folder: "Projects",
  },
  zettelkasten: {
    files: ["INSTRUCTIONS.md", "fleeting/README.md", "index.md", "literature/README.md", "permanent/README.md", "templates/fleeting.md", "templates/literature.md", "templates/permanent.md"],
    template: "permanent",
    folder: "permanent",
  },
  plain: { files: ["INSTRUCTIONS.md", "index.md", "notes/README.md", "templates/note.md"], template: "note", folder: "notes" },
};

for (const [layout, expected] of Object.entries(LAYOUT_FILES)) {
  test(`${layout}: dry run, then the files, then nothing left to create; templates work`, async () => {
    const { server, cleanup } = await emptyVaultServer();
    try {
      assert.equal(await hasInstructions(server), false);
      const preview = await create(server, { layout, dry_run: true });
      assert.equal(preview.dry_run, true);
      assert.deepEqual([...preview.created].sort(), expected.files);
      assert.deepEqual(vaultFiles(server.vault.dir), [], "a dry run writes nothing");
      assert.deepEqual(preview.diffs?.map((entry) => entry.path).sort(), expected.files);
      assert.match(preview.next, /without dry_run/);

      const made = await create(server, { layout, reason: "set up the vault" });
      assert.deepEqual([...made.created].sort(), expected.files);
      assert.deepEqual(made.skipped, []);
      assert.deepEqual(vaultFiles(server.vault.dir), expected.files);
      assert.equal(await hasInstructions(server), true, "vault_list sees the new INSTRUCTIONS.md");
      const instructions = readFileSync(path.join(server.vault.dir, "INSTRUCTIONS.md"), "utf8");
      assert.ok(instructions.includes(`\`${layout}\``), "INSTRUCTIONS.md names the layout");
      assert.ok(!instructions.startsWith("---"), "INSTRUCTIONS.md is written as is, without created/updated");
      const template = readFileSync(path.join(server.vault.dir, `templates/${expected.template}.md`), "utf8");
      assert.match(template, /title: "\{\{title\}\}"/, "templates keep their placeholders");
      assert.ok(!/^updated:/m.test(template), "no updated stamp in a template");

      const history = ok(await server.call("note_history", { path: "INSTRUCTIONS.md" }));
      const revisions = history.revisions as Array<{ message: string }>;
      assert.match(revisions[0]!.message, new RegExp(`^vault_create: ${layout} \\(${expected.files.length} files\\)`));

      const again = await create(server, { layout });
      assert.deepEqual(again.created, []);
      assert.deepEqual(again.skipped.map((entry) => entry.path).sort(), expected.files);
      assert.ok(again.skipped.every((entry) => /already exists/.test(entry.reason)));
      assert.match(again.next, /Nothing was created/);

      const note = ok(await server.call("note_from_template", { template: expected.template, title: "First of its kind", path: `${expected.folder}/First of its kind.md` }));
      assert.deepEqual(note.unfilled, []);
      const written = readFileSync(path.join(server.vault.dir, expected.folder, "First of its kind.md"), "utf8");
      assert.match(written, /^---\ntitle: "First of its kind"\n/);
      assert.match(written, /^# First of its kind$/m);
      assert.ok(!written.includes("{{"), "every placeholder filled");
    } finally {
      await server.stop();
      cleanup();
    }
  });
}

test("edge-vault: an existing INSTRUCTIONS.md stays byte for byte, existing folders keep their spelling", async () => {
  const server = await startTestServer({ fixture: EDGE_VAULT });
  try {
    const instructions = path.join(server.vault.dir, "INSTRUCTIONS.md");
    const before = readFileSync(instructions);
    const made = await create(server, { layout: "para" });
    assert.deepEqual(readFileSync(instructions), before);
    const skipped = made.skipped.find((entry) => entry.path === "INSTRUCTIONS.md");
    assert.match(skipped?.reason ?? "", /already exists.*never changes existing files/);
    assert.match(made.next, /INSTRUCTIONS\.md already existed and was kept/);
    assert.ok(made.created.includes("projects/README.md") && made.created.includes("archive/README.md"), made.created.join(", "));
    assert.ok(!made.created.some((entry) => entry.startsWith("Projects/") || entry.startsWith("Archive/")), "no second folder differing in case");
    assert.ok(made.created.includes("Areas/README.md"));
    assert.ok(made.created.includes("templates/project.md"), "the Templates plugin folder of the vault");
    assert.equal(await hasInstructions(server), true);
    const index = readFileSync(path.join(server.vault.dir, "index.md"), "utf8");
    assert.match(index, /\[\[projects\/README\|Projects\/\]\]/, "links use the folder's existing spelling");
  } finally {
    await server.stop();
  }
});

test("prefix: the folders go under it, templates and INSTRUCTIONS.md where the server reads them", async () => {
  const { server, cleanup } = await emptyVaultServer();
  try {
    const made = await create(server, { layout: "wiki-raw", prefix: "research/" });
    assert.deepEqual([...made.created].sort(), ["INSTRUCTIONS.md", "research/raw/README.md", "research/wiki/index.md", "templates/source.md", "templates/wiki-page.md"]);
    assert.match(readFileSync(path.join(server.vault.dir, "INSTRUCTIONS.md"), "utf8"), /The folder `research\/` follows/);
    assert.match(readFileSync(path.join(server.vault.dir, "research/raw/README.md"), "utf8"), /\[\[research\/wiki\/index\|the index\]\]/);
    ok(await server.call("note_from_template", { template: "source", title: "A paper", path: "research/raw/A paper.md" }));

    const refused = await server.call("vault_create", { layout: "bullet-journal" });
    assert.equal(refused.isError, true);
    assert.match(refused.text, /wiki-raw, para, zettelkasten, plain/);
    const hidden = await server.call("vault_create", { layout: "plain", prefix: ".hidden" });
    assert.equal(hidden.isError, true, "prefixes follow the path rules");
  } finally {
    await server.stop();
    cleanup();
  }
});
