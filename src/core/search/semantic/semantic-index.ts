// A vault's semantic index: which notes have vectors of the current model, the background pass that
// embeds the others, and its persistence beside the search index. The pass compares each note's
// content_hash with the one its vectors were made from, so a start after a restart sends nothing, and
// an edited note is chunked again but only its changed chunks are sent. Every step gives the event
// loop back (time-slice.ts); the provider's failures are recorded and retried later, never thrown.
import type { IndexStore, Logger } from "../../ports";
import type { TimeSlice } from "../../time-slice";
import { chunkNote, DEFAULT_CHUNK_PROFILE, type Chunk, type ChunkProfile, type ChunkSource } from "./chunks";
import { EmbeddingError, type EmbeddingProvider } from "./provider";
import { normalize, quantize, VectorIndex, type StoredChunk, type VectorMatch } from "./vector-index";

export const VECTORS_KEY = "semantic-vectors";

export type SemanticState = "off" | "loading" | "embedding" | "ready" | "failed";

export interface SemanticStatus {
  state: SemanticState;
  /** Notes whose vectors are current. */
  done: number;
  /** Notes to embed in all. */
  total: number;
  /** The model of the vectors (the provider's), null when off. */
  model: string | null;
  /** Why the last request to the provider failed, while it has not succeeded since. */
  error?: string;
}

export interface NoteToEmbed {
  path: string;
  /** content_hash of the note as indexed; undefined when not known (the note is chunked to find out). */
  hash: string | undefined;
}

export interface SemanticIndexOptions {
  vault: string;
  store: IndexStore;
  logger: Logger;
  slice: TimeSlice;
  /** A short hash of a chunk's text. */
  hash: (text: string) => string;
  /** The vault's notes now. */
  notes: () => readonly NoteToEmbed[];
  /** The note's title and body as they are now; null when it cannot be read. */
  source: (path: string) => Promise<ChunkSource | null>;
  profile?: (path: string) => ChunkProfile;
  /** Retries after a failure wait this long, doubling up to RETRY_MAX_MS (default RETRY_FIRST_MS). */
  retryMs?: number;
  /** Runs `task` after `ms` (the host's timer); returns its cancel. Absent: a failure is retried at the next change only. */
  schedule?: (ms: number, task: () => void) => () => void;
}

export const RETRY_FIRST_MS = 30_000;
/** Chunks of a note that ask for its neighbours: a long note's first ones say what it is about. */
const NEIGHBOUR_CHUNKS = 8;
export const RETRY_MAX_MS = 600_000;
/**
 * Chunks embedded between two saves of a long pass, so a stop midway keeps most of the work: at least
 * this many, and a quarter of what the index holds, so that a large first pass saves a few times only.
 */
const SAVE_EVERY_CHUNKS = 4096;

interface Pending {
  path: string;
  noteHash: string;
  chunks: Chunk[];
  reuse: Map<string, StoredChunk>;
}

function failureText(error: unknown): string {
  if (error instanceof EmbeddingError) return error.message;
  return "the embedding provider failed unexpectedly";
}

export class SemanticIndex {
  private readonly options: SemanticIndexOptions;
  private provider: EmbeddingProvider | null = null;
  private index: VectorIndex | null = null;
  private loaded = false;
  private state: SemanticState = "off";
  private done = 0;
  private total = 0;
  private error: string | undefined;
  private running: Promise<void> | null = null;
  private again = false;
  private dirty = false;
  private cancelRetry: (() => void) | null = null;
  private retryDelay: number;
  private closed = false;
  /** Test and bench hook: counts texts sent to the provider. */
  textsSent = 0;

  constructor(options: SemanticIndexOptions) {
    this.options = options;
    this.retryDelay = options.retryMs ?? RETRY_FIRST_MS;
  }

  status(): SemanticStatus {
    const status: SemanticStatus = { state: this.state, done: this.done, total: this.total, model: this.provider?.model ?? null };
    if (this.error !== undefined) status.error = this.error;
    return status;
  }

  /** The provider to embed with, or null to turn semantic search off; a new model re-embeds in the background. */
  setProvider(provider: EmbeddingProvider | null): void {
    this.provider = provider;
    this.error = undefined;
    this.clearRetry();
    this.retryDelay = this.options.retryMs ?? RETRY_FIRST_MS;
    if (!provider) {
      this.state = "off";
      this.done = 0;
      this.total = 0;
      return;
    }
    this.state = this.loaded ? "embedding" : "loading";
    this.touch();
  }

