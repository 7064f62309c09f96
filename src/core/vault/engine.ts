// One vault as the engine serves it: the file table, note facts, the search index and its snapshot.
// All I/O goes through ports, so the same engine runs in Obsidian, under Node and in memory.
import type { BinaryReaderPort } from "../formats/binary";
import { describeFailure, ToolError } from "../errors";
import { contentHash } from "../notes/hash";
import type { CachedMetadata } from "../notes/metadata";
import { splitFrontmatter } from "../notes/frontmatter";
import { checkNewPath, comparePaths, resolveVaultPath, extname, type ResolveOptions } from "../notes/paths";
import { parseNote, stripBom, type NoteFacts } from "../notes/structure";
import { FactsTable } from "./stored-facts";
import { NoteIndex, type BatchTerms, type IndexDoc, type SearchHit as IndexHit, type SearchPage } from "../search/note-index";
import { isHidden, rankHybrid } from "../search/hybrid";
import { roundScore } from "../search/ranking";
import { parseTypesConfig, TYPES_NOTE, TypesConfigError, type TypesConfig, type TypesConfigStatus } from "../search/types-config";
import type { IndexBuilder } from "../search/index-builder";
import { parseQuery, type ParsedQuery } from "../search/query";
import { planReconcile } from "../search/reconcile";
import type {
  BulkIngestPort,
  Clock,
  FileStat,
  Hasher,
  HistoryPort,
  IndexStore,
  IngestedBatch,
  LinkMap,
  Logger,
  MetadataPort,
  TransactionStore,
  VaultPort,
  WritePort,
  Yielder,
} from "../ports";
import type { RecoveryReport, TransactionEvent } from "../write/transaction";
import { WritePath } from "../write/write-path";
import { leadsOutside, vaultFolderMissing } from "./directory";
import { DEFAULT_TRASH_RETENTION_DAYS, TRASH_FOLDER, isTrashCopyOf, parseTrashName } from "../write/trash";
import { canvasText } from "./canvas";
import { canvasDocument, noteDocument } from "./note-document";
import { SemanticIndex, type SemanticStatus } from "../search/semantic/semantic-index";
import type { EmbeddingProvider } from "../search/semantic/provider";
import type { ChunkProfile } from "../search/semantic/chunks";
import type { FusionWeights } from "../search/fusion";
import { HYBRID_CANDIDATES, semanticPage, type RankedHit, type RankedPage, type SearchMode, type VectorSide } from "../search/semantic/hybrid";
import type { VectorMatch } from "../search/semantic/vector-index";
import { EmbeddingError } from "../search/semantic/provider";

export { baseTitle } from "./note-document";
import { ForegroundWork, SLICE_BUDGET_MS, sortInSlices, TimeSlice } from "../time-slice";
import { IndexSnapshots, type SnapshotState } from "./index-snapshots";
import type {
  FileRecord,
  IndexState,
  NoteSummary,
  ReadFile,
  SearchOptions,
  SearchOutcome,
  VaultEngine,
} from "./types";

/** Files over this size are neither read as text nor indexed (SPEC §5). */
export const TEXT_LIMIT_BYTES = 4 * 1024 * 1024;
/** Files read ahead while earlier ones are parsed and indexed. */
const READ_AHEAD = 12;
/** Notes whose outgoing links are turned around between two pauses while backlinks are prepared. */
const REVERSE_PER_STEP = 512;
/** Notes per batch of a large ingest: enough to append each term's postings a run at a time. */
const BATCH_NOTES = 512;
/** Files to read and parse at least before the host's bulk ingest (other threads) pays for itself. */
const BULK_MIN_FILES = 1000;
const NAMED_PATHS_MAX = 20;
/** Lexical hits re-ranked by the types config's graph, time and type (hybrid.ts). */
const HYBRID_POOL = 50;
/** At most this many lexical hits are looked through for enough visible ones. */
const MAX_HIDDEN_POOL = 2000;
/** Files compared with the table between two chances to pause. */
const RECHECK_STEP = 1024;

export interface EngineOptions {
  name: string;
  vault: VaultPort;
  metadata: MetadataPort;
  store: IndexStore;
  hasher: Hasher;
  clock: Clock;
  logger: Logger;
  yielder: Yielder;
  writer: WritePort;
  trashRetentionDays?: number;
  /** The vault's private history (SPEC §9); absent when history is off. */
  history?: HistoryPort;
  /** Reads and parses the files of a large build in other threads, when the host can. */
  bulk?: BulkIngestPort;
  /** Parses PDFs and scales images where a hostile file cannot hold the engine's thread, when the host can. */
  binary?: BinaryReaderPort;
  /** Journals of vault-wide changes, outside the vault (SPEC §9). */
  transactions?: TransactionStore;
  /** Test hook: hears each durable step of a transaction. */
  onTransactionEvent?: (event: TransactionEvent) => void;
  /** Embeds the vault's chunks for semantic and hybrid search; absent or null: lexical search only. */
  embeddings?: EmbeddingProvider | null;
  /** How hybrid search weighs similarity against the lexical score (fusion.ts). */
  fusionWeights?: FusionWeights;
  /** The host's timer, for retrying a failed embedding provider later; returns the cancel. */
  schedule?: (ms: number, task: () => void) => () => void;
  /** Chunk profile of a note (types config); medium when absent. */
  chunkProfile?: (path: string) => ChunkProfile;
}

