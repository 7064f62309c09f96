// Outside edits reach the index through the watcher; a burst falls back to one reconcile.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { NodeVaultHost } from "../../../src/hosts/node/host";
import { VaultWatcher } from "../../../src/hosts/node/watcher";
import { JsonLineLogger } from "../../../src/hosts/node/services";
import { EDGE_VAULT, tempVault, type TempVault } from "../../support/vaults";
import { within } from "../../support/poll";

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


test("one watch per folder, following folders made and removed", async () => {
  const own = tempVault(EDGE_VAULT);
  const watcher = new VaultWatcher({ root: own.dir, mode: "tree", onChanges: async () => undefined, onBurst: async () => undefined, onError: () => undefined });
  try {
    await watcher.start();
    // The root and its visible folders (hidden ones such as .obsidian and .trash have none).
    const folders = ["", "journal", "journal/2026", "projects", "projects/alpha", "projects/beta", "日本語", "wiki", "templates", "Deutsch Notizen", "Attachments", "inbox", "archive"];
    assert.equal(watcher.watchedFolders, folders.length);
    mkdirSync(path.join(own.dir, "later", "below"), { recursive: true });
    await within(2000, "new folders watched", () => watcher.watchedFolders === folders.length + 2);
    rmSync(path.join(own.dir, "projects"), { recursive: true });
    await within(2000, "removed folders unwatched", () => watcher.watchedFolders === folders.length - 1);
  } finally {
    await watcher.stop();
    own.cleanup();
  }
});

test("an unchanged vault's periodic check changes nothing", async () => {
  await host.idle();
  const files = host.engine.files();
  assert.equal(await host.engine.recheck(), null);
  assert.equal(host.engine.files(), files, "the sorted table was not rebuilt");
});

test("the periodic check finds a change no watch reported", async () => {
  const own = tempVault(EDGE_VAULT);
  const checked = new NodeVaultHost({
    name: "checked",
    root: own.dir,
    dataDir: own.dataDir,
    logger: new JsonLineLogger({ write: () => undefined }),
    history: false,
    recheckIntervalMs: 100,
  });
  // A folder reached through a link inside the vault: indexed under both paths, watched under its own.
  mkdirSync(path.join(own.dir, "target"));
  writeFileSync(path.join(own.dir, "target", "far.md"), "Quokkas far.\n");
  symlinkSync(path.join(own.dir, "target"), path.join(own.dir, "linked"));
  await checked.start();
  const found = async (word: string): Promise<string[]> =>
    (await checked.engine.search(word, { limit: 10, offset: 0 })).hits.map((hit) => hit.path).sort();
  try {
    assert.deepEqual(await found("quokkas"), ["linked/far.md", "target/far.md"]);
    writeFileSync(path.join(own.dir, "target", "far.md"), "Wallabies far.\n");
    await within(3000, "both paths re-indexed", async () => (await found("wallabies")).length === 2);
    assert.deepEqual(await found("quokkas"), []);
  } finally {
    await checked.stop();
    own.cleanup();
  }
});
