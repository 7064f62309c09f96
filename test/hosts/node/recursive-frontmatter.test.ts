import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { NodeVaultHost } from "../../../src/hosts/node/host";
import { JsonLineLogger } from "../../../src/hosts/node/services";

// A recursive YAML anchor once made parsing a note overflow the stack, and that one note stopped the
// whole vault from starting.
const RECURSIVE = "---\ntags: [kept]\nloop: &x [*x]\n---\nA note about zebrafish, linking [[other]].\n";

async function startWith(extraNotes: number): Promise<void> {
  const base = mkdtempSync(path.join(os.tmpdir(), "sbmcp-"));
  const root = path.join(base, "vault");
  mkdirSync(path.join(root, "bulk"), { recursive: true });
  writeFileSync(path.join(root, "recursive.md"), RECURSIVE);
  writeFileSync(path.join(root, "other.md"), "Zebrafish are small.\n");
  for (let i = 0; i < extraNotes; i++) writeFileSync(path.join(root, "bulk", `note ${i}.md`), `Filler note ${i}.\n`);
  const lines: string[] = [];
  const host = new NodeVaultHost({
    name: "v",
    root,
    dataDir: path.join(base, "data"),
    logger: new JsonLineLogger({ write: (line) => lines.push(line) }),
    watch: false,
    history: false,
  });
  try {
    const report = await host.start();
    assert.equal(report.reingested, extraNotes + 2);
    const page = await host.engine.search("zebrafish", { limit: 10, offset: 0 });
    assert.deepEqual(page.hits.map((hit) => hit.path).sort(), ["other.md", "recursive.md"]);
    // Without usable properties the note has no frontmatter tags, as for any invalid frontmatter.
    assert.deepEqual(host.engine.noteFacts("recursive.md")?.tags, []);
    assert.ok(!lines.some((line) => line.includes("zebrafish")), "no note text in the log");
  } finally {
    await host.stop();
    rmSync(base, { recursive: true, force: true });
  }
}

test("a note whose frontmatter anchor holds itself is indexed without properties; the vault starts", async () => {
  await startWith(0);
});

test("the same note among enough notes for the bulk ingest (the build worker, where built)", async () => {
  await startWith(1000);
});
