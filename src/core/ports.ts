// The ports through which the pure engine reaches the world. Each host (Node, Obsidian, memory)
// implements them; nothing in src/core or src/tools touches a file system, a socket or a clock directly.
import type { CachedMetadata } from "./notes/metadata";
import type { FactsRecord } from "./vault/stored-facts";
import type { IndexBatch } from "./search/index-builder";

export interface FileStat {
  /** Vault-relative, "/"-separated, no leading slash, no segment starting with ".". */
  path: string;
  size: number;
  /** Milliseconds since the epoch. */
  mtime: number;
  /** Birth time where the host knows it (Obsidian's TFile.stat.ctime, Node's birthtime), else the mtime; 0 when unknown. */
  ctime: number;
}

export interface VaultPort {
  /** Every visible file of the vault (dot-folders and dot-files skipped), any extension. */
  listFiles(): Promise<FileStat[]>;
  /**
   * The same files as listFiles, for the periodic check of a running server: hosts that can stat
   * cheaply one file at a time (synchronously, against a warm cache) do so, pausing between stretches.
   */
  scanFiles?(pause: () => Promise<void>): Promise<FileStat[]>;
  /**
   * False while the vault's folder itself is missing (moved away, deleted, unmounted). Hosts whose
   * vault cannot vanish under them (Obsidian) leave it out.
   */
  present?(): boolean;
  stat(path: string): Promise<FileStat | null>;
  /** The exact bytes of the file; rejects with a ToolError("not_found") when it is missing. */
  readBytes(path: string): Promise<Uint8Array>;
  /** True when the path, with symlinks followed, stays inside the (equally resolved) vault root. */
  isContained(path: string): Promise<boolean>;
  /** A file in the vault root that is not a note but configures it, e.g. INSTRUCTIONS.md. */
  readOptionalText(path: string): Promise<string | null>;
  /** A file of Obsidian's configuration folder (`.obsidian/` or the app's configDir), e.g. `daily-notes.json`. */
  readAppConfig(name: string): Promise<string | null>;
}

export type LinkMap = Readonly<Record<string, Readonly<Record<string, number>>>>;

/** One note's parsed metadata as a snapshot keeps it: linkpaths in the clear, the cache packed. */
export interface PackedMetadata {
  /** Targets of links, embeds and frontmatter links, subpaths stripped, in order. */
  links: readonly string[];
  /** The note's CachedMetadata as core/notes/metadata-codec encodes it. */
  packed: Uint8Array;
  /** What exportNote handed out, so that importStored can tell whether the note changed since. */
  source?: unknown;
}

/**
 * Where a note's packed metadata lies in a snapshot file the index store holds open: a warm start keeps
 * every note's metadata there instead of in memory, and reads one when asked (see metadata-file.ts).
 */
export interface StoredMetadata {
  file: PinnedFile;
  start: number;
  length: number;
  /** CRC-32 of the bytes, checked on each read. */
  crc: number;
}

