// The postings of one term in one field, in place of the Map<shortId, frequency> MiniSearch keeps
// there. A Map costs about 20 bytes an entry plus some 100 bytes a map, and an index of 20,000 notes
// holds six million entries; here a posting is one or two bytes, so the whole index stays compact in
// memory, a snapshot can hold the very same bytes, and loading one is taking views of them instead of
// decoding millions of numbers. Ids only ever grow as notes are (re-)added, so postings are appended
// in id order and stored as gaps.
//
// Encoding: per posting one LEB128 varint v = gap × 4 + code, gap = id − previous id (the first
// counted from −1), code = tf when tf ≤ 3, else 0 and tf follows as its own varint. A frequent word
// (gap 1) of low frequency is one byte.
//
// The list offers the Map methods MiniSearch calls on postings (get, set, has, delete, size, keys,
// entries, iteration) with the same results, so MiniSearch's own search and vacuum still work on it;
// the engine's evaluator reads the bytes directly (see `encoded`).

/** A list's bytes as the evaluator and the snapshot read them; valid until the list next changes. */
export interface EncodedPostings {
  bytes: Uint8Array;
  start: number;
  end: number;
  /** Postings in the bytes. */
  count: number;
  /** Id of the last posting, −1 when empty. */
  last: number;
}

const SMALLEST_BUFFER = 8;

export class PostingList {
  private bytes: Uint8Array;
  private start: number;
  private end: number;
  /** The bytes belong to someone else (a loaded snapshot): copied before the first change. */
  private shared: boolean;
  private count: number;
  private last: number;

  constructor() {
    this.bytes = EMPTY;
    this.start = 0;
    this.end = 0;
    this.shared = false;
    this.count = 0;
    this.last = -1;
  }

  /**
   * A list over `bytes[start, end)` holding `count` postings up to id `last`, as `encoded()` gave
   * them; the bytes are not copied, and not written to. The caller has checked them (see `check`).
   */
  static view(bytes: Uint8Array, start: number, end: number, count: number, last: number): PostingList {
    const list = new PostingList();
    list.bytes = bytes;
    list.start = start;
    list.end = end;
    list.shared = true;
    list.count = count;
    list.last = last;
    return list;
  }

  /**
   * Counts the postings of `bytes[start, end)` and finds their last id, or returns null when the
   * bytes are not a well-formed list of ids below `limit`.
   */
  static check(bytes: Uint8Array, start: number, end: number, limit: number): { count: number; last: number } | null {
    let at = start;
    let id = -1;
    let count = 0;
    while (at < end) {
      let value = bytes[at++]!;
      if (value >= 0x80) {
        value &= 0x7f;
        let scale = 0x80;
        for (;;) {
          if (at >= end || scale > 2 ** 35) return null;
          const byte = bytes[at++]!;
          value += (byte & 0x7f) * scale;
          if (byte < 0x80) break;
          scale *= 0x80;
        }
      }
      const gap = Math.floor(value / 4);
      if (gap === 0) return null;
      if (value % 4 === 0) {
        let frequency = 0;
        let scale = 1;
        for (;;) {
          if (at >= end || scale > 2 ** 35) return null;
          const byte = bytes[at++]!;
          frequency += (byte & 0x7f) * scale;
          if (byte < 0x80) break;
          scale *= 0x80;
        }
        if (frequency < 4) return null;
      }
      id += gap;
      if (id >= limit) return null;
      count += 1;
    }
    return { count, last: id };
  }

  get size(): number {
    return this.count;
  }

  encoded(): EncodedPostings {
    return { bytes: this.bytes, start: this.start, end: this.end, count: this.count, last: this.last };
  }

  get(id: number): number | undefined {
    if (id > this.last || id < 0) return undefined;
    let found: number | undefined;
    this.forEachPosting((posting, frequency) => {
      if (posting < id) return true;
      if (posting === id) found = frequency;
      return false;
    });
    return found;
  }

  has(id: number): boolean {
    return this.get(id) !== undefined;
  }

  /** Adds a posting with an id above every present one (ids grow as notes are added), else as `set`. */
  append(id: number, frequency: number): void {
    if (frequency <= 0) {
      this.delete(id);
      return;
    }
    if (id <= this.last) {
      this.set(id, frequency);
      return;
    }
    if (this.shared) this.own(10);
    else if (this.end + 10 > this.bytes.length) this.grow(10);
    const code = frequency < 4 ? frequency : 0;
    let at = writeVarint(this.bytes, this.end, (id - this.last) * 4 + code);
    if (code === 0) at = writeVarint(this.bytes, at, frequency);
    this.end = at;
    this.last = id;
    this.count += 1;
  }

