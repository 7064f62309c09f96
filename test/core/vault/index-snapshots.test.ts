import { after, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync, utimesSync, writeFileSync, existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import type { IndexStore, LogRecord } from "../../../src/core/ports";
import { Engine } from "../../../src/core/vault/engine";
import { MANIFEST_KEY, decodeManifest, encodeManifest, shardKey, shardOf } from "../../../src/core/vault/index-shards";
import { FIELD_COUNT } from "../../../src/core/search/note-index";
import { encodeChunk } from "../../../src/core/search/postings";
import { decodeSnapshot, encodeSnapshot, snapshotChecksum } from "../../../src/core/search/snapshot";
import { FsVault } from "../../../src/hosts/node/fs-vault";
import { FsWriter } from "../../../src/hosts/node/fs-writer";
import { FileIndexStore } from "../../../src/hosts/node/index-store";
import { NodeMetadata } from "../../../src/hosts/node/node-metadata";
import { nodeHasher, setImmediateYielder, systemClock } from "../../../src/hosts/node/services";
import { EDGE_VAULT, tempVault, type TempVault } from "../../support/vaults";

const vaults: TempVault[] = [];
after(() => vaults.forEach((vault) => vault.cleanup()));

/** A file store that remembers which keys were saved. */
class RecordingStore implements IndexStore {
  readonly inner: FileIndexStore;
  saved: string[] = [];

  constructor(dir: string) {
    this.inner = new FileIndexStore(dir);
  }

  load(key: string): Promise<Uint8Array | null> {
    return this.inner.load(key);
  }

  async save(key: string, data: Uint8Array): Promise<void> {
    this.saved.push(key);
    await this.inner.save(key, data);
  }

  remove(key: string): Promise<void> {
    return this.inner.remove(key);
  }

  keys(): Promise<string[]> {
    return this.inner.keys();
  }

  file(key: string): string {
    return path.join(this.inner.dir, `${key}.snapshot`);
  }
}

function engineOn(vault: TempVault, logs: LogRecord[] = []): { engine: Engine; store: RecordingStore } {
  const fsVault = new FsVault(vault.dir);
  const store = new RecordingStore(vault.dataDir);
  const engine = new Engine({
    name: "test",
    vault: fsVault,
    metadata: new NodeMetadata(),
    store,
    hasher: nodeHasher,
    clock: systemClock,
    logger: { log: (record) => logs.push(record) },
    yielder: setImmediateYielder,
    writer: new FsWriter(fsVault, nodeHasher),
  });
  return { engine, store };
}

function freshVault(): TempVault {
  const vault = tempVault(EDGE_VAULT);
  vaults.push(vault);
  return vault;
}

/** Writes a note and moves its mtime, as an editor saving it would. */
function edit(vault: TempVault, relative: string, text: string, secondsAhead = 5): void {
  const file = path.join(vault.dir, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  const later = new Date(Date.now() + secondsAhead * 1000);
  utimesSync(file, later, later);
}

/** Two new note names that land in the same shard. */
function namesSharingAShard(): { first: string; second: string } {
  const byShard = new Map<number, string>();
  for (let i = 0; ; i++) {
    const name = `shared/note-${i}.md`;
    const shard = shardOf(name);
    const known = byShard.get(shard);
    if (known) return { first: known, second: name };
    byShard.set(shard, name);
  }
}

async function hitPaths(engine: Engine, query: string): Promise<string[]> {
  return (await engine.search(query, { limit: 50, offset: 0 })).hits.map((hit) => hit.path);
}

const QUERIES = ["bucket refills", "rate limiting", '"token bucket"', "secret*", "uber", "東京", "tasks -done"];

test("a restart loads every shard and answers exactly as the build that wrote them", async () => {
  const vault = freshVault();
  const built = engineOn(vault);
  const first = await built.engine.start();
  assert.equal(first.snapshot, "missing");
  assert.ok(built.store.saved.includes(MANIFEST_KEY));
  assert.equal(built.store.saved[built.store.saved.length - 1], MANIFEST_KEY, "the manifest is written last");
  const restarted = engineOn(vault);
  const report = await restarted.engine.start();
  assert.equal(report.snapshot, "loaded");
  assert.equal(report.reingested, 0);
  assert.deepEqual(restarted.store.saved, [], "an unchanged vault writes nothing");
  for (const query of QUERIES) {
    assert.deepEqual(await restarted.engine.search(query, { limit: 50, offset: 0 }), await built.engine.search(query, { limit: 50, offset: 0 }), query);
  }
  for (const file of built.engine.files()) {
    assert.deepEqual(restarted.engine.file(file.path), { ...file, ctime: file.mtime }, file.path);
    assert.deepEqual(restarted.engine.noteFacts(file.path), built.engine.noteFacts(file.path), file.path);
    assert.deepEqual(restarted.engine.cache(file.path), built.engine.cache(file.path), file.path);
  }
});

test("persisting after one changed note rewrites that note's shard and the manifest only", async () => {
  const vault = freshVault();
  const { engine, store } = engineOn(vault);
  await engine.start();
  store.saved = [];
  edit(vault, "wiki/secrets.md", "# Secrets\n\nNow about zebras.\n");
  await engine.applyChanges(["wiki/secrets.md"]);
  assert.equal(engine.needsPersist, true);
  await engine.persist();
  assert.deepEqual(store.saved, [shardKey(shardOf("wiki/secrets.md")), MANIFEST_KEY]);
  assert.equal(engine.needsPersist, false);
  const restarted = engineOn(vault);
  assert.equal((await restarted.engine.start()).reingested, 0);
  assert.deepEqual(await hitPaths(restarted.engine, "zebras"), ["wiki/secrets.md"]);
  assert.deepEqual(await hitPaths(restarted.engine, "rate limiting"), await hitPaths(engine, "rate limiting"));
});

test("a shard rewritten with unchanged neighbours keeps their postings from its own file", async () => {
  const vault = freshVault();
  const { first, second } = namesSharingAShard();
  edit(vault, first, "# First\n\nPelicans fly here.\n");
  edit(vault, second, "# Second\n\nCormorants dive there.\n");
  const { engine } = engineOn(vault);
  await engine.start();
  edit(vault, second, "# Second\n\nHerons wait there.\n", 10);
  await engine.applyChanges([second]);
  await engine.persist();
  const restarted = engineOn(vault);
  assert.equal((await restarted.engine.start()).reingested, 0);
  assert.deepEqual(await hitPaths(restarted.engine, "pelicans"), [first]);
  assert.deepEqual(await hitPaths(restarted.engine, "herons"), [second]);
  assert.deepEqual(await hitPaths(restarted.engine, "cormorants"), []);
});

test("a shard file damaged after loading is rebuilt from the notes when next rewritten", async () => {
  const vault = freshVault();
  const { first, second } = namesSharingAShard();
  edit(vault, first, "# First\n\nPelicans fly here.\n");
  edit(vault, second, "# Second\n\nCormorants dive there.\n");
  const logs: LogRecord[] = [];
  const { engine, store } = engineOn(vault, logs);
  await engine.start();
  writeFileSync(store.file(shardKey(shardOf(first))), "damaged by a sync conflict");
  edit(vault, second, "# Second\n\nHerons wait there.\n", 10);
  await engine.applyChanges([second]);
  await engine.persist();
  assert.ok(logs.some((record) => record.event === "index_shard_unreadable" && record.level === "warn"));
  const restarted = engineOn(vault);
  const report = await restarted.engine.start();
  assert.equal(report.reingested, 0);
  assert.deepEqual(await hitPaths(restarted.engine, "pelicans"), [first]);
  assert.deepEqual(await hitPaths(restarted.engine, "herons"), [second]);
});

test("a crash between a shard write and the manifest costs only that shard's files", async () => {
  const vault = freshVault();
  const { engine, store } = engineOn(vault);
  await engine.start();
  const oldManifest = readFileSync(store.file(MANIFEST_KEY));
  edit(vault, "wiki/secrets.md", "# Secrets\n\nNow about zebras.\n");
  await engine.applyChanges(["wiki/secrets.md"]);
  await engine.persist();
  writeFileSync(store.file(MANIFEST_KEY), oldManifest);
  const logs: LogRecord[] = [];
  const restarted = engineOn(vault, logs);
  const report = await restarted.engine.start();
  assert.equal(report.snapshot, "loaded");
  assert.equal(report.discarded_shards, 1);
  assert.ok(report.reingested_paths?.includes("wiki/secrets.md"));
  assert.ok(report.reingested < engine.files().length);
  assert.ok(logs.some((record) => record.event === "index_discarded" && record.file === shardKey(shardOf("wiki/secrets.md"))));
  assert.deepEqual(await hitPaths(restarted.engine, "zebras"), ["wiki/secrets.md"]);
  assert.equal((await engineOn(vault).engine.start()).reingested, 0, "the next start is whole again");
});

test("a shard that lost all its files is removed from the data folder", async () => {
  const vault = freshVault();
  const { engine, store } = engineOn(vault);
  await engine.start();
  const used = new Set(engine.files().map((file) => shardOf(file.path)));
  let alone = "";
  for (let i = 0; alone === "" || used.has(shardOf(alone)); i++) alone = `alone/note-${i}.md`;
  edit(vault, alone, "# Alone\n\nOstriches.\n");
  await engine.applyChanges([alone]);
  await engine.persist();
  const shardFile = store.file(shardKey(shardOf(alone)));
  assert.ok(existsSync(shardFile));
  rmSync(path.join(vault.dir, alone));
  await engine.applyChanges([alone]);
  await engine.persist();
  assert.equal(existsSync(shardFile), false);
  const restarted = engineOn(vault);
  const report = await restarted.engine.start();
  assert.equal(report.reingested, 0);
  assert.equal(report.discarded_shards, undefined);
  assert.deepEqual(await hitPaths(restarted.engine, "ostriches"), []);
});

test("discardSnapshot removes the manifest and every shard, so the next start rebuilds", async () => {
  const vault = freshVault();
  const { engine, store } = engineOn(vault);
  await engine.start();
  assert.ok((await store.keys()).length > 1);
  await engine.discardSnapshot();
  assert.deepEqual(await store.keys(), []);
  const restarted = engineOn(vault);
  const report = await restarted.engine.start();
  assert.equal(report.snapshot, "missing");
  assert.equal(report.reingested, engine.files().length);
});

test("postings unreadable despite their checksums empty the whole load, and the start rebuilds every file", async () => {
  const vault = freshVault();
  const built = engineOn(vault);
  await built.engine.start();
  // A shard file as a faulty writer would leave it: checksum right, last postings chunk malformed.
  const shard = shardOf("wiki/secrets.md");
  const sections = decodeSnapshot(readFileSync(built.store.file(shardKey(shard))));
  sections[sections.length - 1] = encodeChunk({ terms: ["zzz"], lists: [[FIELD_COUNT + 3, 1, 0]] });
  const damaged = encodeSnapshot(sections);
  writeFileSync(built.store.file(shardKey(shard)), damaged);
  const manifest = decodeManifest(readFileSync(built.store.file(MANIFEST_KEY)));
  const entries = manifest.entries.map((entry) => (entry.shard === shard ? { ...entry, crc: snapshotChecksum(damaged)!, bytes: damaged.length } : entry));
  writeFileSync(built.store.file(MANIFEST_KEY), encodeManifest({ ...manifest, entries }));
  const logs: LogRecord[] = [];
  const restarted = engineOn(vault, logs);
  const report = await restarted.engine.start();
  assert.equal(report.snapshot, "discarded");
  assert.equal(report.added, built.engine.files().length, "every file is new to the emptied tables");
  assert.equal(report.unchanged, 0);
  assert.ok(logs.some((record) => record.event === "index_discarded" && record.file === MANIFEST_KEY));
  for (const query of QUERIES) {
    assert.deepEqual(await hitPaths(restarted.engine, query), await hitPaths(built.engine, query), query);
  }
  assert.deepEqual(restarted.engine.files(), built.engine.files());
  const again = await engineOn(vault).engine.start();
  assert.equal(again.snapshot, "loaded");
  assert.equal(again.reingested, 0, "the rebuilt snapshot loads whole");
});
