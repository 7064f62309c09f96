// The vectors of a vault's chunks, int8-quantised with one scale per vector (a quarter of float32's
// size; cosine similarity changes by well under 0.01), searched exactly: every chunk is compared with
// the question. They live in one flat array (a row per chunk), so that a search is a single tight loop
// over contiguous memory and saving is a copy; a replaced note's rows are reused by later ones. The
// index records the model that made its vectors; vectors of another model are never compared with
// its questions.

export interface ChunkMeta {
  index: number;
  heading: string;
  /** The chunk's hash (chunks.ts): an unchanged chunk keeps its vector. */
  hash: string;
}

export interface ChunkVector {
  /** vector[i] × scale is the unit vector's component i. */
  scale: number;
  vector: Int8Array;
}

export type StoredChunk = ChunkMeta & ChunkVector;

export interface StoredNote {
  /** The note's content_hash when it was chunked: an unchanged note is not even chunked again. */
  noteHash: string;
  chunks: StoredChunk[];
}

export interface VectorMatch {
  path: string;
  similarity: number;
  chunk: ChunkMeta;
}

interface Entry {
  slot: number;
  noteHash: string;
  rows: number[];
  meta: ChunkMeta[];
}

/** A unit vector of the values, quantised: the largest component is ±127. */
export function quantize(values: Float32Array): ChunkVector {
  let norm = 0;
  for (const value of values) norm += value * value;
  norm = Math.sqrt(norm);
  let largest = 0;
  for (const value of values) largest = Math.max(largest, Math.abs(value));
  const vector = new Int8Array(values.length);
  if (norm === 0 || largest === 0) return { scale: 0, vector };
  const unit = largest / norm;
  // Stored as float32: rounded now so that a loaded vector compares exactly as it did before saving.
  const scale = Math.fround(unit / 127);
  for (let i = 0; i < values.length; i++) vector[i] = Math.round(values[i]! / norm / scale);
  return { scale, vector };
}

/** The question as a unit float vector. */
export function normalize(values: Float32Array): Float32Array {
  let norm = 0;
  for (const value of values) norm += value * value;
  norm = Math.sqrt(norm);
  const unit = new Float32Array(values.length);
  if (norm > 0) for (let i = 0; i < values.length; i++) unit[i] = values[i]! / norm;
  return unit;
}

const MAGIC = 0x58564253; // "SBVX"
export const VECTOR_FORMAT_VERSION = 2;
/** Notes encoded between two pauses of a save. */
const ENCODE_STEP = 1000;

export class VectorFormatError extends Error {
  constructor(problem: string) {
    super(`vector index ${problem}`);
    this.name = "VectorFormatError";
  }
}

type HeaderNote = [string, string, Array<[number, string, string]>];

export class VectorIndex {
  readonly model: string;
  /** 0 until the first vector says how many dimensions the model gives. */
  dims: number;
  private readonly notes = new Map<string, Entry>();
  private vectors = new Int8Array(0);
  private scales = new Float32Array(0);
  /** The note slot owning each row, -1 for a free row. */
  private owners = new Int32Array(0);
  private rowCount = 0;
  private readonly freeRows: number[] = [];
  private readonly slotPaths: Array<string | null> = [];
  private readonly freeSlots: number[] = [];
  private chunkTotal = 0;

  constructor(model: string, dims = 0) {
    this.model = model;
    this.dims = dims;
  }

  get size(): number {
    return this.notes.size;
  }

  get chunkCount(): number {
    return this.chunkTotal;
  }

  paths(): IterableIterator<string> {
    return this.notes.keys();
  }

  /** The note's hash and chunks (vectors: vectorOf). */
  get(path: string): { noteHash: string; chunks: readonly ChunkMeta[] } | undefined {
    const entry = this.notes.get(path);
    return entry ? { noteHash: entry.noteHash, chunks: entry.meta } : undefined;
  }

  /** A copy of the note's i-th chunk vector. */
  vectorOf(path: string, i: number): ChunkVector | null {
    const row = this.notes.get(path)?.rows[i];
    if (row === undefined) return null;
    return { scale: this.scales[row]!, vector: this.vectors.slice(row * this.dims, (row + 1) * this.dims) };
  }

  private grow(rows: number): void {
    if (rows <= this.owners.length) return;
    const capacity = Math.max(rows, Math.ceil(this.owners.length * 1.5), 1024);
    const vectors = new Int8Array(capacity * this.dims);
    vectors.set(this.vectors);
    const scales = new Float32Array(capacity);
    scales.set(this.scales);
    const owners = new Int32Array(capacity).fill(-1);
    owners.set(this.owners);
    this.vectors = vectors;
    this.scales = scales;
    this.owners = owners;
  }

