// note_merge: the source's content ends up in the target under a heading, nothing is lost, every
// link to the source is redirected (and still shows what it showed), and the source is in the trash.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { EDGE_VAULT, vaultFiles } from "../../support/vaults";
import { startTestServer, type TestServer } from "../../support/server";

function digests(root: string): Map<string, string> {
  return new Map(vaultFiles(root).map((file) => [file, createHash("sha256").update(readFileSync(path.join(root, file))).digest("hex")]));
}

async function setUp(server: TestServer): Promise<void> {
  const notes: Array<[string, string]> = [
    ["topics/Source note.md", "---\naliases: [Old alias]\ntags: [merged-tag]\n---\n# Source note\n\nIntro of the source. ^intro\n\n## Details\n\nSee [[Helper]] and [[#Details]].\n"],
    ["topics/Helper.md", "# Helper\n"],
    ["elsewhere/Target.md", "---\ntags: [target]\n---\n# Target\n\nTarget text links [[Source note]].\n"],
    ["elsewhere/Reader.md", "Links: [[Source note]], [[Source note|the source]], [[Source note#Details]], [[Source note#^intro]], ![[Source note]], [md](../topics/Source%20note.md).\n"],
  ];
  for (const [notePath, content] of notes) {
    const created = await server.call("note_create", { path: notePath, content });
    assert.equal(created.isError, false, created.text);
  }
}

test("note_merge appends the source under a heading, redirects every link and trashes the source; the dry run shows the same", async () => {
  const server = await startTestServer({ fixture: EDGE_VAULT });
  try {
    await setUp(server);
    const before = digests(server.vault.dir);
    const dry = await server.call("note_merge", { path: "topics/Source note.md", into: "elsewhere/Target.md", dry_run: true });
    assert.equal(dry.isError, false, dry.text);
    assert.deepEqual(digests(server.vault.dir), before, "a dry run writes nothing");

    const merged = await server.call("note_merge", { path: "topics/Source note.md", into: "elsewhere/Target.md", reason: "one note per topic" });
    assert.equal(merged.isError, false, merged.text);
    assert.equal(merged.structured.target && (merged.structured.target as { diff: string }).diff.replace(/\d{4}-\d{2}-\d{2}/g, "D"), (dry.structured.target as { diff: string }).diff.replace(/\d{4}-\d{2}-\d{2}/g, "D"));
    assert.deepEqual(
      (merged.structured.notes as Array<{ path: string; diff: string }>).map(({ path: p, diff }) => ({ p, diff })),
      (dry.structured.notes as Array<{ path: string; diff: string }>).map(({ path: p, diff }) => ({ p, diff })),
    );

    const target = readFileSync(path.join(server.vault.dir, "elsewhere/Target.md"), "utf8");
    assert.match(target, /aliases:\n {2}- Old alias\n {2}- Source note\n|aliases: \[Old alias, Source note\]/);
    assert.match(target, /tags:[\s\S]*merged-tag/);
    assert.match(target, /Target text links \[\[Target\|Source note\]\]\./, "the target's own link to the source became a self-link showing the same name");
    assert.match(target, /\n## Source note\n\n<!-- merged from topics\/Source note\.md on \d{4}-\d{2}-\d{2} -->\n\nIntro of the source\. \^intro\n\n### Details\n\nSee \[\[Helper\]\] and \[\[#Details\]\]\.\n$/);
    assert.equal(existsSync(path.join(server.vault.dir, "topics/Source note.md")), false);
    assert.ok(typeof (merged.structured.source as { trash?: string }).trash === "string", "the source has a trash copy");

    const reader = readFileSync(path.join(server.vault.dir, "elsewhere/Reader.md"), "utf8");
    assert.ok(
      reader.endsWith("---\nLinks: [[Target|Source note]], [[Target|the source]], [[Target#Details]], [[Target#^intro]], ![[Target#Source note]], [md](Target.md).\n"),
      reader,
    );
    // Every redirected link resolves, and the helper link in the moved body still finds Helper.
    const backlinks = await server.call("note_backlinks", { path: "elsewhere/Target.md" });
    assert.deepEqual(backlinks.structured.broken, []);
    const helper = await server.call("note_backlinks", { path: "topics/Helper.md" });
    assert.ok((helper.structured.incoming as Array<{ path: string }>).some((entry) => entry.path === "elsewhere/Target.md"));
    const reading = await server.call("note_backlinks", { path: "elsewhere/Reader.md" });
    assert.deepEqual(reading.structured.broken, [], "no link of the reader broke");

    const history = await server.call("note_history", { path: "elsewhere/Reader.md", limit: 1 });
    assert.equal((history.structured.revisions as Array<{ message: string }>)[0]!.message, "note_merge: topics/Source note.md -> elsewhere/Target.md (7 links updated)");
  } finally {
    await server.stop();
  }
});

test("note_merge refuses the same note, a missing target and a non-note, writing nothing", async () => {
  const server = await startTestServer({ fixture: EDGE_VAULT });
  try {
    const before = digests(server.vault.dir);
    for (const args of [
      { path: "wiki/index.md", into: "wiki/index.md" },
      { path: "wiki/index.md", into: "wiki/missing.md" },
      { path: "Attachments/diagram.png", into: "wiki/index.md" },
    ]) {
      const refused = await server.call("note_merge", args);
      assert.equal(refused.isError, true, JSON.stringify(args));
    }
    assert.deepEqual(digests(server.vault.dir), before);
  } finally {
    await server.stop();
  }
});