export interface ReconcileReport {
  unchanged: number;
  changed: number;
  added: number;
  removed: number;
  reingested: number;
  /** Named only when few, so the log line stays short on a large first build. */
  reingested_paths?: string[];
  removed_paths?: string[];
  duration_ms: number;
  snapshot: "loaded" | "missing" | "discarded";
  /** Snapshot files that failed their check and were ignored; what they held was re-ingested. */
  discarded?: string[];
}

const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

function isIndexable(path: string): boolean {
  const ext = extname(path);
  return ext === "md" || ext === "canvas";
}

export class Engine implements VaultEngine {
  readonly name: string;
  private readonly options: EngineOptions;
  private readonly records = new Map<string, FileRecord>();
  private readonly facts = new FactsTable();
  private sorted: FileRecord[] | null = null;
  private readonly index = new NoteIndex();
  private readonly semantic: SemanticIndex;
  private fusionWeights: FusionWeights | undefined;
  private readonly snapshots: IndexSnapshots;
  private readonly tables: SnapshotState;
  private state: IndexState = "warming";
  private readonly slice: TimeSlice;
  /** Reads a tool call waits on; the sliced work above lets them through first. */
  private readonly foreground = new ForegroundWork();
  /** Bumped on every change to the file table; derived views compare against it. */
  private version = 0;
  private reverse: Map<string, Map<string, number>> | null = null;
  private reverseVersion = -1;
  private progress: ((done: number, total: number) => void) | undefined;
  private historyPort: HistoryPort | null;
  /** The types note as last parsed (see loadTypesConfig). */
  private typesLoaded: { config: TypesConfig | null; status: TypesConfigStatus; mtime: number; size: number } | null = null;
  private readonly hiddenNotes = new Map<string, { mtime: number; size: number; hidden: boolean }>();
  /** Commits waiting behind the history's first snapshot. */
  private queuedCommits: Promise<unknown> = Promise.resolve();

  readonly writes: WritePath;

  constructor(options: EngineOptions) {
    this.options = options;
    this.name = options.name;
    this.historyPort = options.history ?? null;
    this.fusionWeights = options.fusionWeights;
    this.tables = { records: this.records, facts: this.facts, index: this.index, metadata: options.metadata };
    this.slice = new TimeSlice(() => options.clock.now(), options.yielder, SLICE_BUDGET_MS, this.foreground);
    this.snapshots = new IndexSnapshots({
      vault: options.name,
      store: options.store,
      logger: options.logger,
      slice: this.slice,
      now: () => options.clock.now(),
    });
    const encoder = new TextEncoder();
    this.semantic = new SemanticIndex({
      vault: options.name,
      store: options.store,
      logger: options.logger,
      slice: this.slice,
      hash: (text) => options.hasher.sha256Hex(encoder.encode(text)).slice(0, 16),
      notes: () => this.files().filter((file) => file.isNote && file.size <= TEXT_LIMIT_BYTES).map((file) => ({ path: file.path, hash: file.hash })),
      source: async (path) => {
        const body = await this.bodyText(path);
        return body === null ? null : { vault: options.name, path, title: this.facts.get(path)?.title ?? path, body };
      },
      ...(options.chunkProfile ? { profile: options.chunkProfile } : {}),
      ...(options.schedule ? { schedule: options.schedule } : {}),
    });
    this.writes = new WritePath({
      vault: options.name,
      reader: options.vault,
      writer: options.writer,
      hasher: options.hasher,
      clock: options.clock,
      logger: options.logger,
      resolveLink: (linkpath, source) => options.metadata.getFirstLinkpathDest(linkpath, source),
      afterWrite: (paths) => this.applyChanges(paths),
      checkNewPath: (path) => this.checkNewPath(path),
      commit: async (paths, message, meta, contents) => {
        const history = this.historyPort;
        if (!history || !history.status().versioned) return "recorded";
        if (history.busy?.()) {
          // A large vault's first snapshot can take a minute: the write does not wait for it.
          const queued = history.commit(paths, message, meta, contents).catch((error: unknown) => {
            options.logger.log({ level: "warn", event: "history_commit_failed", vault: this.name, tool: meta.tool, reason: describeFailure(error) });
          });
          this.queuedCommits = Promise.all([this.queuedCommits, queued]);
          return "queued";
        }
        await history.commit(paths, message, meta, contents);
        return "recorded";
      },
      intend: async (path, bytes, message, meta) => {
        const history = this.historyPort;
        // While the first snapshot is recorded a crash leaves no commit to recover: the next start
        // records the snapshot again, the files as they are then.
        if (!history?.intend || !history.status().versioned || history.busy?.()) return;
        await history.intend(path, bytes, message, meta);
      },
      commitsSettled: async () => {
        await this.queuedCommits;
      },
      ...(options.transactions ? { transactions: options.transactions } : {}),
      ...(options.onTransactionEvent ? { onTransactionEvent: options.onTransactionEvent } : {}),
    });
  }

  // ---- lifecycle -------------------------------------------------------------------------