  /** Something in the vault changed: the pass runs (again) once the current one ends. */
  touch(): void {
    if (!this.provider || this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.run().finally(() => {
      this.running = null;
    });
  }

  /** Resolves once no pass is running (tests, bench). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Ready for queries: a provider and vectors of its model. */
  usable(): boolean {
    return this.provider !== null && this.index !== null && this.index.model === this.provider.model && this.index.size > 0;
  }

  /** The question as a unit vector; throws EmbeddingError (recorded in the status) when the provider fails. */
  async embedQuery(text: string): Promise<Float32Array> {
    const provider = this.provider;
    if (!provider) throw new EmbeddingError("unreachable", "no embedding provider is enabled");
    try {
      const [vector] = await provider.embed([text], "query");
      if (!vector || vector.length !== this.index?.dims) throw new EmbeddingError("bad_response", `the embedding model gave a vector of another length than the index's; it re-embeds the vault`);
      return normalize(vector);
    } catch (error) {
      this.fail(error);
      throw error instanceof EmbeddingError ? error : new EmbeddingError("bad_response", failureText(error));
    }
  }

  search(query: Float32Array, k: number, accept?: (path: string) => boolean): VectorMatch[] {
    return this.index?.search(query, k, accept) ?? [];
  }

  /**
   * The notes nearest to one note: each of its first chunks is a question, and a neighbour scores its
   * best similarity to any of them. Empty when the note has no vectors of the current model.
   */
  neighbours(path: string, k: number): Array<{ path: string; similarity: number }> {
    const index = this.index;
    if (!index || !this.usable()) return [];
    const best = new Map<string, number>();
    const chunks = index.get(path)?.chunks ?? [];
    for (let i = 0; i < Math.min(chunks.length, NEIGHBOUR_CHUNKS); i++) {
      const stored = index.vectorOf(path, i);
      if (!stored || stored.scale === 0) continue;
      const query = normalize(Float32Array.from(stored.vector, (value) => value * stored.scale));
      for (const match of index.search(query, k, (other) => other !== path)) best.set(match.path, Math.max(best.get(match.path) ?? -1, match.similarity));
    }
    return [...best.entries()]
      .map(([other, similarity]) => ({ path: other, similarity }))
      .sort((a, b) => b.similarity - a.similarity || (a.path < b.path ? -1 : 1))
      .slice(0, k);
  }

  /** Notes with vectors that pass the filter. */
  count(accept?: (path: string) => boolean): number {
    if (!this.index) return 0;
    if (!accept) return this.index.size;
    let count = 0;
    for (const path of this.index.paths()) if (accept(path)) count += 1;
    return count;
  }

  similarity(path: string, query: Float32Array): VectorMatch | null {
    return this.index?.similarity(path, query) ?? null;
  }

  get chunkCount(): number {
    return this.index?.chunkCount ?? 0;
  }

  /** Writes the vectors when they changed since the last save. */
  async persist(): Promise<void> {
    if (!this.dirty || !this.index) return;
    this.dirty = false;
    await this.options.store.save(VECTORS_KEY, await this.index.encode(() => this.options.slice.pause()));
    this.options.logger.log({ level: "debug", event: "vectors_persisted", vault: this.options.vault, notes: this.index.size, chunks: this.index.chunkCount });
  }

  close(): void {
    this.closed = true;
    this.clearRetry();
  }

  private clearRetry(): void {
    this.cancelRetry?.();
    this.cancelRetry = null;
  }

  private fail(error: unknown): void {
    this.state = "failed";
    this.error = failureText(error);
    this.options.logger.log({ level: "warn", event: "embedding_failed", vault: this.options.vault, reason: this.error });
  }

  private async load(model: string): Promise<void> {
    if (!this.loaded) {
      this.loaded = true;
      try {
        const bytes = await this.options.store.load(VECTORS_KEY);
        if (bytes) this.index = await VectorIndex.decode(bytes, () => this.options.slice.pause());
      } catch (error) {
        this.options.logger.log({ level: "warn", event: "vectors_discarded", vault: this.options.vault, reason: error instanceof Error ? error.message : "unreadable" });
        this.index = null;
      }
      await this.options.slice.yield();
    }
    if (this.index?.model !== model) {
      if (this.index) this.options.logger.log({ level: "info", event: "vectors_model_changed", vault: this.options.vault, notes: this.index.size });
      this.index = new VectorIndex(model);
      this.dirty = true;
    }
  }

  private async run(): Promise<void> {
    do {
      this.again = false;
      const provider = this.provider;
      if (!provider || this.closed) return;
      try {
        await this.pass(provider);
      } catch (error) {
        if (this.provider !== provider) continue;
        this.fail(error);
        this.scheduleRetry();
        return;
      }
    } while (this.again);
  }

  private scheduleRetry(): void {
    if (this.closed || !this.options.schedule) return;
    this.clearRetry();
    const delay = this.retryDelay;
    this.retryDelay = Math.min(RETRY_MAX_MS, delay * 2);
    this.cancelRetry = this.options.schedule(delay, () => {
      this.cancelRetry = null;
      this.touch();
    });
  }

  private async pass(provider: EmbeddingProvider): Promise<void> {
    await this.load(provider.model);
    const index = this.index!;
    const notes = this.options.notes();
    const present = new Set<string>();
    const todo: NoteToEmbed[] = [];
    for (const note of notes) {
      present.add(note.path);
      const stored = index.get(note.path);
      if (!stored || note.hash === undefined || stored.noteHash !== note.hash) todo.push(note);
      if (present.size % 2048 === 0) await this.options.slice.pause();
    }
    for (const path of [...index.paths()]) {
      if (present.has(path)) continue;
      index.remove(path);
      this.dirty = true;
    }
    this.total = notes.length;
    this.done = notes.length - todo.length;
    if (todo.length > 0) this.state = "embedding";
    let pending: Pending[] = [];
    let missing = 0;
    let sinceSave = 0;
    const flush = async (): Promise<void> => {
      const embedded = await this.embedPending(provider, pending);
      if (this.provider !== provider) return;
      for (const note of pending) index.set(note.path, { noteHash: note.noteHash, chunks: note.chunks.map((chunk) => embedded.get(chunk.hash) ?? note.reuse.get(chunk.hash)!).map((stored, i) => ({ ...stored, index: i, heading: note.chunks[i]!.heading })) });
      this.done += pending.length;
      this.dirty = this.dirty || pending.length > 0;
      sinceSave += missing;
      pending = [];
      missing = 0;
      // A pass that succeeds clears the failure it may have recovered from.
      this.error = undefined;
      this.retryDelay = this.options.retryMs ?? RETRY_FIRST_MS;
      if (sinceSave >= Math.max(SAVE_EVERY_CHUNKS, index.chunkCount / 4)) {
        sinceSave = 0;
        await this.persist();
      }
    };
    for (const note of todo) {
      if (this.provider !== provider || this.closed) return;
      const source = await this.options.source(note.path);
      if (source === null) {
        this.done += 1;
        continue;
      }
      const chunks = chunkNote(source, this.options.profile?.(note.path) ?? DEFAULT_CHUNK_PROFILE, this.options.hash);
      const reuse = new Map<string, StoredChunk>();
      const stored = index.get(note.path);
      const needed = new Set(chunks.map((chunk) => chunk.hash));
      stored?.chunks.forEach((meta, i) => {
        if (!needed.has(meta.hash) || reuse.has(meta.hash)) return;
        const vector = index.vectorOf(note.path, i);
        if (vector) reuse.set(meta.hash, { ...meta, ...vector });
      });
      pending.push({ path: note.path, noteHash: note.hash ?? "", chunks, reuse });
      missing += chunks.filter((chunk) => !reuse.has(chunk.hash)).length;
      if (missing >= provider.batchSize) await flush();
      await this.options.slice.pause();
    }
    if (pending.length > 0) await flush();
    if (this.provider !== provider) return;
    this.state = "ready";
    this.error = undefined;
    await this.persist();
  }

  /** Embeds the chunks of the pending notes that have no vector yet, a request at a time, pausing between. */
  private async embedPending(provider: EmbeddingProvider, pending: readonly Pending[]): Promise<Map<string, StoredChunk>> {
    const texts = new Map<string, string>();
    for (const note of pending) for (const chunk of note.chunks) if (!note.reuse.has(chunk.hash)) texts.set(chunk.hash, chunk.text);
    const hashes = [...texts.keys()];
    const embedded = new Map<string, StoredChunk>();
    for (let at = 0; at < hashes.length; at += provider.batchSize) {
      const batch = hashes.slice(at, at + provider.batchSize);
      const vectors = await provider.embed(batch.map((hash) => texts.get(hash)!), "passage");
      this.textsSent += batch.length;
      batch.forEach((hash, i) => {
        const { scale, vector } = quantize(vectors[i]!);
        embedded.set(hash, { index: 0, heading: "", hash, scale, vector });
      });
      await this.options.slice.pause();
    }
    return embedded;
  }
}
