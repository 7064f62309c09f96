// One vault as the engine serves it: the file table, note facts, the search index and its snapshot.
// All I/O goes through ports, so the same engine runs in Obsidian, under Node and in memory.
import { ToolError } from "../errors";
import { contentHash } from "../notes/hash";
import type { CachedMetadata } from "../notes/metadata";
import { splitFrontmatter } from "../notes/frontmatter";
import { resolveVaultPath, extname } from "../notes/paths";
import { noteFacts, parseNote, stripBom, type NoteFacts } from "../notes/structure";
import { NoteIndex, type IndexDoc } from "../search/note-index";
import { parseQuery } from "../search/query";
import { planReconcile } from "../search/reconcile";
import { decodeSnapshot, encodeSnapshot, type SnapshotPayload } from "../search/snapshot";
import type { Clock, FileStat, Hasher, IndexStore, LinkMap, Logger, MetadataPort, VaultPort, WritePort, Yielder } from "../ports";
import { WritePath } from "../write/write-path";
import { DEFAULT_TRASH_RETENTION_DAYS, TRASH_FOLDER, parseTrashName } from "../write/trash";
import { canvasText } from "./canvas";
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
const SNAPSHOT_KEY = "index";
const SNAPSHOT_VERSION = 1;
/** Ingesting this many files between yields keeps the longest event-loop stall short. */
const INGEST_BATCH = 64;
const NAMED_PATHS_MAX = 20;

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
}

interface StoredFacts extends NoteFacts {
  hash: string;
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
  private readonly facts = new Map<string, StoredFacts>();
  private sorted: FileRecord[] | null = null;
  private index = new NoteIndex();
  private state: IndexState = "warming";
  private dirty = false;
  /** Bumped on every change to the file table; derived views compare against it. */
  private version = 0;
  private reverse: Map<string, Map<string, number>> | null = null;
  private reverseVersion = -1;

  readonly writes: WritePath;

  constructor(options: EngineOptions) {
    this.options = options;
    this.name = options.name;
    this.writes = new WritePath({
      vault: options.name,
      reader: options.vault,
      writer: options.writer,
      hasher: options.hasher,
      clock: options.clock,
      logger: options.logger,
      resolveLink: (linkpath, source) => options.metadata.getFirstLinkpathDest(linkpath, source),
      afterWrite: (paths) => this.applyChanges(paths),
    });
  }

  // ---- lifecycle -------------------------------------------------------------------------

  /** Loads the snapshot and reconciles it with the files on disk. */
  async start(): Promise<ReconcileReport> {
    const started = this.options.clock.now();
    const snapshot = await this.loadSnapshot();
    const report = await this.reconcile(snapshot.status);
    this.state = "ready";
    await this.purgeTrash();
    report.duration_ms = this.options.clock.now() - started;
    this.options.logger.log({ level: "info", event: "index_reconciled", vault: this.name, ...report });
    if (this.dirty) await this.persist();
    return report;
  }

  private async loadSnapshot(): Promise<{ status: ReconcileReport["snapshot"] }> {
    let bytes: Uint8Array | null;
    try {
      bytes = await this.options.store.load(SNAPSHOT_KEY);
    } catch (error) {
      this.logDiscard(error);
      return { status: "discarded" };
    }
    if (!bytes) return { status: "missing" };
    try {
      const payload = decodeSnapshot(bytes);
      if (payload.version !== SNAPSHOT_VERSION) throw new Error(`snapshot version ${payload.version}`);
      this.restore(payload);
      return { status: "loaded" };
    } catch (error) {
      this.logDiscard(error);
      this.records.clear();
      this.facts.clear();
      this.index = new NoteIndex();
      this.sorted = null;
      return { status: "discarded" };
    }
  }

  private logDiscard(error: unknown): void {
    const reason = error instanceof Error ? error.message : String(error);
    this.options.logger.log({ level: "warn", event: "index_discarded", vault: this.name, reason });
  }

  private restore(payload: SnapshotPayload): void {
    const extra = payload.extra ?? {};
    const metadataState = extra.metadata;
    const storedFacts = extra.facts;
    if (!Array.isArray(storedFacts)) throw new Error("snapshot without note facts");
    if (metadataState !== undefined && this.options.metadata.importState) {
      if (!this.options.metadata.importState(metadataState)) throw new Error("snapshot metadata unreadable");
    }
    const index = NoteIndex.fromJSON(payload.index);
    for (const file of payload.files) {
      this.records.set(file.path, {
        path: file.path,
        size: file.size,
        mtime: file.mtime,
        ctime: file.mtime,
        isNote: extname(file.path) === "md",
        hash: file.hash,
      });
    }
    for (const entry of storedFacts as Array<[string, StoredFacts]>) this.facts.set(entry[0], entry[1]);
    this.index = index;
  }