  /** Loads the snapshot and reconciles it with the files on disk. */
  async start(): Promise<ReconcileReport> {
    const started = this.options.clock.now();
    const loaded = await this.snapshots.load(this.tables);
    const report = await this.reconcile(loaded.status);
    if (loaded.discarded.length > 0) report.discarded = loaded.discarded;
    this.state = "ready";
    await this.purgeTrash();
    report.duration_ms = this.options.clock.now() - started;
    this.options.logger.log({ level: "info", event: "index_reconciled", vault: this.name, ...report });
    if (this.snapshots.dirty) await this.persist();
    this.prepareLinks().catch((error: unknown) => {
      this.options.logger.log({ level: "warn", event: "links_not_prepared", vault: this.name, reason: describeFailure(error) });
    });
    if (this.options.embeddings) this.semantic.setProvider(this.options.embeddings);
    return report;
  }

  /**
   * Resolves every link and builds who links to whom in the background, a slice at a time, so that
   * the first backlinks a tool asks for are ready (on 50,000 notes, one pass held the event loop for
   * a second and a half). An edit meanwhile makes the result stale; `incoming` then builds it anew.
   */
  private async prepareLinks(): Promise<void> {
    const version = this.version;
    await this.options.metadata.prepareLinks?.(() => this.slice.pause());
    if (this.version !== version) return;
    const resolved = this.options.metadata.resolvedLinks();
    await this.slice.pause();
    const reverse = new Map<string, Map<string, number>>();
    let sources = 0;
    for (const source in resolved) {
      addReverse(reverse, source, resolved[source]!);
      if (++sources % REVERSE_PER_STEP === 0) await this.slice.pause();
    }
    if (this.version !== version) return;
    this.reverse = reverse;
    this.reverseVersion = version;
    this.options.logger.log({ level: "debug", event: "links_prepared", vault: this.name, sources });
  }

  /** Brings the table, metadata and index in line with the files on disk. */
  async reconcile(snapshot: ReconcileReport["snapshot"] = "loaded"): Promise<ReconcileReport> {
    const current = await this.options.vault.listFiles();
    this.requirePresent();
    return this.reconcileWith(current, snapshot);
  }

  /**
   * The safety net behind the host's change events, which can be lost (a full event queue, a folder
   * whose watch could not be set): stats every file and reconciles only when one differs from the
   * table. Null when nothing did, the common case, which then costs the stats and touches nothing
   * (a reconcile resets the sorted file list and the backlinks, which are slow to build again).
   */
  async recheck(): Promise<ReconcileReport | null> {
    const vault = this.options.vault;
    const pause = (): Promise<void> => this.slice.pause();
    const current = vault.scanFiles ? await vault.scanFiles(pause) : await vault.listFiles();
    this.requirePresent();
    await this.slice.yield();
    const seen = new Set<string>();
    let same = true;
    for (const stat of current) {
      const known = this.records.get(stat.path);
      if (!known || known.mtime !== stat.mtime || known.size !== stat.size) {
        same = false;
        break;
      }
      seen.add(stat.path);
      if (seen.size % RECHECK_STEP === 0) await this.slice.pause();
    }
    if (same && seen.size === this.records.size) return null;
    return this.reconcileWith(current, "loaded");
  }

  /** A listing taken while the folder was vanishing would read as every note deleted: it is refused. */
  private requirePresent(): void {
    if (!this.available()) throw vaultFolderMissing(this.name);
  }

  available(): boolean {
    return this.options.vault.present?.() ?? true;
  }

  private async reconcileWith(current: readonly FileStat[], snapshot: ReconcileReport["snapshot"]): Promise<ReconcileReport> {
    // Each step is a pass over every file of a large vault: the event loop gets a turn in between.
    await this.slice.yield();
    const manifest = new Map<string, { mtime: number; size: number }>();
    for (const record of this.records.values()) manifest.set(record.path, record);
    await this.slice.yield();
    const plan = planReconcile(manifest, current);
    await this.slice.yield();
    const byPath = new Map(current.map((stat) => [stat.path, stat]));
    await this.slice.yield();
    await this.options.metadata.setFiles(
      current.map((stat) => stat.path),
      () => this.slice.pause(),
    );
    await this.slice.yield();
    for (const path of plan.removed) {
      this.drop(path);
      await this.slice.pause();
    }
    const sortedPaths = await sortInSlices([...plan.changed, ...plan.added], comparePaths, () => this.slice.pause());
    const toIngest = sortedPaths.map((path) => byPath.get(path)).filter((stat): stat is FileStat => stat !== undefined);
    await this.slice.yield();
    const reingested = await this.ingestAll(toIngest);
    this.sorted = null;
    this.version += 1;
    this.semantic.touch();
    const report: ReconcileReport = {
      unchanged: plan.unchanged.length,
      changed: plan.changed.length,
      added: plan.added.length,
      removed: plan.removed.length,
      reingested,
      duration_ms: 0,
      snapshot,
    };
    const touched = [...plan.changed, ...plan.added];
    if (touched.length <= NAMED_PATHS_MAX) report.reingested_paths = touched.sort();
    if (plan.removed.length <= NAMED_PATHS_MAX) report.removed_paths = [...plan.removed];
    return report;
  }

