// The postings of a group of notes as a shard persists them: term-major, so that loading a shard costs
// one tree lookup per term and one bulk copy per posting run, and numbered by the note's position in
// the shard, so that a shard can be rewritten without re-reading its unchanged notes.
//
// In memory a chunk is `{ terms, lists }`; the list of a term is `[field, n, p1 … pn, field, n, …]`,
// each posting one number p = doc + docs × (tf − 1) for a shard of `docs` indexed notes. On disk
// (`encodeChunk`) the terms are a JSON array and the lists one stream of LEB128 varints, per term
// `groups, (field, n, p1 … pn) × groups`: parsing millions of JSON numbers was most of a warm start,
// while reading small varints is a tight loop over bytes.
import { SnapshotError } from "./snapshot";

/** What indexing a note produced: its distinct terms and their frequencies, per field. */
export interface DocVector {
  /** Distinct terms per field, in field order (MiniSearch's field length). */
  lengths: number[];
  /** Term → frequency, per field, in field order. */
  terms: Array<ReadonlyMap<string, number>>;
  /** The note's adjacent word pairs (see phrase-filter.ts); absent, phrases are checked on the text. */
  filter?: Uint8Array;
}

export interface PostingsChunk {
  terms: string[];
  lists: number[][];
}

/** Numbers per chunk: about 30 KB of JSON, parsed, merged or built in a few milliseconds. */
export const CHUNK_NUMBERS = 8_000;

/** Collects postings for one shard, then cuts them into chunks in term order. */
export class PostingsBuilder {
  private readonly fieldCount: number;
  /** Term → per field, [doc, tf, doc, tf, …]. */
  private readonly byTerm = new Map<string, Array<number[] | undefined>>();

  constructor(fieldCount: number) {
    this.fieldCount = fieldCount;
  }

  addVector(doc: number, vector: DocVector): void {
    vector.terms.forEach((terms, field) => {
      for (const [term, frequency] of terms) this.slot(term, field).push(doc, frequency);
    });
  }

  /**
   * Copies the postings of one chunk written for a shard of `docs` notes, renumbering doc d as
   * remap[d] and skipping those mapped to -1.
   */
  addRenumbered({ terms, lists }: PostingsChunk, docs: number, remap: Int32Array): void {
    terms.forEach((term, position) => {
      const list = lists[position]!;
      let at = 0;
      while (at < list.length) {
        const field = list[at]!;
        const end = at + 2 + list[at + 1]!;
        let slot: number[] | undefined;
        for (at += 2; at < end; at++) {
          const value = list[at]!;
          const old = value % docs;
          const doc = remap[old] ?? -1;
          if (doc < 0) continue;
          slot ??= this.slot(term, field);
          slot.push(doc, (value - old) / docs + 1);
        }
      }
    });
  }

  /** The postings in term order, cut into chunks, for a shard of `docs` indexed notes. */
  chunks(docs: number, maxNumbers = CHUNK_NUMBERS): PostingsChunk[] {
    return [...this.chunkIterator(docs, maxNumbers)];
  }

  /** As `chunks`, one chunk at a time, so the caller can yield in between. */
  *chunkIterator(docs: number, maxNumbers = CHUNK_NUMBERS): Generator<PostingsChunk, void, undefined> {
    let current: PostingsChunk = { terms: [], lists: [] };
    let numbers = 0;
    const terms = [...this.byTerm.keys()].sort();
    for (const term of terms) {
      const list: number[] = [];
      this.byTerm.get(term)!.forEach((pairs, field) => {
        if (!pairs || pairs.length === 0) return;
        list.push(field, pairs.length / 2);
        const ordered = inDocOrder(pairs);
        for (let at = 0; at < ordered.length; at += 2) list.push(ordered[at]! + docs * (ordered[at + 1]! - 1));
      });
      if (list.length === 0) continue;
      if (numbers > 0 && numbers + list.length > maxNumbers) {
        yield current;
        current = { terms: [], lists: [] };
        numbers = 0;
      }
      current.terms.push(term);
      current.lists.push(list);
      numbers += list.length;
    }
    if (current.terms.length > 0) yield current;
  }

  private slot(term: string, field: number): number[] {
    let fields = this.byTerm.get(term);
    if (!fields) this.byTerm.set(term, (fields = new Array<number[] | undefined>(this.fieldCount)));
    let pairs = fields[field];
    if (!pairs) fields[field] = pairs = [];
    return pairs;
  }
}

/** Loading appends postings, which is cheapest when each list comes in ascending doc order. */
function inDocOrder(pairs: number[]): number[] {
  let sorted = true;
  for (let at = 2; at < pairs.length && sorted; at += 2) sorted = pairs[at - 2]! < pairs[at]!;
  if (sorted) return pairs;
  const order = Array.from({ length: pairs.length / 2 }, (_, i) => i).sort((a, b) => pairs[2 * a]! - pairs[2 * b]!);
  return order.flatMap((i) => [pairs[2 * i]!, pairs[2 * i + 1]!]);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });
const TERMS_LENGTH_BYTES = 4;
const VARINT_LIMIT = 2 ** 31;

