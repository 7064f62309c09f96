// Loading and writing the sharded index snapshot (see index-shards.ts) so that neither ever holds the
// event loop for long: shards are decoded, merged and encoded one at a time with a yield in between,
// and only shards whose files changed are rewritten. A shard's postings are not kept apart in memory
// (that would double the index): a rewrite takes the unchanged notes' postings from the shard's own
// file and the changed notes' from the term vectors their ingest produced, held until then.
//
// Crash safety: shard files are written first, the manifest last (each write atomic). A manifest names
// each shard by checksum, so a shard rewritten after the manifest (a crash in between) no longer
// matches and is discarded on load; its files are then re-ingested, the rest of the snapshot stays.
import type { NoteFacts } from "../notes/structure";
import { FIELD_COUNT, type NoteIndex, type StoredShard } from "../search/note-index";
import { PostingsBuilder, decodeChunk, type DocVector, type PostingsChunk } from "../search/postings";
import { SnapshotError, snapshotChecksum } from "../search/snapshot";
import type { IndexStore, Logger, MetadataPort } from "../ports";
import type { TimeSlice } from "../time-slice";
import type { FileRecord } from "./types";
import {
  MANIFEST_KEY,
  SHARD_COUNT,
  decodeManifest,
  decodeShard,
  encodeManifest,
  encodeShard,
  isShardKey,
  shardKey,
  shardOf,
  type DecodedShard,
  type ManifestEntry,
  type ShardRow,
} from "./index-shards";

/** The engine's tables a snapshot covers; loading fills them, writing reads them. */
export interface SnapshotState {
  records: Map<string, FileRecord>;
  facts: Map<string, NoteFacts>;
  index: NoteIndex;
  metadata: MetadataPort;
}

export interface IndexSnapshotsOptions {
  vault: string;
  store: IndexStore;
  logger: Logger;
  /** Shared with the engine's other long work, so the budget holds across them. */
  slice: TimeSlice;
  now: () => number;
  /** Re-reads files whose persisted postings were lost (their shard file was damaged since it was loaded). */
  reingest: (paths: readonly string[]) => Promise<void>;
}

export interface SnapshotLoad {
  status: "loaded" | "missing" | "discarded";
  /** Keys of shard files that failed their check; their files are missing from the tables. */
  discarded: string[];
}

/** Notes per metadata part of a shard: packed in a few milliseconds, some 30 KB of JSON. */
const METADATA_PART_NOTES = 16;

export interface SnapshotWrite {
  shards: number;
  bytes: number;
}

interface BaseShard {
  /** Path → the note's number in the shard's postings, and its row. */
  docs: Map<string, { doc: number; row: ShardRow }>;
  indexed: number;
  chunks: PostingsChunk[];
}

export class IndexSnapshots {
  private readonly options: IndexSnapshotsOptions;
  private readonly members: Array<Set<string>> = Array.from({ length: SHARD_COUNT }, () => new Set<string>());
  /** What the store holds for each shard, as the next manifest will name it. */
  private readonly written: Array<ManifestEntry | null> = new Array<ManifestEntry | null>(SHARD_COUNT).fill(null);
  private readonly generation = new Uint32Array(SHARD_COUNT);
  private readonly dirtyShards = new Set<number>();
  private readonly pending = new Map<string, DocVector>();
  private manifestDirty = false;
  private running: Promise<unknown> = Promise.resolve();

  constructor(options: IndexSnapshotsOptions) {
    this.options = options;
  }

  get dirty(): boolean {
    return this.manifestDirty || this.dirtyShards.size > 0;
  }

  /** Term vectors of notes ingested since their shard was last written. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** A file was (re-)ingested: `vector` is what the index now holds for it, null when it has no postings. */
  track(path: string, vector: DocVector | null): void {
    const shard = shardOf(path);
    this.members[shard]!.add(path);
    if (vector) this.pending.set(path, vector);
    else this.pending.delete(path);
    this.markDirty(shard);
  }

  forget(path: string): void {
    const shard = shardOf(path);
    this.members[shard]!.delete(path);
    this.pending.delete(path);
    this.markDirty(shard);
  }