  /**
   * Re-reads the given paths after a change reported by the host (watcher or vault events). A path
   * that is neither a file nor a known file is a folder appearing or vanishing, whose contents were
   * not reported one by one, so a reconcile follows.
   */
  async applyChanges(paths: readonly string[]): Promise<void> {
    let touched = false;
    let folderChanged = false;
    for (const path of paths) {
      const stat = await this.options.vault.stat(path);
      if (!stat) {
        // Every file is missing while the vault's folder is: the index keeps them for its return.
        if (!this.available()) break;
        if (this.records.has(path)) {
          this.drop(path);
          touched = true;
        } else {
          folderChanged = true;
        }
        continue;
      }
      const known = this.records.get(path);
      if (known && known.mtime === stat.mtime && known.size === stat.size) continue;
      if (!known) this.options.metadata.addFile(path);
      await this.ingest(stat);
      touched = true;
      await this.slice.pause();
    }
    if (touched) {
      this.sorted = null;
      this.version += 1;
      this.semantic.touch();
    }
    if (folderChanged && this.available()) await this.reconcile();
  }

  /**
   * Re-ingests the given paths even when their size and mtime are unchanged: hosts whose metadata is
   * parsed after the write (Obsidian's metadataCache) call this once the fresh metadata is there.
   */
  async reingest(paths: readonly string[]): Promise<void> {
    await this.refresh(paths);
  }

  /** Other notes' links changed (a target appeared or vanished): derived link views are rebuilt. */
  invalidateLinks(): void {
    this.version += 1;
  }

  private async refresh(paths: readonly string[]): Promise<void> {
    for (const path of paths) {
      const stat = await this.options.vault.stat(path);
      if (stat) await this.ingest(stat);
      else if (this.records.has(path)) this.drop(path);
    }
    this.sorted = null;
    this.version += 1;
    this.semantic.touch();
  }

  /** Removes trash copies older than the retention period; a failure only warns. */
  async purgeTrash(): Promise<number> {
    const cutoff = this.options.clock.now() - (this.options.trashRetentionDays ?? DEFAULT_TRASH_RETENTION_DAYS) * 86_400_000;
    let purged = 0;
    try {
      for (const entry of await this.options.writer.listHidden(TRASH_FOLDER)) {
        const parsed = parseTrashName(entry.path.slice(TRASH_FOLDER.length + 1));
        if (parsed && parsed.when < cutoff) {
          await this.options.writer.removeHidden(entry.path);
          purged += 1;
        }
      }
    } catch (error) {
      this.options.logger.log({ level: "warn", event: "trash_purge_failed", vault: this.name, reason: describeFailure(error) });
    }
    if (purged > 0) this.options.logger.log({ level: "info", event: "trash_purged", vault: this.name, count: purged });
    return purged;
  }

  /** Trash copies of one note, newest first. */
  async trashCopies(path: string): Promise<Array<{ trash: string; when: number; bytes: number }>> {
    const copies = [];
    for (const entry of await this.options.writer.listHidden(TRASH_FOLDER)) {
      const parsed = parseTrashName(entry.path.slice(TRASH_FOLDER.length + 1));
      if (parsed && isTrashCopyOf(parsed, path)) copies.push({ trash: entry.path, when: parsed.when, bytes: entry.size });
    }
    return copies.sort((a, b) => b.when - a.when || (a.trash < b.trash ? 1 : -1));
  }

  /**
   * Forgets everything indexed and the snapshot, then reads every file again (the reindex command).
   * `progress` hears after each file how many of how many are done.
   */
  async rebuild(progress?: (done: number, total: number) => void): Promise<ReconcileReport> {
    const started = this.options.clock.now();
    for (const path of [...this.records.keys()]) {
      this.drop(path);
      await this.slice.pause();
    }
    await this.snapshots.discardAll();
    this.progress = progress;
    try {
      const report = await this.reconcile("discarded");
      report.duration_ms = this.options.clock.now() - started;
      this.options.logger.log({ level: "info", event: "index_rebuilt", vault: this.name, ...report });
      await this.persist();
      return report;
    } finally {
      this.progress = undefined;
    }
  }

  /** The bytes of one trash copy listed by trashCopies, or null when it was purged meanwhile. */
  async readTrashCopy(trash: string): Promise<Uint8Array | null> {
    if (!trash.startsWith(`${TRASH_FOLDER}/`) || trash.includes("..")) return null;
    return this.options.writer.readHidden(trash);
  }

  /** Lets go of the snapshot files held open (notes' metadata is parsed again when asked for after it). */
  close(): void {
    this.snapshots.close();
    this.semantic.close();
  }

  /** Turns semantic search on with a provider (a new model re-embeds in the background) or off (null). */
  setEmbeddingProvider(provider: EmbeddingProvider | null): void {
    this.semantic.setProvider(provider);
  }

  semanticNeighbours(path: string, limit: number): Array<{ path: string; similarity: number }> {
    return this.semantic.neighbours(path, limit);
  }

  /** How hybrid search weighs its parts from now on (a config reload; the quality bench's sweep). */
  setFusionWeights(weights: FusionWeights): void {
    this.fusionWeights = weights;
  }

  semanticStatus(): SemanticStatus {
    return this.semantic.status();
  }

  /** Resolves once the background embedding pass has ended (tests, bench). */
  async semanticIdle(): Promise<void> {
    await this.semantic.idle();
  }