export interface MetadataPort {
  getCache(path: string): CachedMetadata | null;
  /** Obsidian's link resolution (obsidian-api.md §6): the destination path, or null when broken. */
  getFirstLinkpathDest(linkpath: string, sourcePath: string): string | null;
  /** Every candidate for a linkpath, best first; more than one means the link was ambiguous. */
  getLinkpathCandidates(linkpath: string, sourcePath: string): string[];
  resolvedLinks(): LinkMap;
  unresolvedLinks(): LinkMap;
  /**
   * Resolves every note's links ahead of the first resolvedLinks(), pausing between stretches of the
   * work: on a large vault that is seconds, and the first tool asking for backlinks would wait for it
   * with the event loop held. Hosts whose link maps are kept up to date anyway (Obsidian) leave it out.
   */
  prepareLinks?(pause: () => Promise<void>): Promise<void>;
  /**
   * Hosts that parse notes themselves (Node, memory) learn of changes here; the Obsidian adapter
   * ignores these calls because metadataCache follows the vault on its own.
   */
  update(path: string, text: string): void;
  remove(path: string): void;
  /** A file that is not a note (an attachment, a canvas) joins the files links can lead to. */
  addFile(path: string): void;
  /**
   * The vault's files, all of them: on 50,000 files taking them in is 30-60 ms, so the host pauses
   * between stretches of it. Until it resolves, links resolve against the files known before.
   */
  setFiles(paths: readonly string[], pause: () => Promise<void>): Promise<void>;
  /**
   * One note's parsed metadata for the index snapshot (packed now if it is not yet, and kept packed in
   * memory), so a warm start does not re-parse unchanged notes; null when the note is unknown.
   */
  exportNote?(path: string): PackedMetadata | null;
  /** Adds one note as exported, without re-parsing; a packed cache that does not decode reads as null later. */
  importNote?(path: string, note: PackedMetadata): void;
  /**
   * Adds one note whose packed metadata lies in a snapshot file (null: nowhere, parsed from the note
   * when first asked). With `replacing`, the note's metadata moves there only if it is still what
   * exportNote handed out then (a note changed meanwhile keeps its newer metadata).
   */
  importStored?(path: string, links: readonly string[], stored: StoredMetadata | null, replacing?: PackedMetadata): void;
}

/** A file a bulk ingest read and prepared off the engine's thread (see BulkIngestPort). */
export interface IngestedFile {
  path: string;
  /** content_hash of the bytes read; null when the file could not be read (it vanished meanwhile). */
  hash: string | null;
  facts?: FactsRecord;
  /** A note's parsed metadata, packed as the index snapshot keeps it. */
  metadata?: PackedMetadata;
}

export interface IngestedBatch {
  /** Which of the host's builders numbered the batch's terms: each numbers its own. */
  builder: number;
  /** In the order of the files handed over; `index` holds the readable ones, in the same order. */
  files: IngestedFile[];
  index: IndexBatch;
}

/**
 * Reads, parses and tokenizes many notes and canvases (each under the text limit) in other threads
 * than the engine's, for a large build; hosts that parse notes themselves (Node) offer it.
 */
export interface BulkIngestPort {
  /** Hands over every file's batch, in no particular order; resolves once all are handed over. */
  ingest(files: readonly FileStat[], onBatch: (batch: IngestedBatch) => Promise<void>): Promise<void>;
}

/** A key-value store for index snapshots, kept outside the vault (plugin folder or data folder). */
export interface IndexStore {
  load(key: string): Promise<Uint8Array | null>;
  /**
   * Bytes [start, end) of a file (fewer where it ends first), null when it does not exist: lets the
   * engine read the part of a large snapshot it keeps apart from the part it parses and lets go.
   */
  loadRange?(key: string, start: number, end: number): Promise<Uint8Array | null>;
  /**
   * Opens a file for synchronous reads of its bytes as they are now, also after it is replaced or
   * removed, until released; null when it does not exist. Hosts that cannot read synchronously leave
   * it out (the engine then reads the file whole).
   */
  pin?(key: string): PinnedFile | null;
  /** Writes the file whole (atomically where the host can); given in parts, they are written in order. */
  save(key: string, data: Uint8Array | readonly Uint8Array[]): Promise<void>;
  remove(key: string): Promise<void>;
  keys(): Promise<string[]>;
}

/** A store file held open (IndexStore.pin). */
export interface PinnedFile {
  /** Bytes [start, start + length), null when the file is shorter or cannot be read. */
  read(start: number, length: number): Uint8Array | null;
  /** Closes the file; reads after it return null. */
  release(): void;
}

export type LogLevel = "debug" | "info" | "warn" | "error";

export interface LogRecord {
  level: LogLevel;
  event: string;
  [field: string]: unknown;
}

/** Structured log sink. Callers must never put note content or secrets in a record (SPEC §11). */
export interface Logger {
  log(record: LogRecord): void;
}