  private takeRow(slot: number): number {
    const row = this.freeRows.pop() ?? this.rowCount++;
    this.grow(row + 1);
    this.owners[row] = slot;
    return row;
  }

  set(path: string, note: StoredNote): void {
    for (const chunk of note.chunks) {
      if (this.dims === 0) {
        this.dims = chunk.vector.length;
        this.vectors = new Int8Array(this.owners.length * this.dims);
      } else if (chunk.vector.length !== this.dims) throw new VectorFormatError(`holds ${this.dims}-dimensional vectors of ${this.model}; the model now gives ${chunk.vector.length}`);
    }
    const old = this.notes.get(path);
    const slot = old?.slot ?? this.freeSlots.pop() ?? this.slotPaths.length;
    this.slotPaths[slot] = path;
    // New rows are written before the old ones are let go: the chunks may be views of the old rows.
    const rows = note.chunks.map((chunk) => {
      const row = this.takeRow(slot);
      this.vectors.set(chunk.vector, row * this.dims);
      this.scales[row] = chunk.scale;
      return row;
    });
    if (old) this.releaseRows(old);
    this.notes.set(path, { slot, noteHash: note.noteHash, rows, meta: note.chunks.map(({ index, heading, hash }) => ({ index, heading, hash })) });
    this.chunkTotal += rows.length;
  }

  private releaseRows(entry: Entry): void {
    for (const row of entry.rows) {
      this.owners[row] = -1;
      this.freeRows.push(row);
    }
    this.chunkTotal -= entry.rows.length;
  }

  remove(path: string): void {
    const entry = this.notes.get(path);
    if (!entry) return;
    this.releaseRows(entry);
    this.notes.delete(path);
    this.slotPaths[entry.slot] = null;
    this.freeSlots.push(entry.slot);
  }

  private dot(row: number, query: Float32Array): number {
    const vectors = this.vectors;
    const base = row * this.dims;
    let sum = 0;
    for (let i = 0; i < query.length; i++) sum += vectors[base + i]! * query[i]!;
    return sum * this.scales[row]!;
  }

  /** The note's best chunk for a unit query vector, or null when it has no vectors. */
  similarity(path: string, query: Float32Array): VectorMatch | null {
    const entry = this.notes.get(path);
    if (!entry || query.length !== this.dims || entry.rows.length === 0) return null;
    let best = 0;
    let similarity = -Infinity;
    entry.rows.forEach((row, i) => {
      const value = this.dot(row, query);
      if (value > similarity) {
        similarity = value;
        best = i;
      }
    });
    return { path, similarity, chunk: entry.meta[best]! };
  }