  shardOf(path: string): number {
    return shardOf(path);
  }

  /** Loads the manifest and every shard it names into `state`, which must be empty. */
  async load(state: SnapshotState): Promise<SnapshotLoad> {
    let manifestBytes: Uint8Array | null;
    try {
      manifestBytes = await this.options.store.load(MANIFEST_KEY);
    } catch (error) {
      return this.discardedManifest(error);
    }
    if (!manifestBytes) return { status: "missing", discarded: [] };
    let entries: ManifestEntry[];
    try {
      const manifest = decodeManifest(manifestBytes);
      if (manifest.shards !== SHARD_COUNT) throw new SnapshotError("version", `Index manifest has ${manifest.shards} shards, not ${SHARD_COUNT}.`);
      entries = manifest.entries;
    } catch (error) {
      return this.discardedManifest(error);
    }
    const discarded: string[] = [];
    const postings: StoredShard[] = [];
    // The next shard is read while this one is merged, so the disk and the CPU work at once.
    const read = (index: number): Promise<Uint8Array | null> | null => {
      const entry = entries[index];
      return entry ? this.options.store.load(shardKey(entry.shard)) : null;
    };
    let next = read(0);
    for (let index = 0; index < entries.length; index++) {
      const entry = entries[index]!;
      const pending = next!;
      next = read(index + 1);
      // A read that fails while an earlier shard is merged is reported when its turn comes.
      next?.catch(() => undefined);
      await this.options.slice.yield();
      const key = shardKey(entry.shard);
      try {
        const bytes = await pending;
        if (!bytes) throw new SnapshotError("truncated", "Shard file is missing.");
        const decoded = decodeShard(bytes, entry);
        postings.push(await this.restore(state, decoded));
        this.written[entry.shard] = { ...entry, bytes: bytes.length };
        for (const row of decoded.rows) this.members[entry.shard]!.add(row.path);
      } catch (error) {
        this.logDiscard(error, key);
        discarded.push(key);
        this.markDirty(entry.shard);
      }
    }
    if (discarded.length > 0) this.manifestDirty = true;
    try {
      await state.index.loadShards(postings, () => this.options.slice.pause());
    } catch (error) {
      // The postings of some shard are unreadable and the index is empty again: so is every table.
      this.logDiscard(error, MANIFEST_KEY);
      for (const members of this.members) {
        for (const path of members) {
          state.records.delete(path);
          state.facts.delete(path);
          state.metadata.remove(path);
        }
        members.clear();
      }
      this.written.fill(null);
      this.manifestDirty = true;
      return { status: "discarded", discarded: [] };
    }
    return { status: "loaded", discarded };
  }

  private discardedManifest(error: unknown): SnapshotLoad {
    this.logDiscard(error, MANIFEST_KEY);
    this.manifestDirty = true;
    return { status: "discarded", discarded: [] };
  }

  private logDiscard(error: unknown, key: string): void {
    this.options.logger.log({ level: "warn", event: "index_discarded", vault: this.options.vault, file: key, reason: describe(error) });
  }

  /**
   * Takes in a checked shard's files, facts and metadata; its postings are returned, to be merged
   * with the other shards' once all are in (see NoteIndex.loadShards).
   */
  private async restore(state: SnapshotState, shard: DecodedShard): Promise<StoredShard> {
    const notes = shard.rows.filter((row) => row.facts !== undefined && row.path.toLowerCase().endsWith(".md")).map((row) => row.path);
    const indexed = shard.rows.filter((row) => row.lengths !== undefined);
    const stored: StoredShard = {
      paths: indexed.map((row) => row.path),
      lengths: indexed.map((row) => row.lengths),
      filters: indexed.map((row) => row.filter),
      // Copied out, so the rest of the file (rows, metadata) is freed while the other shards load.
      chunks: Array.from({ length: shard.chunkCount }, (_, i) => shard.chunk(i).slice()),
    };
    state.index.checkShard(stored);
    try {
      for (let i = 0; i < shard.metadataCount; i++) {
        await this.options.slice.pause();
        const part = shard.metadata(i);
        if (state.metadata.importState && !state.metadata.importState(part)) throw new SnapshotError("format", "Shard metadata is unreadable.");
      }
    } catch (error) {
      for (const path of notes) state.metadata.remove(path);
      throw error;
    }
    for (const row of shard.rows) {
      const record: FileRecord = { path: row.path, size: row.size, mtime: row.mtime, ctime: row.mtime, isNote: row.path.toLowerCase().endsWith(".md") };
      if (row.hash !== undefined) record.hash = row.hash;
      state.records.set(row.path, record);
      if (row.facts) state.facts.set(row.path, row.facts);
    }
    return stored;
  }

