// Loading and writing the index snapshot, a base and a journal (see index-files.ts), so that neither
// ever holds the event loop for long and a few edits never rewrite the whole index. Persisting after
// edits writes the journal: every note changed since the base, with the term vector its ingest
// produced (held until then). Once the journal would grow past a share of the vault, the vectors are
// dropped and the next persist writes a new base from the index in memory instead.
//
// Crash safety: each file is written whole and atomically (IndexStore.save). A journal names its base
// by checksum; a new base is written before the journal it makes obsolete is removed, and a journal
// naming another base is ignored, so a crash anywhere leaves a base, with or without its journal.
// Whatever a lost journal held, the reconcile at start re-ingests (those files are newer than the
// base's rows).
import { describeFailure } from "../errors";
import type { FactsTable } from "./stored-facts";
import { FIELD_COUNT, type DocVector, type NoteIndex, type StoredTerm } from "../search/note-index";
import { writeVarint, type PostingList } from "../search/posting-list";
import { SnapshotError, SnapshotSectionReader, snapshotChecksum } from "../search/snapshot";
import type { IndexStore, Logger, MetadataPort, PackedMetadata, PinnedFile, StoredMetadata } from "../ports";
import { METADATA_KEY, encodeMetadataFile, metadataKey, pinnedBytes, readMetadataTable, type MetadataEntry } from "./metadata-file";
import type { TimeSlice } from "../time-slice";
import type { FileRecord } from "./types";
import {
  BASE_HEAD_BYTES,
  BASE_KEY,
  JOURNAL_KEY,
  baseTail,
  OBSOLETE_KEY,
  decodeBase,
  decodeJournal,
  encodeBase,
  encodeJournal,
  type DecodedBase,
  type SnapshotRow,
} from "./index-files";

/** The engine's tables a snapshot covers; loading fills them, writing reads them. */
export interface SnapshotState {
  records: Map<string, FileRecord>;
  facts: FactsTable;
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
}

export interface SnapshotLoad {
  status: "loaded" | "missing" | "discarded";
  /** Snapshot files that failed their check and were ignored (their files are re-ingested). */
  discarded: string[];
}

export interface SnapshotWrite {
  files: number;
  bytes: number;
}

/**
 * The journal may name this many changed or removed files, or this share of the base's, whichever is
 * more, before a new base is written instead: past that, re-writing the journal on every persist and
 * replaying it at every start costs more than one new base.
 */
const JOURNAL_MIN_FILES = 256;
const JOURNAL_SHARE = 0.05;

export class IndexSnapshots {
  private readonly options: IndexSnapshotsOptions;
  /** The base in the store (its checksum and row count), or null when there is none to journal against. */
  private base: { id: number; rows: number } | null = null;
  /** Files changed since the base, with the vector of those that have postings. */
  private readonly changed = new Map<string, DocVector | null>();
  private readonly removed = new Set<string>();
  /** The index in memory differs from the store. */
  private stale = false;
  /** The next persist writes a base (no base yet, or the journal got too long). */
  private rewrite = true;
  private running: Promise<unknown> = Promise.resolve();
  /** The base's metadata file, held open while notes' metadata is read from it. */
  private metadataFile: PinnedFile | null = null;

  constructor(options: IndexSnapshotsOptions) {
    this.options = options;
  }

  get dirty(): boolean {
    return this.stale;
  }

  /** Whether an ingest should keep the note's term vector (it goes into the next journal). */
  wantsVectors(): boolean {
    return !this.rewrite;
  }

  /** A file was (re-)ingested: `vector` is its terms when it has postings and vectors are wanted, else null. */
  track(path: string, vector: DocVector | null, indexed: boolean): void {
    this.stale = true;
    this.removed.delete(path);
    if (this.rewrite) return;
    if (indexed && !vector) {
      this.startOver();
      return;
    }
    this.changed.set(path, vector);
    this.checkJournalSize();
  }

  forget(path: string): void {
    this.stale = true;
    if (this.rewrite) return;
    this.changed.delete(path);
    this.removed.add(path);
    this.checkJournalSize();
  }

