import { after, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync, utimesSync, writeFileSync, existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import type { IndexStore, LogRecord, PinnedFile } from "../../../src/core/ports";
import { Engine } from "../../../src/core/vault/engine";
import { BASE_KEY, JOURNAL_KEY } from "../../../src/core/vault/index-files";
import { METADATA_KEY } from "../../../src/core/vault/metadata-file";
import { decodeSnapshot, encodeSnapshot } from "../../../src/core/search/snapshot";
import { FsVault } from "../../../src/hosts/node/fs-vault";
import { FsWriter } from "../../../src/hosts/node/fs-writer";
import { FileIndexStore } from "../../../src/hosts/node/index-store";
import { NodeMetadata } from "../../../src/hosts/node/node-metadata";
import { nodeHasher, setImmediateYielder, systemClock } from "../../../src/hosts/node/services";
import { EDGE_VAULT, tempVault, type TempVault } from "../../support/vaults";

const vaults: TempVault[] = [];
after(() => vaults.forEach((vault) => vault.cleanup()));

/** A file store that remembers which keys were saved (a metadata file as "metadata"). */
class RecordingStore implements IndexStore {
  readonly inner: FileIndexStore;
  saved: string[] = [];
  pin?: (key: string) => PinnedFile | null;

  /** Without `pinning`, the store reads whole files only, as the plugin's does. */
  constructor(dir: string, pinning = false) {
    this.inner = new FileIndexStore(dir);
    if (pinning) this.pin = (key) => this.inner.pin(key);
  }

  load(key: string): Promise<Uint8Array | null> {
    return this.inner.load(key);
  }

  async save(key: string, data: Uint8Array | readonly Uint8Array[]): Promise<void> {
    this.saved.push(METADATA_KEY.test(key) ? "metadata" : key);
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

function engineOn(vault: TempVault, logs: LogRecord[] = [], pinning = false): { engine: Engine; store: RecordingStore } {
  const fsVault = new FsVault(vault.dir);
  const store = new RecordingStore(vault.dataDir, pinning);
  const readNote = (relative: string): string | null => (existsSync(path.join(vault.dir, relative)) ? readFileSync(path.join(vault.dir, relative), "utf8") : null);
  const engine = new Engine({
    name: "test",
    vault: fsVault,
    metadata: new NodeMetadata({ readNote }),
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

async function hitPaths(engine: Engine, query: string): Promise<string[]> {
  return (await engine.search(query, { limit: 50, offset: 0 })).hits.map((hit) => hit.path);
}

const QUERIES = ["bucket refills", "rate limiting", '"token bucket"', "secret*", "uber", "東京", "tasks -done"];

test("a restart loads the base and answers exactly as the build that wrote it", async () => {
  const vault = freshVault();
  const built = engineOn(vault);
  const first = await built.engine.start();
  assert.equal(first.snapshot, "missing");
  assert.deepEqual(built.store.saved, ["metadata", BASE_KEY], "the notes' metadata first, then the base");
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
  assert.deepEqual(restarted.engine.metadata().resolvedLinks(), built.engine.metadata().resolvedLinks());
});

/** Every file's metadata and the link maps of two engines over the same vault. */
function assertSameMetadata(actual: Engine, expected: Engine): void {
  for (const file of expected.files()) assert.deepEqual(actual.cache(file.path), expected.cache(file.path), file.path);
  assert.deepEqual(actual.metadata().resolvedLinks(), expected.metadata().resolvedLinks());
  assert.deepEqual(actual.metadata().unresolvedLinks(), expected.metadata().unresolvedLinks());
}

test("a store that reads synchronously keeps the notes' metadata in the metadata file, read when asked for", async () => {
  const vault = freshVault();
  const built = engineOn(vault, [], true);
  await built.engine.start();
  const key = (await built.store.keys()).find((name) => METADATA_KEY.test(name))!;
  assert.ok(key);
  const restarted = engineOn(vault, [], true);
  const report = await restarted.engine.start();
  assert.equal(report.snapshot, "loaded");
  assert.equal(report.reingested, 0);
  assertSameMetadata(restarted.engine, built.engine);
  // A note changed after the start: its new metadata is the parsed one, the others still read from the file.
  edit(vault, "wiki/secrets.md", "# Secrets\n\n## Zebras\n\nSee [[Token bucket]].\n");
  await restarted.engine.applyChanges(["wiki/secrets.md"]);
  assert.deepEqual(restarted.engine.cache("wiki/secrets.md")?.headings?.map((heading) => heading.heading), ["Secrets", "Zebras"]);
  restarted.engine.close();
  built.engine.close();
});

test("a note whose stored metadata is damaged, or a metadata file that is gone, is parsed from the note again", async () => {
  const vault = freshVault();
  const built = engineOn(vault, [], true);
  await built.engine.start();
  built.engine.close();
  const key = (await built.store.keys()).find((name) => METADATA_KEY.test(name))!;
  const file = built.store.file(key);
  const bytes = readFileSync(file);
  // Flip bytes throughout the notes' part (past the header and table): every note read there fails its check.
  for (let at = bytes.length - 1; at > bytes.length / 2; at -= 7) bytes[at]! ^= 0x55;
  writeFileSync(file, bytes);
  const damaged = engineOn(vault, [], true);
  assert.equal((await damaged.engine.start()).reingested, 0);
  assertSameMetadata(damaged.engine, built.engine);
  damaged.engine.close();
  rmSync(file);
  const logs: LogRecord[] = [];
  const missing = engineOn(vault, logs, true);
  const report = await missing.engine.start();
  assert.equal(report.snapshot, "loaded");
  assert.equal(report.reingested, 0);
  assertSameMetadata(missing.engine, built.engine);
  missing.engine.close();
});

test("after a new base the notes' metadata reads from its metadata file; a note changed during the write keeps its newer one", async () => {
  const vault = freshVault();
  const { engine, store } = engineOn(vault, [], true);
  await engine.start();
  const before = (await store.keys()).filter((name) => METADATA_KEY.test(name));
  await engine.discardSnapshot();
  const writing = engine.persist();
  edit(vault, "wiki/secrets.md", "# Secrets\n\n## Written meanwhile\n", 20);
  await engine.applyChanges(["wiki/secrets.md"]);
  await writing;
  const after = (await store.keys()).filter((name) => METADATA_KEY.test(name));
  assert.equal(after.length, 1);
  assert.notDeepEqual(after, before);
  assert.deepEqual(engine.cache("wiki/secrets.md")?.headings?.map((heading) => heading.heading), ["Secrets", "Written meanwhile"]);
  const fresh = engineOn(vault, [], true);
  await fresh.engine.start();
  assertSameMetadata(engine, fresh.engine);
  engine.close();
  fresh.engine.close();
});

test("persisting after one changed note writes a small journal only; a restart replays it", async () => {
  const vault = freshVault();
  const { engine, store } = engineOn(vault);
  await engine.start();
  const baseBytes = readFileSync(store.file(BASE_KEY)).length;
  store.saved = [];
  edit(vault, "wiki/secrets.md", "# Secrets\n\nNow about zebras.\n");
  await engine.applyChanges(["wiki/secrets.md"]);
  assert.equal(engine.needsPersist, true);
  await engine.persist();
  assert.deepEqual(store.saved, [JOURNAL_KEY]);
  assert.ok(readFileSync(store.file(JOURNAL_KEY)).length < baseBytes / 2, "the journal holds one note");
  assert.equal(engine.needsPersist, false);
  const restarted = engineOn(vault);
  const report = await restarted.engine.start();
  assert.equal(report.reingested, 0);
  assert.deepEqual(restarted.store.saved, []);
  assert.deepEqual(await hitPaths(restarted.engine, "zebras"), ["wiki/secrets.md"]);
  assert.deepEqual(await hitPaths(restarted.engine, "secret*"), await hitPaths(engine, "secret*"));
  for (const query of QUERIES) assert.deepEqual(await hitPaths(restarted.engine, query), await hitPaths(engine, query), query);
  assert.deepEqual(restarted.engine.cache("wiki/secrets.md"), engine.cache("wiki/secrets.md"));
});

test("the journal keeps every change since the base: edits, new notes, attachments and deletions", async () => {
  const vault = freshVault();
  const { engine } = engineOn(vault);
  await engine.start();
  edit(vault, "new/pelican.md", "# Pelican\n\nAlbatrosses soar here.\n");
  await engine.applyChanges(["new/pelican.md"]);
  await engine.persist();
  edit(vault, "new/pelican.md", "# Pelican\n\nHerons wait there.\n", 10);
  edit(vault, "new/picture.png", "not really a picture");
  rmSync(path.join(vault.dir, "wiki/secrets.md"));
  await engine.applyChanges(["new/pelican.md", "new/picture.png", "wiki/secrets.md"]);
  await engine.persist();
  const restarted = engineOn(vault);
  const report = await restarted.engine.start();
  assert.equal(report.reingested, 0);
  assert.equal(report.removed, 0);
  assert.deepEqual(await hitPaths(restarted.engine, "herons"), ["new/pelican.md"]);
  assert.deepEqual(await hitPaths(restarted.engine, "albatrosses"), []);
  assert.equal(restarted.engine.file("wiki/secrets.md"), undefined);
  assert.ok(restarted.engine.file("new/picture.png"));
  assert.deepEqual(restarted.engine.files(), engine.files().map((file) => ({ ...file, ctime: file.mtime })));
});

test("a journal that does not follow the base, or is damaged, is ignored and what it held is re-ingested", async () => {
  for (const damage of ["other base", "garbage"] as const) {
    const vault = freshVault();
    const { engine, store } = engineOn(vault);
    await engine.start();
    edit(vault, "wiki/secrets.md", "# Secrets\n\nNow about zebras.\n");
    await engine.applyChanges(["wiki/secrets.md"]);
    await engine.persist();
    if (damage === "garbage") {
      writeFileSync(store.file(JOURNAL_KEY), "damaged by a sync conflict");
    } else {
      const journal = readFileSync(store.file(JOURNAL_KEY));
      // A new base (the reindex command) is written; the old journal comes back (a sync of an old copy).
      await engine.rebuild();
      writeFileSync(store.file(JOURNAL_KEY), journal);
      edit(vault, "wiki/secrets.md", "# Secrets\n\nNow about zebras, and giraffes.\n", 20);
    }
    const logs: LogRecord[] = [];
    const restarted = engineOn(vault, logs);
    const report = await restarted.engine.start();
    assert.equal(report.snapshot, "loaded", damage);
    assert.deepEqual(report.discarded, [JOURNAL_KEY], damage);
    assert.deepEqual(report.reingested_paths, ["wiki/secrets.md"], damage);
    assert.ok(logs.some((record) => record.event === "index_discarded" && record.file === JOURNAL_KEY && record.level === "warn"), damage);
    assert.deepEqual(await hitPaths(restarted.engine, "zebras"), ["wiki/secrets.md"], damage);
    await restarted.engine.persist();
    assert.equal((await engineOn(vault).engine.start()).reingested, 0, `${damage}: the next start is whole again`);
  }
});

test("once the journal would name too many files, the next persist writes a new base and drops the journal", async () => {
  const vault = freshVault();
  const { engine, store } = engineOn(vault);
  await engine.start();
  const names = Array.from({ length: 300 }, (_, i) => `bulk/note-${i}.md`);
  for (const name of names) edit(vault, name, `# ${name}\n\nbulkword number${name.length}\n`);
  store.saved = [];
  await engine.applyChanges(names);
  await engine.persist();
  assert.deepEqual(store.saved, ["metadata", BASE_KEY]);
  assert.equal(existsSync(store.file(JOURNAL_KEY)), false);
  assert.equal((await store.keys()).filter((key) => METADATA_KEY.test(key)).length, 1, "the old base's metadata file is removed");
  const restarted = engineOn(vault);
  const report = await restarted.engine.start();
  assert.equal(report.reingested, 0);
  assert.equal((await restarted.engine.search("bulkword", { limit: 1, offset: 0 })).total, 300);
});

test("edits made while a base is being written reach the journal after it", async () => {
  const vault = freshVault();
  const { engine } = engineOn(vault);
  await engine.start();
  await engine.discardSnapshot();
  // The base write and the edits interleave at the write's pauses.
  const writing = engine.persist();
  const edits = (async () => {
    for (let i = 0; i < 5; i++) {
      edit(vault, "wiki/secrets.md", `# Secrets\n\nVersion ${i}: kingfisher${i}.\n`, 10 + i);
      await engine.applyChanges(["wiki/secrets.md"]);
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  await Promise.all([writing, edits]);
  await engine.persist();
  const restarted = engineOn(vault);
  const report = await restarted.engine.start();
  assert.deepEqual(await hitPaths(restarted.engine, "kingfisher4"), ["wiki/secrets.md"]);
  for (const old of ["kingfisher0", "kingfisher3", "secret*"]) assert.deepEqual(await hitPaths(restarted.engine, old), await hitPaths(engine, old), old);
  assert.ok(report.reingested <= 1, `${report.reingested} re-ingested`);
});

test("discardSnapshot removes the base and the journal, so the next start rebuilds", async () => {
  const vault = freshVault();
  const { engine, store } = engineOn(vault);
  await engine.start();
  edit(vault, "wiki/secrets.md", "# Secrets\n\nNow about zebras.\n");
  await engine.applyChanges(["wiki/secrets.md"]);
  await engine.persist();
  assert.deepEqual((await store.keys()).sort().map((key) => (METADATA_KEY.test(key) ? "metadata" : key)), [BASE_KEY, JOURNAL_KEY, "metadata"]);
  await engine.discardSnapshot();
  assert.deepEqual(await store.keys(), []);
  const restarted = engineOn(vault);
  const report = await restarted.engine.start();
  assert.equal(report.snapshot, "missing");
  assert.equal(report.reingested, engine.files().length);
});

test("snapshot files of the earlier sharded layout are removed at start", async () => {
  const vault = freshVault();
  const { store } = engineOn(vault);
  await store.inner.save("index", Uint8Array.of(1));
  await store.inner.save("index-3f", Uint8Array.of(2));
  const { engine } = engineOn(vault);
  const report = await engine.start();
  assert.equal(report.snapshot, "missing");
  assert.deepEqual((await store.keys()).map((key) => (METADATA_KEY.test(key) ? "metadata" : key)).sort(), [BASE_KEY, "metadata"]);
});

test("postings unreadable despite the base's checksum empty the whole load, and the start rebuilds every file", async () => {
  const vault = freshVault();
  const built = engineOn(vault);
  await built.engine.start();
  // A base as a faulty writer would leave it: checksum right, a posting naming a note it does not have.
  const sections = decodeSnapshot(readFileSync(built.store.file(BASE_KEY)));
  const postings = sections[sections.length - 1]!.slice();
  postings[postings.length - 1] = 0x7c;
  sections[sections.length - 1] = postings;
  writeFileSync(built.store.file(BASE_KEY), encodeSnapshot(sections));
  const logs: LogRecord[] = [];
  const restarted = engineOn(vault, logs);
  const report = await restarted.engine.start();
  assert.equal(report.snapshot, "discarded");
  assert.equal(report.added, built.engine.files().length, "every file is new to the emptied tables");
  assert.equal(report.unchanged, 0);
  assert.ok(logs.some((record) => record.event === "index_discarded" && record.file === BASE_KEY));
  for (const query of QUERIES) {
    assert.deepEqual(await hitPaths(restarted.engine, query), await hitPaths(built.engine, query), query);
  }
  assert.deepEqual(restarted.engine.files(), built.engine.files());
  const again = await engineOn(vault).engine.start();
  assert.equal(again.snapshot, "loaded");
  assert.equal(again.reingested, 0, "the rebuilt snapshot loads whole");
});