  /** Writes the dirty shards `which` accepts, without the manifest (a long build writes as it goes). */
  async writeShards(state: SnapshotState, which: (shard: number) => boolean): Promise<SnapshotWrite> {
    return this.exclusive(() => this.writeDirty(state, which));
  }

  /** Writes every dirty shard, then the manifest naming the snapshot's shards. */
  async persist(state: SnapshotState): Promise<SnapshotWrite> {
    return this.exclusive(async () => {
      const summary = await this.writeDirty(state, () => true);
      if (this.manifestDirty) summary.bytes += await this.writeManifest();
      return summary;
    });
  }

  /** Removes every snapshot file, so the next start rebuilds the index from the files. */
  async discardAll(): Promise<void> {
    await this.exclusive(async () => {
      for (const key of await this.options.store.keys()) {
        if (key === MANIFEST_KEY || isShardKey(key)) await this.options.store.remove(key);
      }
      this.written.fill(null);
      this.members.forEach((members, shard) => {
        if (members.size > 0) this.markDirty(shard);
      });
      this.manifestDirty = true;
    });
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.running.then(work, work);
    this.running = run.catch(() => undefined);
    return run;
  }

  private markDirty(shard: number): void {
    this.dirtyShards.add(shard);
    this.generation[shard] = (this.generation[shard]! + 1) >>> 0;
  }

  private async writeDirty(state: SnapshotState, which: (shard: number) => boolean): Promise<SnapshotWrite> {
    const summary: SnapshotWrite = { shards: 0, bytes: 0 };
    for (const shard of [...this.dirtyShards].filter(which).sort((a, b) => a - b)) {
      await this.options.slice.yield();
      const bytes = await this.writeShard(state, shard);
      if (bytes > 0) {
        summary.shards += 1;
        summary.bytes += bytes;
      }
    }
    return summary;
  }

