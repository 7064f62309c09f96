// Outside edits reach the index through the watcher; a burst falls back to one reconcile.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { NodeVaultHost } from "../../../src/hosts/node/host";
import { JsonLineLogger } from "../../../src/hosts/node/services";
import { EDGE_VAULT, tempVault, type TempVault } from "../../support/vaults";

let vault: TempVault;
let host: NodeVaultHost;
const lines: string[] = [];

async function hits(query: string): Promise<string[]> {
  return (await host.engine.search(query, { limit: 10, offset: 0 })).hits.map((hit) => hit.path);
}

async function settled(): Promise<void> {
  // fs.watch delivers events asynchronously; give it a moment before asking the watcher to drain.
  await new Promise((resolve) => setTimeout(resolve, 300));
  await host.idle();
}

before(async () => {
  vault = tempVault(EDGE_VAULT);
  host = new NodeVaultHost({
    name: "edge",
    root: vault.dir,
    dataDir: vault.dataDir,
    logger: new JsonLineLogger({ level: "debug", write: (line) => lines.push(line) }),
    persistDelayMs: 50,
  });
  await host.start();
});
after(async () => {
  await host.stop();
  vault.cleanup();
});

test("a created, edited and deleted note is followed", async () => {
  const file = path.join(vault.dir, "wiki", "watched.md");
  writeFileSync(file, "# Watched\n\nAardvarks at dawn.\n");
  await settled();
  assert.deepEqual(await hits("aardvarks"), ["wiki/watched.md"]);
  writeFileSync(file, "# Watched\n\nPangolins at dusk.\n");
  await settled();
  assert.deepEqual(await hits("aardvarks"), []);
  assert.deepEqual(await hits("pangolins"), ["wiki/watched.md"]);
  rmSync(file);
  await settled();
  assert.deepEqual(await hits("pangolins"), []);
  assert.equal(host.engine.file("wiki/watched.md"), undefined);
});

test("a folder moved in and out is reconciled as a whole", async () => {
  const outside = path.join(path.dirname(vault.dir), "incoming");
  mkdirSync(outside);
  writeFileSync(path.join(outside, "one.md"), "Okapis one.\n");
  writeFileSync(path.join(outside, "two.md"), "Okapis two.\n");
  renameSync(outside, path.join(vault.dir, "incoming"));
  await settled();
  assert.deepEqual((await hits("okapis")).sort(), ["incoming/one.md", "incoming/two.md"]);
  renameSync(path.join(vault.dir, "incoming"), outside);
  await settled();
  assert.deepEqual(await hits("okapis"), []);
});

test("hidden folders and temp files are ignored", async () => {
  writeFileSync(path.join(vault.dir, ".trash", "hidden-new.md"), "Narwhals hidden.\n");
  writeFileSync(path.join(vault.dir, "wiki", ".sbtmp-123-x.md"), "Narwhals temp.\n");
  await settled();
  assert.deepEqual(await hits("narwhals"), []);
});

test("changes are persisted after a quiet period", async () => {
  writeFileSync(path.join(vault.dir, "wiki", "persisted.md"), "Wombats persist.\n");
  await settled();
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.ok(lines.some((line) => line.includes('"index_persisted"')));
});

test("a burst of changes falls back to one reconcile", async () => {
  const folder = path.join(vault.dir, "burst");
  mkdirSync(folder);
  for (let i = 0; i < 600; i++) writeFileSync(path.join(folder, `n${i}.md`), `Capybara number ${i}.\n`);
  await settled();
  assert.ok(lines.some((line) => line.includes('"reason":"burst"')), "the burst was reconciled in one pass");
  assert.equal((await host.engine.search("capybara", { limit: 1, offset: 0 })).total, 600);
});