  /** Loads the base and its journal into `state`, which must be empty. */
  async load(state: SnapshotState): Promise<SnapshotLoad> {
    const discarded: string[] = [];
    await this.removeObsolete();
    let file: Uint8Array | SnapshotSectionReader | null;
    try {
      file = await this.readBase();
    } catch (error) {
      this.logDiscard(error, BASE_KEY);
      return { status: "discarded", discarded: [BASE_KEY] };
    }
    if (!file) return { status: "missing", discarded };
    let base: DecodedBase;
    try {
      base = await decodeBase(file, () => this.options.slice.pause());
      file = null;
      await this.restoreBase(state, base, await this.openMetadata(base.id, base.rows.length));
    } catch (error) {
      this.clearState(state);
      this.releaseMetadata();
      this.logDiscard(error, BASE_KEY);
      this.stale = true;
      return { status: "discarded", discarded: [BASE_KEY] };
    }
    this.base = { id: base.id, rows: base.rows.length };
    this.rewrite = false;
    try {
      await this.replayJournal(state);
    } catch (error) {
      // The base alone is consistent: the files the journal covered are newer than its rows.
      this.logDiscard(error, JOURNAL_KEY);
      discarded.push(JOURNAL_KEY);
    }
    return { status: "loaded", discarded };
  }

  /**
   * The base file, read section by section where the store reads ranges: the parsed part in pieces let
   * go as they are parsed, what the index keeps views of (see baseTail) in one read of its own.
   */
  private async readBase(): Promise<Uint8Array | SnapshotSectionReader | null> {
    const store = this.options.store;
    const loadRange = store.loadRange?.bind(store);
    if (!loadRange) return store.load(BASE_KEY);
    const first = await loadRange(BASE_KEY, 0, BASE_HEAD_BYTES);
    if (!first) return null;
    const tail = baseTail(first);
    // Not a base of this layout: read whole, decoding says what is wrong with it.
    if (tail === null) return store.load(BASE_KEY);
    return new SnapshotSectionReader((start, end) => loadRange(BASE_KEY, start, end), first, tail, () => this.options.slice.pause());
  }

  /** Writes what changed: a journal against the base, or a new base. */
  async persist(state: SnapshotState): Promise<SnapshotWrite> {
    return this.exclusive(async () => {
      if (!this.stale) return { files: 0, bytes: 0 };
      if (this.rewrite || !this.base) return this.writeBase(state);
      return this.writeJournal(state);
    });
  }

  /** Lets go of the files held open; the engine calls it when it stops. */
  close(): void {
    this.releaseMetadata();
  }

  /** Removes every snapshot file, so the next start rebuilds the index from the files. */
  async discardAll(): Promise<void> {
    await this.exclusive(async () => {
      this.releaseMetadata();
      for (const key of await this.options.store.keys()) {
        if (key === BASE_KEY || key === JOURNAL_KEY || OBSOLETE_KEY.test(key) || METADATA_KEY.test(key)) await this.options.store.remove(key);
      }
      this.base = null;
      this.startOver();
    });
  }

  private startOver(): void {
    this.rewrite = true;
    this.stale = true;
    this.changed.clear();
    this.removed.clear();
  }

  private checkJournalSize(): void {
    const limit = Math.max(JOURNAL_MIN_FILES, Math.ceil(JOURNAL_SHARE * (this.base?.rows ?? 0)));
    if (this.changed.size + this.removed.size > limit) this.startOver();
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.running.then(work, work);
    this.running = run.catch(() => undefined);
    return run;
  }

  private logDiscard(error: unknown, key: string): void {
    this.options.logger.log({ level: "warn", event: "index_discarded", vault: this.options.vault, file: key, reason: describeFailure(error) });
  }

  private async removeObsolete(): Promise<void> {
    for (const key of await this.options.store.keys()) {
      if (OBSOLETE_KEY.test(key)) await this.options.store.remove(key);
    }
  }

  private clearState(state: SnapshotState): void {
    for (const path of state.records.keys()) state.metadata.remove(path);
    state.records.clear();
    state.facts.clear();
    state.index.clear();
  }