  /** The vectors' size in chunks, and the texts sent to the provider since the start (bench, tests). */
  semanticCounts(): { notes: number; chunks: number; textsSent: number } {
    return { notes: this.semantic.status().done, chunks: this.semantic.chunkCount, textsSent: this.semantic.textsSent };
  }

  /** Forgets the persisted snapshot so the next start rebuilds the index from the files. */
  async discardSnapshot(): Promise<void> {
    await this.snapshots.discardAll();
  }

  get needsPersist(): boolean {
    return this.snapshots.dirty;
  }

  /** Writes the shards changed since the last persist, then the manifest. */
  async persist(): Promise<void> {
    const written = await this.snapshots.persist(this.tables);
    this.options.logger.log({ level: "debug", event: "index_persisted", vault: this.name, ...written });
    await this.semantic.persist();
  }

  private drop(path: string): void {
    this.records.delete(path);
    this.facts.delete(path);
    this.hiddenNotes.delete(path);
    this.index.remove(path);
    this.options.metadata.remove(path);
    this.snapshots.forget(path);
  }

  /**
   * Ingests files in order, reading up to READ_AHEAD ahead of the one being indexed (reads are I/O,
   * indexing is CPU), yielding whenever a stretch of work ran long.
   */
  private async ingestAll(stats: readonly FileStat[]): Promise<number> {
    const bulk = this.options.bulk;
    const texts = stats.filter((stat) => this.needsText(stat));
    await this.slice.pause();
    if (bulk && texts.length >= BULK_MIN_FILES) {
      await this.ingestInBulk(bulk, stats, texts);
      return stats.length;
    }
    // Notes whose term vectors the snapshot does not need are indexed a batch at a time (see
    // index-builder.ts); the others one by one, each with its vector.
    const batch = this.snapshots.wantsVectors() ? null : this.index.newBuilder();
    const reads = new Map<number, Promise<Uint8Array | null>>();
    const launch = (position: number): void => {
      const stat = stats[position];
      if (stat && this.needsText(stat)) reads.set(position, this.readOrNull(stat.path));
    };
    for (let position = 0; position < READ_AHEAD; position++) launch(position);
    for (let position = 0; position < stats.length; position++) {
      launch(position + READ_AHEAD);
      const read = reads.get(position);
      reads.delete(position);
      this.ingestBytes(stats[position]!, read ? await read : null, batch);
      if (batch && batch.pending >= BATCH_NOTES) this.index.appendBatch(batch.take(), null);
      this.progress?.(position + 1, stats.length);
      await this.slice.pause();
    }
    if (batch && batch.pending > 0) this.index.appendBatch(batch.take(), null);
    return stats.length;
  }

  /** Files without text here, the others in the host's other threads, appended batch by batch. */
  private async ingestInBulk(bulk: BulkIngestPort, stats: readonly FileStat[], texts: readonly FileStat[]): Promise<void> {
    let done = 0;
    for (const stat of stats) {
      if (this.needsText(stat)) continue;
      this.ingestBytes(stat, null, null);
      done += 1;
      await this.slice.pause();
    }
    const byPath = new Map(texts.map((stat) => [stat.path, stat]));
    await this.slice.yield();
    const terms = new Map<number, BatchTerms>();
    await bulk.ingest(texts, async (batch: IngestedBatch) => {
      await this.slice.pause();
      for (const file of batch.files) {
        const stat = byPath.get(file.path);
        if (!stat) continue;
        if (file.hash === null) {
          // Vanished between listing and reading: the watcher will report the delete.
          this.drop(file.path);
          continue;
        }
        const record: FileRecord = { ...stat, isNote: extname(stat.path) === "md", hash: file.hash };
        this.records.set(stat.path, record);
        if (file.facts) this.facts.set(stat.path, file.facts);
        if (file.metadata) this.options.metadata.importNote?.(stat.path, file.metadata);
        this.snapshots.track(stat.path, null, true);
        await this.slice.pause();
      }
      let mapping = terms.get(batch.builder);
      if (!mapping) terms.set(batch.builder, (mapping = this.index.batchTerms()));
      await this.index.appendBatchSliced(batch.index, mapping, () => this.slice.pause());
      done += batch.files.length;
      this.progress?.(done, stats.length);
      await this.slice.yield();
    });
  }

  private needsText(stat: FileStat): boolean {
    return isIndexable(stat.path) && stat.size <= TEXT_LIMIT_BYTES;
  }

  private async readOrNull(path: string): Promise<Uint8Array | null> {
    try {
      return await this.options.vault.readBytes(path);
    } catch {
      return null;
    }
  }

  private async ingest(stat: FileStat): Promise<void> {
    this.ingestBytes(stat, this.needsText(stat) ? await this.readOrNull(stat.path) : null, null);
  }