  set(id: number, frequency: number): this {
    if (frequency <= 0) {
      this.delete(id);
      return this;
    }
    if (id > this.last) {
      this.append(id, frequency);
      return this;
    }
    const pairs = this.pairs();
    const at = findPair(pairs, id);
    if (at >= 0) pairs[at + 1] = frequency;
    else pairs.splice(-at - 1, 0, id, frequency);
    this.rewrite(pairs);
    return this;
  }

  delete(id: number): boolean {
    if (id > this.last || id < 0) return false;
    const pairs = this.pairs();
    const at = findPair(pairs, id);
    if (at < 0) return false;
    pairs.splice(at, 2);
    this.rewrite(pairs);
    return true;
  }

  /**
   * Drops the postings of ids `alive` marks 0 (or lies beyond), in one pass; returns how many went.
   * MiniSearch drops them one by one as its search meets them; the engine cleans a whole list at once.
   */
  retain(alive: Uint8Array): number {
    const pairs: number[] = [];
    let dropped = 0;
    this.forEachPosting((id, frequency) => {
      if (id < alive.length && alive[id] === 1) pairs.push(id, frequency);
      else dropped += 1;
      return true;
    });
    if (dropped > 0) this.rewrite(pairs);
    return dropped;
  }

  *keys(): IterableIterator<number> {
    for (const [id] of this.entries()) yield id;
  }

  *entries(): IterableIterator<[number, number]> {
    // Over the postings as they are now: MiniSearch deletes from the list while it iterates it.
    const pairs = this.pairs();
    for (let at = 0; at < pairs.length; at += 2) yield [pairs[at]!, pairs[at + 1]!];
  }

  [Symbol.iterator](): IterableIterator<[number, number]> {
    return this.entries();
  }

  /** Visits the postings in id order while `visit` returns true (or nothing), without allocating. */
  forEachPosting(visit: (id: number, frequency: number) => boolean | void): void {
    const { bytes, end } = this;
    let at = this.start;
    let id = -1;
    while (at < end) {
      let value = bytes[at++]!;
      if (value >= 0x80) {
        value &= 0x7f;
        let scale = 0x80;
        for (;;) {
          const byte = bytes[at++]!;
          value += (byte & 0x7f) * scale;
          if (byte < 0x80) break;
          scale *= 0x80;
        }
      }
      let frequency = value % 4;
      if (frequency === 0) {
        let scale = 1;
        for (;;) {
          const byte = bytes[at++]!;
          frequency += (byte & 0x7f) * scale;
          if (byte < 0x80) break;
          scale *= 0x80;
        }
      }
      id += (value - (value % 4)) / 4;
      if (visit(id, frequency) === false) return;
    }
  }

  private pairs(): number[] {
    const pairs: number[] = [];
    this.forEachPosting((id, frequency) => {
      pairs.push(id, frequency);
      return true;
    });
    return pairs;
  }

  private rewrite(pairs: readonly number[]): void {
    this.bytes = EMPTY;
    this.start = 0;
    this.end = 0;
    this.shared = false;
    this.count = 0;
    this.last = -1;
    for (let at = 0; at < pairs.length; at += 2) this.append(pairs[at]!, pairs[at + 1]!);
  }

  private own(extra: number): void {
    const length = this.end - this.start;
    const bytes = new Uint8Array(Math.max(SMALLEST_BUFFER, length + extra, length * 2));
    bytes.set(this.bytes.subarray(this.start, this.end));
    this.bytes = bytes;
    this.start = 0;
    this.end = length;
    this.shared = false;
  }

  private grow(extra: number): void {
    const bytes = new Uint8Array(Math.max(SMALLEST_BUFFER, this.end + extra, this.bytes.length * 2));
    bytes.set(this.bytes.subarray(0, this.end));
    this.bytes = bytes;
  }
}

const EMPTY = new Uint8Array(0);

/** Writes `value` (a non-negative integer) as a LEB128 varint at `at`; returns the end. */
export function writeVarint(bytes: Uint8Array, at: number, value: number): number {
  let rest = value;
  while (rest >= 0x80) {
    bytes[at++] = (rest % 0x80) | 0x80;
    rest = Math.floor(rest / 0x80);
  }
  bytes[at++] = rest;
  return at;
}

/** The pair index of id in [id, tf, …], or −(insertion point) − 1 when absent. */
function findPair(pairs: readonly number[], id: number): number {
  let low = 0;
  let high = pairs.length / 2 - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const value = pairs[2 * middle]!;
    if (value < id) low = middle + 1;
    else if (value > id) high = middle - 1;
    else return 2 * middle;
  }
  return -(2 * low) - 1;
}