  /**
   * The base's metadata file, pinned, and where each row's metadata lies in it; null when there is
   * none to use (the notes' metadata is then parsed from the notes when asked for). Other bases'
   * metadata files are removed.
   */
  private async openMetadata(baseId: number, rowCount: number): Promise<Map<number, StoredMetadata> | null> {
    const store = this.options.store;
    const key = metadataKey(baseId);
    for (const other of await store.keys()) if (METADATA_KEY.test(other) && other !== key) await store.remove(other);
    this.releaseMetadata();
    let file: PinnedFile | null = null;
    if (store.pin) file = store.pin(key);
    else {
      const bytes = await store.load(key);
      if (bytes) file = pinnedBytes(bytes);
    }
    if (!file) return null;
    const table = readMetadataTable(file, baseId, rowCount);
    if (!table) {
      file.release();
      this.options.logger.log({ level: "warn", event: "index_discarded", vault: this.options.vault, file: key, reason: "not the metadata of this base" });
      return null;
    }
    this.metadataFile = file;
    return table;
  }

  private releaseMetadata(): void {
    this.metadataFile?.release();
    this.metadataFile = null;
  }

  private async restoreBase(state: SnapshotState, base: DecodedBase, stored: ReadonlyMap<number, StoredMetadata> | null): Promise<void> {
    const slice = this.options.slice;
    const lengths = new Int32Array(base.docs * FIELD_COUNT);
    for (let d = 0; d < base.docs; d++) lengths.set(base.rows[d]!.lengths!, d * FIELD_COUNT);
    for (let at = 0; at < base.rows.length; at++) {
      const row = base.rows[at]!;
      this.restoreRow(state, row);
      if (row.links && isNotePath(row.path)) state.metadata.importStored?.(row.path, row.links, stored?.get(at) ?? null);
      if (at % 256 === 255) await slice.pause();
    }
    await state.index.load(
      {
        paths: base.rows.slice(0, base.docs).map((row) => row.path),
        lengths,
        filters: base.rows.slice(0, base.docs).map((row) => row.filter),
        terms: base.terms,
        ranges: base.ranges,
        postings: base.postings,
      },
      () => slice.pause(),
    );
  }

  private restoreRow(state: SnapshotState, row: SnapshotRow): void {
    const isNote = isNotePath(row.path);
    const record: FileRecord = { path: row.path, size: row.size, mtime: row.mtime, ctime: row.mtime, isNote };
    if (row.hash !== undefined) record.hash = row.hash;
    state.records.set(row.path, record);
    if (row.facts) state.facts.set(row.path, row.facts);
    else state.facts.delete(row.path);
    if (row.metadata && row.links && isNote) state.metadata.importNote?.(row.path, { links: row.links, packed: row.metadata });
  }

  private async replayJournal(state: SnapshotState): Promise<void> {
    const bytes = await this.options.store.load(JOURNAL_KEY);
    if (!bytes) return;
    const journal = await decodeJournal(bytes, () => this.options.slice.pause());
    if (journal.base !== this.base?.id) throw new SnapshotError("format", "Index journal follows another base.");
    for (const path of journal.removed) {
      state.records.delete(path);
      state.facts.delete(path);
      state.metadata.remove(path);
      state.index.remove(path);
      this.removed.add(path);
      await this.options.slice.pause();
    }
    for (const row of journal.rows) {
      this.restoreRow(state, row);
      const vector = journal.vectors.get(row.path);
      if (vector) state.index.insert(row.path, vector);
      else state.index.remove(row.path);
      this.changed.set(row.path, vector ?? null);
      await this.options.slice.pause();
    }
  }