export interface Clock {
  now(): number;
}

export interface Hasher {
  /** Lowercase hex SHA-256 of the bytes. */
  sha256Hex(bytes: Uint8Array): string;
}

/** Lets long work give the event loop back (setImmediate on Node, setTimeout(0) in Obsidian). */
export type Yielder = () => Promise<void>;

/**
 * Atomic writes, supplied by the host: the Node host writes a temp file in the same folder, fsyncs and
 * renames; the Obsidian host goes through Vault.process and re-checks the hash inside the callback.
 * `expectedHash` is the content_hash the write path saw (null: the file must not exist yet); a host
 * that finds anything else refuses with ToolError("conflict") and writes nothing.
 */
export interface WritePort {
  writeFile(path: string, bytes: Uint8Array, expectedHash: string | null): Promise<FileStat>;
  removeFile(path: string, expectedHash: string): Promise<void>;
  /**
   * Moves a file to a path that does not exist, creating its folders. In Obsidian this is
   * FileManager.renameFile, which also rewrites links as the user's settings say; elsewhere only the
   * file moves.
   */
  renameFile(from: string, to: string): Promise<void>;
  /**
   * True when renameFile may also rewrite links in other notes on its own (Obsidian's FileManager): a
   * transaction then accepts those notes as the host left them instead of calling them conflicts.
   */
  readonly renameRewritesLinks?: boolean;
  /**
   * Files the server keeps for itself under a hidden folder (trash copies); false if one exists.
   * `copyOf`: the vault file it copies, whose mode (and owner) the copy keeps where the host can.
   */
  writeHidden(path: string, bytes: Uint8Array, copyOf?: string): Promise<boolean>;
  readHidden(path: string): Promise<Uint8Array | null>;
  listHidden(folder: string): Promise<FileStat[]>;
  removeHidden(path: string): Promise<void>;
}

/**
 * The journals of vault-wide changes (SPEC §9), kept outside the vault: the data folder headless, the
 * plugin folder in Obsidian. Names are short ASCII (`txn-…`, `last-recovery`).
 */
export interface TransactionStore {
  /** Replaces the file whole; once this resolves the bytes survive a crash (temp file, fsync, rename). */
  save(name: string, bytes: Uint8Array): Promise<void>;
  load(name: string): Promise<Uint8Array | null>;
  remove(name: string): Promise<void>;
  list(): Promise<string[]>;
}

export interface HistoryMeta { tool: string; reason?: string; via?: string; user?: string }
export interface HistoryEntry { id: string; short: string; when: number; author: string; message: string; via?: string; user?: string }
export interface HistoryPort {
  status(): { versioned: true } | { versioned: false; reason: string };
  /**
   * Commits the given vault paths as they are on disk now, or, for a path in `contents`, as the write
   * left it (null: deleted), so a commit that waits in a queue records that write's version and not a
   * later one. Resolves to the commit id, or null when nothing changed. Never throws for a write: the
   * write path turns a rejection into a warning.
   */
  commit(paths: readonly string[], message: string, meta: HistoryMeta, contents?: ReadonlyMap<string, Uint8Array | null>): Promise<string | null>;
  /**
   * Called before a write touches the file: records durably which bytes (null: a deletion) the write is
   * about to leave and the commit it will make, so a crash between the write and its commit is
   * committed at the next start instead of lost. Replaces the previous record.
   */
  intend?(path: string, bytes: Uint8Array | null, message: string, meta: HistoryMeta): Promise<void>;
  /** True while the first snapshot of the vault is being recorded: a commit now would wait for it. */
  busy?(): boolean;
  /** Newest first; path null = whole vault. */
  log(path: string | null, limit: number): Promise<HistoryEntry[]>;
  /** The file's bytes at a revision (full or short id), or null when it did not exist there. */
  readAt(path: string, revision: string): Promise<Uint8Array | null>;
}
