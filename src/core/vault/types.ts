// What tools, resources and prompts may ask of one vault. The engine implements it over the ports.
import type { BinaryReaderPort } from "../formats/binary";
import type { CachedMetadata } from "../notes/metadata";
import type { FileStat, HistoryPort, MetadataPort } from "../ports";
import type { ResolveOptions } from "../notes/paths";
import type { NoteFacts } from "../notes/structure";
import type { RecoveryReport } from "../write/transaction";
import type { WritePath } from "../write/write-path";
import type { ScoreExplanation } from "../search/ranking";
import type { FusionResult } from "../search/fusion";
import type { MatchedChunk, SearchMode } from "../search/semantic/hybrid";
import type { SemanticStatus } from "../search/semantic/semantic-index";
import type { TypesConfigStatus } from "../search/types-config";

export interface FileRecord extends FileStat {
  /** True for `.md` files; everything else is an attachment. */
  isNote: boolean;
  /** 32 hex chars (SPEC §5), known once the file has been read. */
  hash?: string;
}

export interface NoteSummary {
  path: string;
  /** Frontmatter `title` when it is a string, else the file's basename. */
  title: string;
  /** Normalised (SPEC §5): no leading `#`, no edge `/`, lower-cased; frontmatter and inline. */
  tags: string[];
  aliases: string[];
  words: number;
}

export interface ReadFile {
  path: string;
  bytes: Uint8Array;
  /** Decoded UTF-8, BOM kept, for files up to the text limit; absent for larger or binary files. */
  text?: string;
  content_hash: string;
  stat: FileStat;
}

export type IndexState = "ready" | "warming";

export interface VaultView {
  readonly name: string;
  /** Sorted by path. */
  files(): readonly FileRecord[];
  file(path: string): FileRecord | undefined;
  summary(path: string): NoteSummary | undefined;
  /** Title, tags, aliases, tasks and word count of a note, as of its last ingest. */
  noteFacts(path: string): NoteFacts | undefined;
  /** Who links to whom, derived from the metadata port's resolved links; rebuilt after changes. */
  incoming(path: string): ReadonlyMap<string, number>;
  metadata(): MetadataPort;
  cache(path: string): CachedMetadata | null;
  /** Reads through the path resolver (SPEC §6); throws ToolError on a bad or missing path. */
  read(path: string, options?: ResolveOptions): Promise<ReadFile>;
  /** Obsidian's settings file of that name (`daily-notes.json`, `templates.json`, `app.json`), or null. */
  appConfig(name: string): Promise<Record<string, unknown> | null>;
  /** `<vault root>/INSTRUCTIONS.md`, or null. */
  instructions(): Promise<string | null>;
  indexState(): IndexState;
}

export interface SearchHit {
  path: string;
  score: number;
  terms: string[];
  /** The parts of the lexical score, when the search asked for them and the note matched words. */
  explanation?: ScoreExplanation;
  /** How similarity and the lexical score made `score` (semantic and hybrid modes, with explain). */
  fusion?: FusionResult;
  /** The note's chunk most similar to the question (semantic and hybrid modes, with explain). */
  chunk?: MatchedChunk;
}

export interface SearchOutcome {
  /** The mode the hits were ranked in: lexical when the one asked for was unavailable (then `hint` says why). */
  mode: SearchMode;
  hint?: string;
  total: number;
  /** Present (true) when `total` is an estimate: phrases were verified only as far as the page needed. */
  total_estimated?: boolean;
  hits: SearchHit[];
}

export interface SearchOptions {
  limit: number;
  offset: number;
  filter?: (path: string) => boolean;
  /** Each hit carries the parts of its score (see core/search/ranking.ts and fusion.ts). */
  explain?: boolean;
  /** Absent: hybrid once an embedding provider's vectors are complete, else lexical. */
  mode?: SearchMode;
  /** Also notes marked `visibility: sensitive`, `draft`, `private_journal` or `needs_review` (core/search/hybrid.ts). */
  includeSensitive?: boolean;
}

/** One vault as the engine serves it: the read view plus search and lifecycle. */
export interface VaultEngine extends VaultView {
  /** The one write path of this vault (SPEC §8). */
  readonly writes: WritePath;
  /** False while the vault's folder is missing (moved or deleted); every tool on it then refuses. */
  available(): boolean;
  /**
   * The one resolver of paths from outside (SPEC §6): every tool that reads or writes a file takes
   * its path from here. Checks that it stays inside the vault through symlinks.
   */
  resolve(input: string, options?: ResolveOptions): Promise<{ path: string; stat: FileStat | null }>;
  /**
   * Refuses (ToolError invalid_path) a resolved path whose new file or folder names a vault synced to
   * Windows could not hold: reserved names, `<>:"|?*`, a trailing dot or space. The write path checks
   * every file it creates; tools call it to refuse before planning (a move, a split).
   */
  checkNewPath(path: string): void;
  trashCopies(path: string): Promise<Array<{ trash: string; when: number; bytes: number }>>;
  readTrashCopy(trash: string): Promise<Uint8Array | null>;
  /** The vault's history, or null when history is off; `status()` says whether it could be opened. */
  history(): HistoryPort | null;
  /** The host's reader of PDFs and images (core/formats/binary.ts), or null when it has none. */
  binaryReader(): BinaryReaderPort | null;
  attachHistory(history: HistoryPort | null): void;
  /** The last vault-wide change completed or undone at a start after a crash, or null. */
  lastRecovery(): RecoveryReport | null;
  search(query: string, options: SearchOptions): Promise<SearchOutcome>;
  /** The mode a search without one runs in. */
  defaultSearchMode(): SearchMode;
  /** The notes nearest in meaning to a note, by their chunks' vectors; empty without them. */
  semanticNeighbours(path: string, limit: number): Array<{ path: string; similarity: number }>;
  /** The embedding index's progress (vault_list `semantic`). */
  semanticStatus(): SemanticStatus;
  /** Whether the vault's types note (core/search/types-config.ts) is absent, loaded or invalid, and why. */
  typesConfigStatus(): Promise<TypesConfigStatus>;
  /** Reads the body text of a note (frontmatter excluded, BOM stripped), or null when unreadable. */
  bodyText(path: string): Promise<string | null>;
  /**
   * Gives the event loop back once the current stretch of synchronous work has run long (reads that
   * callers wait on go first); resolves at once otherwise. Long loops of a tool call await it often.
   */
  pause(): Promise<void>;
}