  /** The row of a file as the engine holds it now; null when it is gone. */
  private row(state: SnapshotState, path: string, withLengths: number[] | undefined, exports?: Map<string, PackedMetadata>): SnapshotRow | null {
    const record = state.records.get(path);
    if (!record) return null;
    const row: SnapshotRow = { path, mtime: record.mtime, size: record.size };
    if (record.hash !== undefined) row.hash = record.hash;
    const facts = state.facts.get(path);
    if (facts) row.facts = facts.record();
    if (withLengths) row.lengths = withLengths;
    if (record.isNote) {
      const packed = state.metadata.exportNote?.(path);
      if (packed) {
        row.links = packed.links;
        row.metadata = packed.packed;
        exports?.set(path, packed);
      }
    }
    return row;
  }

  private async writeJournal(state: SnapshotState): Promise<SnapshotWrite> {
    const slice = this.options.slice;
    const rows: SnapshotRow[] = [];
    const vectors = new Map<string, DocVector>();
    for (const [path, vector] of this.changed) {
      const row = this.row(state, path, vector?.lengths);
      if (!row) continue;
      if (vector) {
        if (vector.filter) row.filter = vector.filter;
        vectors.set(path, vector);
      }
      rows.push(row);
      await slice.pause();
    }
    const parts = await encodeJournal({ base: this.base!.id, createdAt: this.options.now(), rows, removed: [...this.removed], vectors }, () => slice.pause());
    await this.options.store.save(JOURNAL_KEY, parts);
    this.stale = false;
    return { files: 1, bytes: parts.reduce((sum, part) => sum + part.length, 0) };
  }

  private async writeBase(state: SnapshotState): Promise<SnapshotWrite> {
    // From here on edits are journaled against the base being written (they reach the next persist).
    this.stale = false;
    this.rewrite = false;
    this.changed.clear();
    this.removed.clear();
    try {
      return await this.encodeAndSaveBase(state);
    } catch (error) {
      this.startOver();
      throw error;
    }
  }

  private async encodeAndSaveBase(state: SnapshotState): Promise<SnapshotWrite> {
    const slice = this.options.slice;
    const index = state.index;
    const documents = await index.storedDocuments(() => slice.pause());
    const limit = index.idLimit;
    const remap = new Int32Array(limit).fill(-1);
    let dense = documents.length === limit;
    documents.forEach((document, d) => {
      remap[document.id] = d;
      if (document.id !== d) dense = false;
    });
    const rows: SnapshotRow[] = [];
    const byPath = new Map<string, SnapshotRow>();
    const exports = new Map<string, PackedMetadata>();
    for (const document of documents) {
      // An indexed file always has a record; the row keeps the numbering even if it went missing.
      const row = this.row(state, document.path, document.lengths, exports) ?? { path: document.path, mtime: -1, size: 0, lengths: document.lengths };
      if (document.filter) row.filter = document.filter;
      rows.push(row);
      byPath.set(row.path, row);
      await slice.pause();
    }
    for (const path of [...state.records.keys()]) {
      if (byPath.has(path)) continue;
      const row = this.row(state, path, undefined, exports);
      if (row) {
        rows.push(row);
        byPath.set(path, row);
      }
      await slice.pause();
    }
    const terms: string[] = [];
    const ranges: number[] = [];
    const postings: Uint8Array[] = [];
    for (const stored of index.storedTerms()) {
      // Postings appended after the documents were taken name none of them.
      const lists = dense && stored.lists.every((list) => !list || list.encoded().last < limit) ? viewLists(stored) : renumberLists(stored, remap);
      if (!lists) continue;
      terms.push(stored.term);
      for (const list of lists) {
        ranges.push(list?.length ?? 0);
        if (list && list.length > 0) postings.push(list);
      }
      await slice.pause();
    }
    // A file changed while the rows and lists above were taken may have its new row beside old or
    // partly cleaned postings: its row is marked as matching no file, so that a start whose journal is
    // lost re-ingests it (with the journal, its entry replaces it anyway).
    for (const path of [...this.changed.keys(), ...this.removed]) {
      const row = byPath.get(path);
      if (row) row.mtime = -1;
    }
    const parts = await encodeBase(
      { createdAt: this.options.now(), rows, terms, ranges: Uint32Array.from(ranges), postings },
      () => slice.pause(),
    );
    const id = snapshotChecksum(parts[0]!) ?? 0;
    const entries: MetadataEntry[] = [];
    rows.forEach((row, position) => {
      if (row.metadata && row.links) entries.push({ position, bytes: row.metadata });
    });
    const store = this.options.store;
    // The metadata first: a base whose metadata file is missing still loads (its notes are parsed when asked for).
    const metadataParts = entries.length > 0 ? await encodeMetadataFile(id, entries, () => slice.pause()) : null;
    if (metadataParts) await store.save(metadataKey(id), metadataParts);
    await store.save(BASE_KEY, parts);
    const bytes = parts.reduce((sum, part) => sum + part.length, 0) + (metadataParts?.reduce((sum, part) => sum + part.length, 0) ?? 0);
    this.base = { id, rows: rows.length };
    if (metadataParts) await this.moveMetadata(state, id, rows, exports);
    // Earlier bases' metadata files (also one a discarded base left behind).
    for (const key of await store.keys()) if (METADATA_KEY.test(key) && (!metadataParts || key !== metadataKey(id))) await store.remove(key);
    // A journal now names the old base: the next load would ignore it; removed to save room.
    await this.options.store.remove(JOURNAL_KEY);
    if (this.changed.size > 0 || this.removed.size > 0) this.stale = true;
    return { files: 1, bytes };
  }