  /** The `k` notes most similar to a unit query vector (by their best chunk), best first, ties by path. */
  search(query: Float32Array, k: number, accept?: (path: string) => boolean): VectorMatch[] {
    if (query.length !== this.dims || k <= 0 || this.notes.size === 0) return [];
    const slots = this.slotPaths.length;
    const best = new Float32Array(slots).fill(-Infinity);
    const bestRow = new Int32Array(slots).fill(-1);
    const { owners, vectors, scales, dims } = this;
    for (let row = 0; row < this.rowCount; row++) {
      const slot = owners[row]!;
      if (slot < 0) continue;
      const base = row * dims;
      let sum = 0;
      for (let i = 0; i < dims; i++) sum += vectors[base + i]! * query[i]!;
      sum *= scales[row]!;
      if (sum > best[slot]!) {
        best[slot] = sum;
        bestRow[slot] = row;
      }
    }
    // A bounded list sorted worst first: k is small, so insertion beats a heap here.
    const top: Array<{ slot: number; similarity: number }> = [];
    for (let slot = 0; slot < slots; slot++) {
      if (bestRow[slot]! < 0) continue;
      const similarity = best[slot]!;
      if (top.length === k && similarity <= top[0]!.similarity) continue;
      if (accept && !accept(this.slotPaths[slot]!)) continue;
      let at = 0;
      while (at < top.length && top[at]!.similarity < similarity) at++;
      top.splice(at, 0, { slot, similarity });
      if (top.length > k) top.shift();
    }
    return top
      .map(({ slot, similarity }): VectorMatch => {
        const path = this.slotPaths[slot]!;
        const entry = this.notes.get(path)!;
        return { path, similarity, chunk: entry.meta[entry.rows.indexOf(bestRow[slot]!)]! };
      })
      .sort((a, b) => b.similarity - a.similarity || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /**
   * The file: magic, version, header length, the header (a JSON line with the model, dimensions and
   * note count, then a JSON line per note: path, content hash, [index, heading, hash] per chunk), then
   * per chunk its float32 scale, then the int8 vectors, in note order. Pauses between stretches of
   * notes: a large vault's header is megabytes.
   */
  async encode(pause: () => Promise<void> = async () => undefined): Promise<Uint8Array[]> {
    const lines: string[] = [JSON.stringify({ model: this.model, dims: this.dims, notes: this.notes.size })];
    const order: number[] = [];
    for (const [path, entry] of this.notes) {
      const note: HeaderNote = [path, entry.noteHash, entry.meta.map((meta) => [meta.index, meta.heading, meta.hash])];
      lines.push(JSON.stringify(note));
      for (const row of entry.rows) order.push(row);
      if (lines.length % ENCODE_STEP === 0) await pause();
    }
    const json = new TextEncoder().encode(lines.join("\n"));
    await pause();
    const padded = Math.ceil(json.length / 4) * 4;
    const head = new Uint8Array(12 + padded);
    const view = new DataView(head.buffer);
    view.setUint32(0, MAGIC, true);
    view.setUint32(4, VECTOR_FORMAT_VERSION, true);
    view.setUint32(8, json.length, true);
    head.set(json, 12);
    head.fill(0x20, 12 + json.length);
    const scales = new Float32Array(order.length);
    const vectors = new Int8Array(order.length * this.dims);
    for (let i = 0; i < order.length; i++) {
      const row = order[i]!;
      scales[i] = this.scales[row]!;
      vectors.set(this.vectors.subarray(row * this.dims, (row + 1) * this.dims), i * this.dims);
      if (i % (ENCODE_STEP * 8) === 0) await pause();
    }
    return [head, new Uint8Array(scales.buffer), new Uint8Array(vectors.buffer)];
  }

  /** Reads what encode wrote, pausing between stretches of notes; throws VectorFormatError on anything else (the file is then discarded). */
  static async decode(bytes: Uint8Array, pause: () => Promise<void> = async () => undefined): Promise<VectorIndex> {
    if (bytes.length < 12) throw new VectorFormatError("is truncated");
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (view.getUint32(0, true) !== MAGIC) throw new VectorFormatError("is not a vector index");
    if (view.getUint32(4, true) !== VECTOR_FORMAT_VERSION) throw new VectorFormatError("has another format version");
    const length = view.getUint32(8, true);
    const padded = Math.ceil(length / 4) * 4;
    if (12 + padded > bytes.length) throw new VectorFormatError("is truncated");
    const lines = new TextDecoder().decode(bytes.subarray(12, 12 + length)).split("\n");
    const damaged = (): VectorFormatError => new VectorFormatError("has a damaged header");
    const parse = (line: string | undefined): unknown => {
      try {
        return JSON.parse(line ?? "");
      } catch {
        throw damaged();
      }
    };
    const top = parse(lines[0]) as { model?: unknown; dims?: unknown; notes?: unknown };
    if (typeof top.model !== "string" || !Number.isInteger(top.dims) || (top.dims as number) < 0 || top.notes !== lines.length - 1) throw damaged();
    const dims = top.dims as number;
    const notes: HeaderNote[] = [];
    let count = 0;
    for (let i = 1; i < lines.length; i++) {
      const note = parse(lines[i]) as HeaderNote;
      if (!Array.isArray(note) || typeof note[0] !== "string" || typeof note[1] !== "string" || !Array.isArray(note[2])) throw damaged();
      notes.push(note);
      count += note[2].length;
      if (i % ENCODE_STEP === 0) await pause();
    }
    const scalesAt = 12 + padded;
    const vectorsAt = scalesAt + count * 4;
    if (vectorsAt + count * dims !== bytes.length) throw new VectorFormatError("is truncated");
    const index = new VectorIndex(top.model, dims);
    // The rows are the file's, in its order: copied out whole, so the index does not pin the file's buffer.
    index.grow(count);
    index.scales.set(new Float32Array(bytes.slice(scalesAt, vectorsAt).buffer));
    index.vectors.set(new Int8Array(bytes.buffer, bytes.byteOffset + vectorsAt, count * dims));
    let row = 0;
    for (const [path, noteHash, chunks] of notes) {
      const slot = index.slotPaths.length;
      index.slotPaths.push(path);
      const rows: number[] = [];
      for (let i = 0; i < chunks.length; i++) {
        index.owners[row] = slot;
        rows.push(row++);
      }
      index.notes.set(path, { slot, noteHash, rows, meta: chunks.map(([chunkIndex, heading, hash]) => ({ index: chunkIndex, heading, hash })) });
      if (slot % ENCODE_STEP === 0) await pause();
    }
    index.rowCount = row;
    index.chunkTotal = row;
    return index;
  }
}