  /**
   * `bytes` is the file's content when it is indexed, null when it could not be read. With a
   * builder, the note's postings go into its batch (the caller appends it to the index).
   */
  private ingestBytes(stat: FileStat, bytes: Uint8Array | null, batch: IndexBuilder | null): void {
    const record: FileRecord = { ...stat, isNote: extname(stat.path) === "md" };
    if (!this.needsText(stat)) {
      this.records.set(stat.path, record);
      this.facts.delete(stat.path);
      this.index.remove(stat.path);
      this.snapshots.track(stat.path, null, false);
      return;
    }
    if (bytes === null) {
      // Vanished between listing and reading: the watcher will report the delete.
      this.drop(stat.path);
      return;
    }
    record.hash = contentHash(bytes, (b) => this.options.hasher.sha256Hex(b));
    this.records.set(stat.path, record);
    const text = stripBom(decoder.decode(bytes));
    const doc = record.isNote ? this.noteDoc(stat.path, text) : this.canvasDoc(stat.path, text);
    if (batch) {
      batch.addNote(doc);
      this.snapshots.track(stat.path, null, true);
    } else {
      this.snapshots.track(stat.path, this.index.add(doc, this.snapshots.wantsVectors()), true);
    }
  }

  private noteDoc(path: string, text: string): IndexDoc {
    this.options.metadata.update(path, text);
    const prepared = noteDocument(path, text, this.options.metadata.getCache(path) ?? parseNote(text));
    this.facts.setFacts(path, prepared.facts);
    return prepared.doc;
  }

  private canvasDoc(path: string, text: string): IndexDoc {
    const prepared = canvasDocument(path, text);
    this.facts.setFacts(path, prepared.facts);
    return prepared.doc;
  }

  // ---- the read view ---------------------------------------------------------------------