  /** Brings the table, metadata and index in line with the files on disk. */
  async reconcile(snapshot: ReconcileReport["snapshot"] = "loaded"): Promise<ReconcileReport> {
    const current = await this.options.vault.listFiles();
    const manifest = new Map<string, { mtime: number; size: number }>();
    for (const record of this.records.values()) manifest.set(record.path, record);
    const plan = planReconcile(manifest, current);
    const byPath = new Map(current.map((stat) => [stat.path, stat]));
    this.options.metadata.setFiles(current.map((stat) => stat.path));
    for (const path of plan.removed) this.drop(path);
    let reingested = 0;
    let sinceYield = 0;
    for (const path of [...plan.changed, ...plan.added]) {
      const stat = byPath.get(path);
      if (!stat) continue;
      await this.ingest(stat);
      reingested += 1;
      sinceYield += 1;
      if (sinceYield >= INGEST_BATCH) {
        sinceYield = 0;
        await this.options.yielder();
      }
    }
    if (plan.removed.length + reingested > 0) this.dirty = true;
    this.sorted = null;
    this.version += 1;
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
      if (!known) this.options.metadata.setFiles([...this.records.keys(), path]);
      await this.ingest(stat);
      touched = true;
    }
    if (touched) {
      this.dirty = true;
      this.sorted = null;
      this.version += 1;
    }
    if (folderChanged) await this.reconcile();
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
      this.options.logger.log({ level: "warn", event: "trash_purge_failed", vault: this.name, reason: error instanceof Error ? error.message : String(error) });
    }
    if (purged > 0) this.options.logger.log({ level: "info", event: "trash_purged", vault: this.name, count: purged });
    return purged;
  }

  /** Trash copies of one note, newest first. */
  async trashCopies(path: string): Promise<Array<{ trash: string; when: number; bytes: number }>> {
    const copies = [];
    for (const entry of await this.options.writer.listHidden(TRASH_FOLDER)) {
      const parsed = parseTrashName(entry.path.slice(TRASH_FOLDER.length + 1));
      if (parsed && parsed.originalPath === path) copies.push({ trash: entry.path, when: parsed.when, bytes: entry.size });
    }
    return copies.sort((a, b) => b.when - a.when || (a.trash < b.trash ? 1 : -1));
  }

  /** Forgets the persisted snapshot so the next start rebuilds the index from the files. */
  async discardSnapshot(): Promise<void> {
    await this.options.store.remove(SNAPSHOT_KEY);
  }

  get needsPersist(): boolean {
    return this.dirty;
  }

  async persist(): Promise<void> {
    const files = [...this.records.values()].map((record) => ({
      path: record.path,
      mtime: record.mtime,
      size: record.size,
      hash: record.hash ?? "",
    }));
    const extra: Record<string, unknown> = { facts: [...this.facts.entries()] };
    const metadataState = this.options.metadata.exportState?.();
    if (metadataState !== undefined) extra.metadata = metadataState;
    const bytes = encodeSnapshot({
      version: SNAPSHOT_VERSION,
      createdAt: this.options.clock.now(),
      files,
      index: this.index.toJSON(),
      extra,
    });
    this.dirty = false;
    await this.options.store.save(SNAPSHOT_KEY, bytes);
    this.options.logger.log({ level: "debug", event: "index_persisted", vault: this.name, bytes: bytes.byteLength });
  }

  private drop(path: string): void {
    this.records.delete(path);
    this.facts.delete(path);
    if (this.index.has(path)) this.index.remove(path);
    this.options.metadata.remove(path);
  }

  private async ingest(stat: FileStat): Promise<void> {
    const record: FileRecord = { ...stat, isNote: extname(stat.path) === "md" };
    if (!isIndexable(stat.path) || stat.size > TEXT_LIMIT_BYTES) {
      this.records.set(stat.path, record);
      if (this.index.has(stat.path)) this.index.remove(stat.path);
      return;
    }
    let bytes: Uint8Array;
    try {
      bytes = await this.options.vault.readBytes(stat.path);
    } catch {
      // Vanished between listing and reading: the watcher will report the delete.
      this.drop(stat.path);
      return;
    }
    record.hash = contentHash(bytes, (b) => this.options.hasher.sha256Hex(b));
    this.records.set(stat.path, record);
    const text = stripBom(decoder.decode(bytes));
    const doc = record.isNote ? this.noteDoc(stat.path, text, record.hash) : this.canvasDoc(stat.path, text, record.hash);
    if (this.index.has(stat.path)) this.index.replace(doc);
    else this.index.add(doc);
  }

  private noteDoc(path: string, text: string, hash: string): IndexDoc {
    this.options.metadata.update(path, text);
    const cache = this.options.metadata.getCache(path) ?? parseNote(text);
    const facts = noteFacts(text, cache, path);
    this.facts.set(path, { ...facts, hash });
    const split = splitFrontmatter(text);
    return {
      path,
      title: facts.title === baseTitle(path) ? facts.title : `${facts.title} ${baseTitle(path)}`,
      aliases: facts.aliases,
      headings: (cache.headings ?? []).map((heading) => heading.heading),
      tags: facts.tags,
      body: split.exists ? text.slice(split.contentStart) : text,
    };
  }

  private canvasDoc(path: string, text: string, hash: string): IndexDoc {
    const body = canvasText(text);
    const title = baseTitle(path);
    this.facts.set(path, { title, tags: [], aliases: [], tasks: [], words: countWords(body), hash });
    return { path, title, aliases: [], headings: [], tags: [], body };
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

  /** Maps a path from outside to a file of this vault, or throws an instructive error. */
  async resolve(input: string, options: { note?: boolean } = {}): Promise<{ path: string; stat: FileStat | null }> {
    const path = resolveVaultPath(input, options);
    if (!(await this.options.vault.isContained(path))) {
      throw new ToolError("invalid_path", `Path "${path}" leads outside the vault (through a symbolic link). Use a path inside the vault; call note_list to see them.`);
    }
    return { path, stat: await this.options.vault.stat(path) };
  }

  async read(input: string, options: { note?: boolean } = {}): Promise<ReadFile> {
    const { path, stat } = await this.resolve(input, options);
    if (!stat) throw notFound(path, this.name, options.note === true);
    const bytes = await this.options.vault.readBytes(path);
    const content_hash = contentHash(bytes, (b) => this.options.hasher.sha256Hex(b));
    const result: ReadFile = { path, bytes, content_hash, stat };
    if (bytes.byteLength <= TEXT_LIMIT_BYTES) result.text = decoder.decode(bytes);
    return result;
  }

  async bodyText(path: string): Promise<string | null> {
    const record = this.records.get(path);
    if (!record || record.size > TEXT_LIMIT_BYTES) return null;
    try {
      const text = stripBom(decoder.decode(await this.options.vault.readBytes(path)));
      if (!record.isNote) return canvasText(text);
      const split = splitFrontmatter(text);
      return split.exists ? text.slice(split.contentStart) : text;
    } catch {
      return null;
    }
  }

  async search(query: string, options: SearchOptions): Promise<SearchOutcome> {
    const parsed = parseQuery(query);
    return this.index.search(parsed, {
      limit: options.limit,
      offset: options.offset,
      filter: options.filter,
      loadText: (path) => this.bodyText(path),
    });
  }
}

const EMPTY_INCOMING: ReadonlyMap<string, number> = new Map();

function reverseLinks(resolved: LinkMap): Map<string, Map<string, number>> {
  const reverse = new Map<string, Map<string, number>>();
  for (const [source, targets] of Object.entries(resolved)) {
    for (const [target, count] of Object.entries(targets)) {
      let sources = reverse.get(target);
      if (!sources) reverse.set(target, (sources = new Map<string, number>()));
      sources.set(source, count);
    }
  }
  return reverse;
}

export function baseTitle(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}

function countWords(text: string): number {
  const matches = text.match(/[\p{L}\p{N}]+/gu);
  return matches ? matches.length : 0;
}

export function notFound(path: string, vault: string, note: boolean): ToolError {
  const what = note ? "Note" : "File";
  return new ToolError(
    "not_found",
    `${what} "${path}" does not exist in vault "${vault}". Call note_search or note_list to find the right path.`,
    { details: { path } },
  );
}