  private async writeShard(state: SnapshotState, shard: number): Promise<number> {
    const members = this.members[shard]!;
    let base: BaseShard | null = null;
    if (this.needsBase(state, shard)) {
      base = await this.loadBase(shard);
      const lost = [...members].filter((path) => state.index.has(path) && !this.pending.has(path) && !base?.docs.has(path));
      if (lost.length > 0) await this.options.reingest(lost);
    }
    // Captured without awaiting, as one consistent state; what is captured (records, facts, vectors,
    // the old file's postings) is never changed in place, so building the file from it can yield.
    const generation = this.generation[shard]!;
    const paths = [...members].sort(comparePaths);
    if (paths.length === 0) {
      if (this.written[shard]) this.manifestDirty = true;
      this.written[shard] = null;
      if (this.generation[shard] === generation) this.dirtyShards.delete(shard);
      return 0;
    }
    const rows: ShardRow[] = [];
    const remap = new Int32Array(base?.indexed ?? 0).fill(-1);
    const vectors: Array<[number, DocVector]> = [];
    const used = new Map<string, DocVector>();
    const notes: string[] = [];
    let doc = 0;
    for (const path of paths) {
      const record = state.records.get(path);
      if (!record) continue;
      const row: ShardRow = { path, mtime: record.mtime, size: record.size };
      if (record.hash !== undefined) row.hash = record.hash;
      const facts = state.facts.get(path);
      if (facts) row.facts = facts;
      if (state.index.has(path)) {
        const vector = this.pending.get(path);
        const old = vector ? undefined : base?.docs.get(path);
        // Postings neither pending nor in the old file: leaving the row out makes the next start
        // re-ingest the file, where writing it without postings would lose it from the index.
        if (!vector && !old) continue;
        if (vector) {
          row.lengths = vector.lengths;
          if (vector.filter) row.filter = vector.filter;
          vectors.push([doc, vector]);
          used.set(path, vector);
        } else {
          row.lengths = old!.row.lengths;
          if (old!.row.filter) row.filter = old!.row.filter;
          remap[old!.doc] = doc;
        }
        doc += 1;
      }
      if (record.isNote && facts) notes.push(path);
      rows.push(row);
    }
    const slice = this.options.slice;
    // Exporting packs each note's parsed metadata, too long to do for a whole shard at once. A note
    // changed between two parts makes the shard dirty again (rewritten next time), and a start after a
    // crash in between re-ingests it, its file being newer than its row.
    const metadata: unknown[] = [];
    if (state.metadata.exportState) {
      for (let at = 0; at < notes.length; at += METADATA_PART_NOTES) {
        metadata.push(state.metadata.exportState(notes.slice(at, at + METADATA_PART_NOTES)));
        await slice.pause();
      }
    }

    const builder = new PostingsBuilder(FIELD_COUNT);
    for (const [number, vector] of vectors) {
      builder.addVector(number, vector);
      await slice.pause();
    }
    for (const chunk of base?.chunks ?? []) {
      builder.addRenumbered(chunk, base!.indexed, remap);
      await slice.pause();
    }
    const chunks: PostingsChunk[] = [];
    for (const chunk of builder.chunkIterator(doc)) {
      chunks.push(chunk);
      await slice.pause();
    }
    const bytes = await encodeShard({ shard, rows, metadata, chunks }, slice);
    await this.options.store.save(shardKey(shard), bytes);
    this.written[shard] = { shard, crc: snapshotChecksum(bytes) ?? 0, bytes: bytes.length, docs: rows.length };
    this.manifestDirty = true;
    for (const [path, vector] of used) if (this.pending.get(path) === vector) this.pending.delete(path);
    if (this.generation[shard] === generation) this.dirtyShards.delete(shard);
    return bytes.length;
  }

  private needsBase(state: SnapshotState, shard: number): boolean {
    for (const path of this.members[shard]!) if (state.index.has(path) && !this.pending.has(path)) return true;
    return false;
  }

  /** The shard's file as last written, for the postings of its unchanged notes; null when unusable. */
  private async loadBase(shard: number): Promise<BaseShard | null> {
    const entry = this.written[shard];
    if (!entry) return null;
    try {
      const bytes = await this.options.store.load(shardKey(shard));
      if (!bytes) throw new SnapshotError("truncated", "Shard file is missing.");
      const decoded = decodeShard(bytes, entry);
      const docs = new Map<string, { doc: number; row: ShardRow }>();
      for (const row of decoded.rows) if (row.lengths !== undefined) docs.set(row.path, { doc: docs.size, row });
      const chunks: PostingsChunk[] = [];
      for (let i = 0; i < decoded.chunkCount; i++) {
        await this.options.slice.pause();
        chunks.push(decodeChunk(decoded.chunk(i), docs.size, FIELD_COUNT));
      }
      return { docs, indexed: docs.size, chunks };
    } catch (error) {
      this.options.logger.log({
        level: "warn",
        event: "index_shard_unreadable",
        vault: this.options.vault,
        file: shardKey(shard),
        reason: describe(error),
      });
      this.written[shard] = null;
      return null;
    }
  }

  private async writeManifest(): Promise<number> {
    const entries = this.written.filter((entry): entry is ManifestEntry => entry !== null);
    const bytes = encodeManifest({ createdAt: this.options.now(), shards: SHARD_COUNT, entries });
    await this.options.store.save(MANIFEST_KEY, bytes);
    this.manifestDirty = false;
    // Shard files the manifest no longer names (emptied shards, leftovers of a discarded snapshot).
    const named = new Set(entries.map((entry) => shardKey(entry.shard)));
    for (const key of await this.options.store.keys()) {
      if (isShardKey(key) && !named.has(key)) await this.options.store.remove(key);
    }
    return bytes.length;
  }
}

function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