  /**
   * Points the notes just written to the new base's metadata file at it, so that their packed bytes are
   * read from there instead of held: each only if it has not changed since it was exported.
   */
  private async moveMetadata(state: SnapshotState, id: number, rows: readonly SnapshotRow[], exports: ReadonlyMap<string, PackedMetadata>): Promise<void> {
    const store = this.options.store;
    if (!store.pin || !state.metadata.importStored) return;
    const file = store.pin(metadataKey(id));
    const table = file ? readMetadataTable(file, id, rows.length) : null;
    if (!file || !table) {
      file?.release();
      return;
    }
    let moved = 0;
    for (const [position, stored] of table) {
      const row = rows[position]!;
      const exported = exports.get(row.path);
      if (exported) state.metadata.importStored(row.path, exported.links, stored, exported);
      if (++moved % 1024 === 0) await this.options.slice.pause();
    }
    this.releaseMetadata();
    this.metadataFile = file;
  }
}

function isNotePath(path: string): boolean {
  return path.toLowerCase().endsWith(".md");
}

/** The term's lists as stored bytes (views), when the index's short ids are the base's numbering. */
function viewLists(stored: StoredTerm): Array<Uint8Array | undefined> | null {
  let any = false;
  const lists = stored.lists.map((list) => {
    if (!list || list.size === 0) return undefined;
    any = true;
    const { bytes, start, end } = list.encoded();
    return bytes.subarray(start, end);
  });
  return any ? lists : null;
}

/** The term's lists re-encoded in the base's numbering, postings of removed documents dropped. */
function renumberLists(stored: StoredTerm, remap: Int32Array): Array<Uint8Array | undefined> | null {
  let any = false;
  const lists = stored.lists.map((list) => {
    if (!list || list.size === 0) return undefined;
    const bytes = renumber(list, remap);
    if (bytes.length > 0) any = true;
    return bytes.length > 0 ? bytes : undefined;
  });
  return any ? lists : null;
}

function renumber(list: PostingList, remap: Int32Array): Uint8Array {
  const out = new Uint8Array(list.encoded().end - list.encoded().start + 16);
  let buffer = out;
  let at = 0;
  let previous = -1;
  list.forEachPosting((id, frequency) => {
    const doc = id < remap.length ? remap[id]! : -1;
    if (doc < 0) return true;
    if (at + 10 > buffer.length) {
      const grown = new Uint8Array(buffer.length * 2 + 16);
      grown.set(buffer.subarray(0, at));
      buffer = grown;
    }
    const code = frequency < 4 ? frequency : 0;
    at = writeVarint(buffer, at, (doc - previous) * 4 + code);
    if (code === 0) at = writeVarint(buffer, at, frequency);
    previous = doc;
    return true;
  });
  return buffer.subarray(0, at);
}