  files(): readonly FileRecord[] {
    if (!this.sorted) {
      this.sorted = [...this.records.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    }
    return this.sorted;
  }

  file(path: string): FileRecord | undefined {
    return this.records.get(path);
  }

  noteFacts(path: string): NoteFacts | undefined {
    return this.facts.get(path);
  }

  incoming(path: string): ReadonlyMap<string, number> {
    if (!this.reverse || this.reverseVersion !== this.version) {
      this.reverse = reverseLinks(this.options.metadata.resolvedLinks());
      this.reverseVersion = this.version;
    }
    return this.reverse.get(path) ?? EMPTY_INCOMING;
  }

  summary(path: string): NoteSummary | undefined {
    const facts = this.facts.get(path);
    if (!facts) return undefined;
    return { path, title: facts.title, tags: facts.tags, aliases: facts.aliases, words: facts.words };
  }

  metadata(): MetadataPort {
    return this.options.metadata;
  }

  history(): HistoryPort | null {
    return this.historyPort;
  }

  binaryReader(): BinaryReaderPort | null {
    return this.options.binary ?? null;
  }

  /**
   * Completes or undoes the vault-wide changes a crash interrupted (SPEC §9). Hosts call it once the
   * history is attached (a completed change ends with its summary commit) and before serving.
   */
  async recoverTransactions(): Promise<RecoveryReport[]> {
    return this.writes.recover();
  }

  lastRecovery(): RecoveryReport | null {
    return this.writes.lastRecovery();
  }

  /** Hosts open the history after the engine exists (opening is asynchronous), then hand it over. */
  attachHistory(history: HistoryPort | null): void {
    this.historyPort = history;
  }

  cache(path: string): CachedMetadata | null {
    return this.options.metadata.getCache(path);
  }

  indexState(): IndexState {
    return this.state;
  }

  async appConfig(name: string): Promise<Record<string, unknown> | null> {
    const text = await this.options.vault.readAppConfig(name);
    if (text === null) return null;
    try {
      const parsed: unknown = JSON.parse(text);
      return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  }

  async instructions(): Promise<string | null> {
    return this.options.vault.readOptionalText("INSTRUCTIONS.md");
  }

  /**
   * The one resolver every tool's path goes through (SPEC §6): the lexical rules, then the host's
   * answer whether the path stays inside the vault, then the file's stat. The check here gives an
   * early, clear refusal; what makes it hold is that the host's reads and writes check once more, on
   * what they open, so a symbolic link swapped in after this call still leads nowhere.
   */
  async resolve(input: string, options: ResolveOptions = {}): Promise<{ path: string; stat: FileStat | null }> {
    return this.foreground.run(async () => {
      const path = resolveVaultPath(input, options);
      if (!(await this.options.vault.isContained(path))) throw leadsOutside(path);
      return { path, stat: await this.options.vault.stat(path) };
    });
  }

  checkNewPath(path: string): void {
    checkNewPath(path, (folder) => {
      const inside = `${folder}/`;
      for (const known of this.records.keys()) if (known.startsWith(inside)) return true;
      return false;
    });
  }

  async read(input: string, options: ResolveOptions = {}): Promise<ReadFile> {
    const { path, stat } = await this.resolve(input, options);
    if (!stat) throw notFound(path, this.name, Boolean(options.note) && extname(path) === "md");
    const bytes = await this.foreground.run(() => this.options.vault.readBytes(path));
    const content_hash = contentHash(bytes, (b) => this.options.hasher.sha256Hex(b));
    const result: ReadFile = { path, bytes, content_hash, stat };
    if (bytes.byteLength <= TEXT_LIMIT_BYTES) result.text = decoder.decode(bytes);
    return result;
  }

  pause(): Promise<void> {
    return this.slice.pause();
  }

  async bodyText(path: string): Promise<string | null> {
    const record = this.records.get(path);
    if (!record || record.size > TEXT_LIMIT_BYTES) return null;
    try {
      const text = stripBom(decoder.decode(await this.foreground.run(() => this.options.vault.readBytes(path))));
      if (!record.isNote) return canvasText(text);
      const split = splitFrontmatter(text);
      return split.exists ? text.slice(split.contentStart) : text;
    } catch {
      return null;
    }
  }

  /** The mode a search without one runs in: hybrid once the vectors of an enabled provider are complete. */
  defaultSearchMode(): SearchMode {
    return this.semantic.usable() && this.semantic.status().state === "ready" ? "hybrid" : "lexical";
  }

  async search(query: string, options: SearchOptions): Promise<SearchOutcome> {
    const parsed = parseQuery(query);
    const explain = options.explain === true;
    const hidden = options.includeSensitive === true ? () => false : (path: string) => this.isHiddenNote(path);
    const finish = (page: RankedPage, mode: SearchMode, hint?: string): SearchOutcome => {
      const outcome: SearchOutcome = { total: page.total, hits: page.hits, mode };
      if (page.totalEstimated) outcome.total_estimated = true;
      if (hint !== undefined) outcome.hint = hint;
      return outcome;
    };
    const requested = options.mode ?? this.defaultSearchMode();
    const status = this.semantic.status();
    if (requested === "lexical") {
      const hint = options.mode === undefined && status.error !== undefined ? `Semantic search is unavailable (${status.error}); these hits are lexical. vault_list shows its state.` : undefined;
      return finish(await this.rankedPage(parsed, options, hidden, null), "lexical", hint);
    }
    const unavailable = this.semanticUnavailable();
    if (unavailable !== null) return finish(await this.rankedPage(parsed, options, hidden, null), "lexical", `mode "${requested}" is unavailable: ${unavailable}; these hits are lexical.`);
    let vector: Float32Array;
    try {
      vector = await this.semantic.embedQuery(query);
    } catch (error) {
      const reason = error instanceof EmbeddingError ? error.message : "the embedding provider failed";
      return finish(await this.rankedPage(parsed, options, hidden, null), "lexical", `mode "${requested}" is unavailable: ${reason}; these hits are lexical. vault_list shows its state.`);
    }
    const semantic = this.semantic;
    const accept = (path: string): boolean => !hidden(path) && (options.filter === undefined || options.filter(path));
    const side: VectorSide = {
      search: (k, keep) => semantic.search(vector, k, keep),
      similarity: (path) => semantic.similarity(path, vector),
      count: (keep) => semantic.count(keep),
    };
    const partial = status.state === "embedding" ? `the vault is still being embedded (${status.done} of ${status.total} notes); notes not embedded yet are found by their words only` : undefined;
    if (requested === "semantic") return finish(semanticPage(side, { limit: options.limit, offset: options.offset, explain, filter: accept }), "semantic", partial);
    return finish(await this.rankedPage(parsed, options, hidden, side), "hybrid", partial);
  }

  /** Why semantic search cannot answer now, or null when it can. */
  private semanticUnavailable(): string | null {
    const status = this.semantic.status();
    if (status.state === "off") return "no embedding provider is enabled for this vault (see the README, semantic search)";
    if (this.semantic.usable()) return null;
    if (status.error !== undefined) return status.error;
    return `the vault's notes are being embedded (${status.done} of ${status.total}); try again shortly`;
  }

  /**
   * The lexical hits re-ranked by fusion.ts with the types config's graph, time and type and, given
   * vectors, the similarity of each hit and of the nearest notes, which join the hits.
   */
  private async rankedPage(parsed: ParsedQuery, options: SearchOptions, hidden: (path: string) => boolean, vectors: VectorSide | null): Promise<RankedPage> {
    const { config } = await this.loadTypesConfig();
    const explain = options.explain === true;
    const start = Math.max(0, options.offset);
    const wanted = start + Math.max(0, options.limit);
    // Re-ranking needs the best lexical hits beyond the page; without a types config (or vectors)
    // only the page is asked for, as before, and asked again when hidden notes took places in it.
    let pool = vectors ? Math.max(wanted, HYBRID_CANDIDATES) : config ? Math.max(wanted, HYBRID_POOL) : wanted;
    let page: SearchPage;
    let visible: IndexHit[];
    for (;;) {
      page = await this.index.search(parsed, { limit: pool, offset: 0, filter: options.filter, loadText: (path) => this.bodyText(path), explain });
      visible = page.hits.filter((hit) => !hidden(hit.path));
      if (visible.length >= wanted || page.hits.length < pool || page.total <= pool) break;
      pool = Math.min(Math.max(pool * 4, wanted + 2 * (pool - visible.length)), MAX_HIDDEN_POOL);
      if (pool <= page.hits.length) break;
    }
    const hiddenSeen = page.hits.length - visible.length;
    const byPath = new Map(visible.map((hit) => [hit.path, hit]));
    const accept = (path: string): boolean => {
      const record = this.records.get(path);
      return record !== undefined && record.isNote && !hidden(path) && (options.filter === undefined || options.filter(path));
    };
    // The nearest notes, and each lexical hit's similarity: rankHybrid joins the first to the hits.
    const matches = new Map<string, VectorMatch>();
    if (vectors) {
      for (const match of vectors.search(pool, accept)) matches.set(match.path, match);
      for (const hit of visible) {
        if (matches.has(hit.path)) continue;
        const match = vectors.similarity(hit.path);
        if (match) matches.set(hit.path, match);
      }
    }
    const ranked = rankHybrid(
      visible.map((hit) => ({ path: hit.path, lexical: hit.score })),
      {
        config,
        now: this.options.clock.now(),
        bestLexical: visible[0]?.score ?? 0,
        // A note the graph reaches was never checked against +words, phrases or -words.
        join: parsed.required.length === 0 && parsed.excluded.length === 0 && parsed.phrases.length === 0 && parsed.excludedPhrases.length === 0 && parsed.groups.length === 0,
        mtime: (path) => this.records.get(path)?.mtime ?? null,
        accept,
        ...(vectors ? { similarity: new Map([...matches].map(([path, match]) => [path, match.similarity])) } : {}),
        ...(this.fusionWeights ? { weights: this.fusionWeights } : {}),
        graph: {
          cache: (path) => this.options.metadata.getCache(path),
          resolve: (linkpath, source) => this.options.metadata.getFirstLinkpathDest(linkpath, source),
          incoming: (path) => this.incoming(path),
          skip: hidden,
        },
      },
      comparePaths,
    );
    const joined = ranked.length - visible.length;
    const hits: RankedHit[] = ranked.slice(start, wanted).map(({ path, result }) => {
      const lexical = byPath.get(path);
      const hit: RankedHit = { path, score: roundScore(result.score), terms: lexical?.terms ?? [] };
      if (explain) {
        if (lexical?.explanation) hit.explanation = lexical.explanation;
        hit.fusion = result;
        const match = matches.get(path);
        if (match) hit.chunk = { index: match.chunk.index, heading: match.chunk.heading, similarity: roundScore(match.similarity) };
      }
      return hit;
    });
    const result: RankedPage = { total: Math.max(0, page.total - hiddenSeen) + joined, hits };
    if (page.totalEstimated) result.totalEstimated = true;
    return result;
  }

  async typesConfigStatus(): Promise<TypesConfigStatus> {
    return (await this.loadTypesConfig()).status;
  }

  /** The vault's types config (chunk profiles, weights), or null when its note is absent or invalid. */
  async typesConfig(): Promise<TypesConfig | null> {
    return (await this.loadTypesConfig()).config;
  }

  /** The types note, parsed again only when its size or mtime changed; never throws. */
  private async loadTypesConfig(): Promise<{ config: TypesConfig | null; status: TypesConfigStatus }> {
    const record = this.records.get(TYPES_NOTE);
    if (!record) return { config: null, status: { state: "absent", path: TYPES_NOTE } };
    const known = this.typesLoaded;
    if (known && known.mtime === record.mtime && known.size === record.size) return known;
    let loaded: { config: TypesConfig | null; status: TypesConfigStatus };
    try {
      const text = stripBom(decoder.decode(await this.foreground.run(() => this.options.vault.readBytes(TYPES_NOTE))));
      const config = parseTypesConfig(text);
      loaded = { config, status: { state: "loaded", path: TYPES_NOTE, types: config.types.size, relations: config.relationWeights.size } };
    } catch (error) {
      const reason = error instanceof TypesConfigError ? error.message : `It could not be read (${describeFailure(error)}).`;
      loaded = { config: null, status: { state: "invalid", path: TYPES_NOTE, error: `${reason} Until it is fixed, note_search ranks by words alone.` } };
      // The reason quotes keys of a note: it goes to vault_list, not to the log.
      this.options.logger.log({ level: "warn", event: "types_config_invalid", vault: this.name });
    }
    this.typesLoaded = { ...loaded, mtime: record.mtime, size: record.size };
    return loaded;
  }

  /** Hidden from note_search unless asked for (hybrid.ts isHidden); remembered per mtime and size. */
  private isHiddenNote(path: string): boolean {
    const record = this.records.get(path);
    if (!record) return false;
    const known = this.hiddenNotes.get(path);
    if (known && known.mtime === record.mtime && known.size === record.size) return known.hidden;
    const hidden = record.isNote && isHidden(this.options.metadata.getCache(path)?.frontmatter);
    this.hiddenNotes.set(path, { mtime: record.mtime, size: record.size, hidden });
    return hidden;
  }
}

const EMPTY_INCOMING: ReadonlyMap<string, number> = new Map();


function reverseLinks(resolved: LinkMap): Map<string, Map<string, number>> {
  const reverse = new Map<string, Map<string, number>>();
  for (const source in resolved) addReverse(reverse, source, resolved[source]!);
  return reverse;
}

function addReverse(reverse: Map<string, Map<string, number>>, source: string, targets: Readonly<Record<string, number>>): void {
  for (const target in targets) {
    let sources = reverse.get(target);
    if (!sources) reverse.set(target, (sources = new Map<string, number>()));
    sources.set(source, targets[target]!);
  }
}

export function notFound(path: string, vault: string, note: boolean): ToolError {
  const what = note ? "Note" : "File";
  return new ToolError(
    "not_found",
    `${what} "${path}" does not exist in vault "${vault}". Call note_search or note_list to find the right path.`,
    { details: { path } },
  );
}
