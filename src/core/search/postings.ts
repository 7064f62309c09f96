// The postings of a group of notes as a shard persists them: term-major, so that loading a shard costs
// one tree lookup per term and one map entry per posting, and numbered by the note's position in the
// shard, so that a shard can be rewritten without re-reading its unchanged notes.
//
// A chunk is `[terms, lists]`; the list of a term is `[field, n, p1 … pn, field, n, …]`, each posting
// one number p = doc + docs × (tf − 1) for a shard of `docs` indexed notes: small integers, the
// fewest JSON digits to parse.
import { SnapshotError } from "./snapshot";

/** What indexing a note produced: its distinct terms and their frequencies, per field. */
export interface DocVector {
  /** Distinct terms per field, in field order (MiniSearch's field length). */
  lengths: number[];
  /** Term → frequency, per field, in field order. */
  terms: Array<ReadonlyMap<string, number>>;
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

/** Throws a SnapshotError("format") unless `value` is a chunk over `docs` notes and `fieldCount` fields. */
export function checkChunk(value: unknown, docs: number, fieldCount: number): PostingsChunk {
  if (!Array.isArray(value) || value.length !== 2) throw new SnapshotError("format", "Postings chunk is not [terms, lists].");
  const [terms, lists] = value as [unknown, unknown];
  if (!Array.isArray(terms) || !Array.isArray(lists) || terms.length !== lists.length) {
    throw new SnapshotError("format", "Postings chunk has mismatched terms and lists.");
  }
  for (let i = 0; i < terms.length; i++) {
    if (typeof terms[i] !== "string" || !isPostingList(lists[i], docs, fieldCount)) {
      throw new SnapshotError("format", "Postings chunk has a malformed posting list.");
    }
  }
  return { terms: terms as string[], lists: lists as number[][] };
}

function isPostingList(list: unknown, docs: number, fieldCount: number): boolean {
  if (!Array.isArray(list) || list.length === 0 || docs < 1) return false;
  let at = 0;
  while (at < list.length) {
    const field: unknown = list[at];
    const count: unknown = list[at + 1];
    if (!isIndex(field, fieldCount) || !Number.isInteger(count) || (count as number) < 1) return false;
    at += 2;
    const end = at + (count as number);
    if (end > list.length) return false;
    for (; at < end; at++) if (!isIndex(list[at], Number.MAX_SAFE_INTEGER)) return false;
  }
  return true;
}

function isIndex(value: unknown, bound: number): boolean {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) < bound;
}