/** The chunk as a snapshot section: u32 length of the terms' JSON, that JSON, then the varint stream. */
export function encodeChunk({ terms, lists }: PostingsChunk): Uint8Array {
  const head = encoder.encode(JSON.stringify(terms));
  const stream = new VarintWriter(TERMS_LENGTH_BYTES + head.length + 2 * lists.reduce((sum, list) => sum + list.length, 0));
  stream.skip(TERMS_LENGTH_BYTES + head.length);
  for (const list of lists) {
    let groups = 0;
    for (let at = 0; at < list.length; at += 2 + list[at + 1]!) groups += 1;
    stream.write(groups);
    for (const value of list) stream.write(value);
  }
  const bytes = stream.bytes();
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).setUint32(0, head.length, true);
  bytes.set(head, TERMS_LENGTH_BYTES);
  return bytes;
}

/**
 * Receives one run of postings: `pairs[0 … 2 × count)` holds doc, tf, doc, tf… (docs as written, in
 * the shard's numbering) for the term at `position` of the chunk's terms. The array is reused for the next run, and the visitor may overwrite it.
 */
export type PostingRunVisitor = (term: string, field: number, pairs: Int32Array, count: number, position: number) => void;

/**
 * Walks an encoded chunk of a shard of `docs` notes over `fieldCount` fields, run by run. Throws a
 * SnapshotError("format") on anything `encodeChunk` would not have written; runs before the fault
 * have been visited by then.
 */
export function readChunk(bytes: Uint8Array, docs: number, fieldCount: number, visit: PostingRunVisitor): void {
  if (!(bytes instanceof Uint8Array) || bytes.length < TERMS_LENGTH_BYTES || docs < 1) throw malformed("is cut short");
  const headLength = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  if (TERMS_LENGTH_BYTES + headLength > bytes.length) throw malformed("has its terms cut short");
  let terms: unknown;
  try {
    terms = JSON.parse(decoder.decode(bytes.subarray(TERMS_LENGTH_BYTES, TERMS_LENGTH_BYTES + headLength)));
  } catch {
    throw malformed("has unreadable terms");
  }
  if (!Array.isArray(terms)) throw malformed("has no term list");
  const end = bytes.length;
  let at = TERMS_LENGTH_BYTES + headLength;
  const next = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (at >= end) throw malformed("ends inside a posting list");
      const byte = bytes[at++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) break;
      scale *= 128;
      if (scale >= VARINT_LIMIT * 128) throw malformed("has an oversized number");
    }
    if (value >= VARINT_LIMIT) throw malformed("has an oversized number");
    return value;
  };
  let pairs = new Int32Array(256);
  for (let position = 0; position < terms.length; position++) {
    const term: unknown = terms[position];
    if (typeof term !== "string") throw malformed("has a term that is not a string");
    const groups = next();
    if (groups < 1 || groups > fieldCount) throw malformed("has a term with no or too many fields");
    for (let group = 0; group < groups; group++) {
      const field = next();
      const count = next();
      if (field >= fieldCount || count < 1) throw malformed("has a malformed posting list");
      if (count * 2 > pairs.length) pairs = new Int32Array(Math.max(count * 2, pairs.length * 2));
      for (let i = 0; i < count; i++) {
        // Inlined `next()` for the common one-byte posting: this loop runs once per posting.
        let value: number;
        const byte = at < end ? bytes[at]! : 0x80;
        if (byte < 0x80) {
          value = byte;
          at += 1;
        } else value = next();
        const doc = value % docs;
        pairs[2 * i] = doc;
        pairs[2 * i + 1] = (value - doc) / docs + 1;
      }
      visit(term, field, pairs, count, position);
    }
  }
  if (at !== end) throw malformed("has bytes after its last posting list");
}

/** Decodes and checks an encoded chunk of a shard of `docs` notes (see `readChunk`). */
export function decodeChunk(bytes: Uint8Array, docs: number, fieldCount: number): PostingsChunk {
  const chunk: PostingsChunk = { terms: [], lists: [] };
  let list: number[] = [];
  let current = -1;
  readChunk(bytes, docs, fieldCount, (term, field, pairs, count, position) => {
    if (position !== current) {
      current = position;
      chunk.terms.push(term);
      chunk.lists.push((list = []));
    }
    list.push(field, count);
    for (let i = 0; i < count; i++) list.push(pairs[2 * i]! + docs * (pairs[2 * i + 1]! - 1));
  });
  return chunk;
}

function malformed(what: string): SnapshotError {
  return new SnapshotError("format", `Postings chunk ${what}.`);
}

class VarintWriter {
  private buffer: Uint8Array;
  private at = 0;

  constructor(capacity: number) {
    this.buffer = new Uint8Array(Math.max(16, capacity));
  }

  skip(bytes: number): void {
    this.ensure(bytes);
    this.at += bytes;
  }

  write(value: number): void {
    this.ensure(5);
    let rest = value;
    while (rest >= 0x80) {
      this.buffer[this.at++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    this.buffer[this.at++] = rest;
  }

  bytes(): Uint8Array {
    return this.buffer.slice(0, this.at);
  }

  private ensure(extra: number): void {
    if (this.at + extra <= this.buffer.length) return;
    const grown = new Uint8Array(Math.max(this.at + extra, this.buffer.length * 2));
    grown.set(this.buffer.subarray(0, this.at));
    this.buffer = grown;
  }
}
