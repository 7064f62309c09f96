// The vectors of a vault's chunks, int8-quantised with one scale per vector (a quarter of float32's
// size; cosine similarity changes by well under 0.01), kept per note and searched exactly: every chunk
// is compared with the question. The index records the model that made its vectors; vectors of
// another model are never compared with its questions.

export interface StoredChunk {
  index: number;
  heading: string;
  /** The chunk's hash (chunks.ts): an unchanged chunk keeps its vector. */
  hash: string;
  /** vector[i] × scale is the unit vector's component i. */
  scale: number;
  vector: Int8Array;
}

export interface StoredNote {
  /** The note's content_hash when it was chunked: an unchanged note is not even chunked again. */
  noteHash: string;
  chunks: StoredChunk[];
}

export interface VectorMatch {
  path: string;
  similarity: number;
  chunk: StoredChunk;
}

/** A unit vector of the values, quantised: the largest component is ±127. */
export function quantize(values: Float32Array): { scale: number; vector: Int8Array } {
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

function dot(query: Float32Array, chunk: StoredChunk): number {
  const vector = chunk.vector;
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * query[i]!;
  return sum * chunk.scale;
}

const MAGIC = 0x58564253; // "SBVX"
export const VECTOR_FORMAT_VERSION = 1;

export class VectorFormatError extends Error {
  constructor(problem: string) {
    super(`vector index ${problem}`);
    this.name = "VectorFormatError";
  }
}

interface Header {
  model: string;
  dims: number;
  /** [path, noteHash, [index, heading, hash][]] per note, in the order of the vectors. */
  notes: Array<[string, string, Array<[number, string, string]>]>;
}

export class VectorIndex {
  readonly model: string;
  /** 0 until the first vector says how many dimensions the model gives. */
  dims: number;
  private readonly notes = new Map<string, StoredNote>();
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

  get(path: string): StoredNote | undefined {
    return this.notes.get(path);
  }

  set(path: string, note: StoredNote): void {
    for (const chunk of note.chunks) {
      if (this.dims === 0) this.dims = chunk.vector.length;
      else if (chunk.vector.length !== this.dims) throw new VectorFormatError(`holds ${this.dims}-dimensional vectors of ${this.model}; the model now gives ${chunk.vector.length}`);
    }
    this.remove(path);
    this.notes.set(path, note);
    this.chunkTotal += note.chunks.length;
  }

  remove(path: string): void {
    const old = this.notes.get(path);
    if (!old) return;
    this.chunkTotal -= old.chunks.length;
    this.notes.delete(path);
  }

  /** The note's best chunk for a unit query vector, or null when it has no vectors. */
  similarity(path: string, query: Float32Array): VectorMatch | null {
    const note = this.notes.get(path);
    if (!note || query.length !== this.dims) return null;
    let best: VectorMatch | null = null;
    for (const chunk of note.chunks) {
      const similarity = dot(query, chunk);
      if (!best || similarity > best.similarity) best = { path, similarity, chunk };
    }
    return best;
  }

  /** The `k` notes most similar to a unit query vector (by their best chunk), best first, ties by path. */
  search(query: Float32Array, k: number, accept?: (path: string) => boolean): VectorMatch[] {
    if (query.length !== this.dims || k <= 0) return [];
    // A bounded list sorted worst first: k is small, so insertion beats a heap here.
    const top: VectorMatch[] = [];
    for (const path of this.notes.keys()) {
      const match = this.similarity(path, query);
      if (!match) continue;
      if (top.length === k && match.similarity <= top[0]!.similarity) continue;
      if (accept && !accept(path)) continue;
      let at = 0;
      while (at < top.length && top[at]!.similarity < match.similarity) at++;
      top.splice(at, 0, match);
      if (top.length > k) top.shift();
    }
    return top.reverse().sort((a, b) => b.similarity - a.similarity || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** The file: magic, version, header length, JSON header, then per chunk its float32 scale, then the int8 vectors. */
  encode(): Uint8Array[] {
    const header: Header = { model: this.model, dims: this.dims, notes: [] };
    const chunks: StoredChunk[] = [];
    for (const [path, note] of this.notes) {
      header.notes.push([path, note.noteHash, note.chunks.map((chunk) => [chunk.index, chunk.heading, chunk.hash])]);
      chunks.push(...note.chunks);
    }
    const json = new TextEncoder().encode(JSON.stringify(header));
    const padded = Math.ceil(json.length / 4) * 4;
    const head = new Uint8Array(12 + padded);
    const view = new DataView(head.buffer);
    view.setUint32(0, MAGIC, true);
    view.setUint32(4, VECTOR_FORMAT_VERSION, true);
    view.setUint32(8, json.length, true);
    head.set(json, 12);
    head.fill(0x20, 12 + json.length);
    const scales = new Float32Array(chunks.length);
    chunks.forEach((chunk, i) => (scales[i] = chunk.scale));
    const vectors = new Int8Array(chunks.length * this.dims);
    chunks.forEach((chunk, i) => vectors.set(chunk.vector, i * this.dims));
    return [head, new Uint8Array(scales.buffer), new Uint8Array(vectors.buffer)];
  }

  /** Reads what encode wrote; throws VectorFormatError on anything else (the file is then discarded). */
  static decode(bytes: Uint8Array): VectorIndex {
    if (bytes.length < 12) throw new VectorFormatError("is truncated");
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (view.getUint32(0, true) !== MAGIC) throw new VectorFormatError("is not a vector index");
    if (view.getUint32(4, true) !== VECTOR_FORMAT_VERSION) throw new VectorFormatError("has another format version");
    const length = view.getUint32(8, true);
    const padded = Math.ceil(length / 4) * 4;
    if (12 + padded > bytes.length) throw new VectorFormatError("is truncated");
    let header: Header;
    try {
      header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + length))) as Header;
    } catch {
      throw new VectorFormatError("has a damaged header");
    }
    if (typeof header.model !== "string" || !Number.isInteger(header.dims) || !Array.isArray(header.notes)) throw new VectorFormatError("has a damaged header");
    const count = header.notes.reduce((sum, note) => sum + note[2].length, 0);
    const scalesAt = 12 + padded;
    const vectorsAt = scalesAt + count * 4;
    if (vectorsAt + count * header.dims !== bytes.length) throw new VectorFormatError("is truncated");
    // Copied out, so the index does not pin the file's whole buffer, and aligned for the float view.
    const scales = new Float32Array(bytes.slice(scalesAt, vectorsAt).buffer);
    const vectors = new Int8Array(bytes.slice(vectorsAt).buffer);
    const index = new VectorIndex(header.model, header.dims);
    let at = 0;
    for (const [path, noteHash, chunks] of header.notes) {
      index.set(path, {
        noteHash,
        chunks: chunks.map(([chunkIndex, heading, hash]) => {
          const chunk = { index: chunkIndex, heading, hash, scale: scales[at]!, vector: vectors.subarray(at * header.dims, (at + 1) * header.dims) };
          at++;
          return chunk;
        }),
      });
    }
    return index;
  }
}
