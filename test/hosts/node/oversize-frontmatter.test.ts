import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { NodeVaultHost } from "../../../src/hosts/node/host";
import { JsonLineLogger } from "../../../src/hosts/node/services";

// 1 MiB of frontmatter in many small keys once held a start for seconds (and a quadratic duplicate-key
// check made other shapes of it take minutes): over the size limit it is not parsed at all.
function oversizeNote(): string {
  const lines = ["tags: [kept]", "related: \"[[other]]\""];
  for (let n = 0, size = 0; size < 1024 * 1024; n++) {
    lines.push(`key${n}: value ${n}`);
    size += lines[lines.length - 1]!.length + 1;
  }
  return `---\n${lines.join("\n")}\n---\nA note about numbats, linking [[other]].\n`;
}

async function startWith(extraNotes: number): Promise<void> {
  const base = mkdtempSync(path.join(os.tmpdir(), "sbmcp-"));
  const root = path.join(base, "vault");
  mkdirSync(path.join(root, "bulk"), { recursive: true });
  writeFileSync(path.join(root, "oversize.md"), oversizeNote());
  writeFileSync(path.join(root, "other.md"), "Numbats eat termites.\n");
  for (let i = 0; i < extraNotes; i++) writeFileSync(path.join(root, "bulk", `note ${i}.md`), `Filler note ${i}.\n`);
  const host = new NodeVaultHost({
    name: "v",
    root,
    dataDir: path.join(base, "data"),
    logger: new JsonLineLogger({ write: () => undefined }),
    watch: false,
    history: false,
  });
  try {
    const report = await host.start();
    assert.equal(report.reingested, extraNotes + 2);
    const page = await host.engine.search("numbats", { limit: 10, offset: 0 });
    assert.deepEqual(page.hits.map((hit) => hit.path).sort(), ["other.md", "oversize.md"]);
    const cache = host.engine.cache("oversize.md");
    assert.equal(cache?.frontmatter, undefined);
    assert.equal(cache?.frontmatterLinks, undefined, "links in the unparsed frontmatter are not extracted");
    assert.deepEqual(cache?.links?.map((link) => link.link), ["other"], "links in the body are");
    assert.deepEqual(host.engine.noteFacts("oversize.md")?.tags, []);
  } finally {
    await host.stop();
    rmSync(base, { recursive: true, force: true });
  }
}

test("a note with 1 MiB of frontmatter is indexed by its body, without properties; the vault starts", async () => {
  await startWith(0);
});

test("the same note among enough notes for the bulk ingest (the build worker, where built)", async () => {
  await startWith(1000);
});
