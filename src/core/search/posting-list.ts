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
//
// Most lists are short (a word in a handful of notes), and a buffer of their own costs some 250 bytes
// of bookkeeping (typed array, array buffer, its backing store) for a few bytes of postings: at 20,000
// notes that was 92,000 lists and more memory than all their postings. A list of an index therefore
// keeps its bytes in a region of a PostingArena's shared slabs until it outgrows the largest region.

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

const EMPTY = new Uint8Array(0);
const SMALLEST_BUFFER = 8;
/** Regions are powers of two from SMALLEST_BUFFER up to this; a longer list owns its buffer. */
const LARGEST_REGION = 512;
const REGION_SIZES = Math.log2(LARGEST_REGION / SMALLEST_BUFFER) + 1;
const SLAB_BYTES = 256 * 1024;

/**
 * Regions of shared slabs for the lists of one index. A region a list leaves (it grew, or was
 * rewritten) goes to a free list of its size and is handed to the next list that needs that size, so
 * the holes growth leaves behind are filled again; the arena lives as long as its index.
 */
export class PostingArena {
  private slab: Uint8Array = EMPTY;
  private used = 0;
  private readonly freeSlabs: Uint8Array[][] = Array.from({ length: REGION_SIZES }, () => []);
  private readonly freeStarts: number[][] = Array.from({ length: REGION_SIZES }, () => []);
  /** Where the region `take` returned last starts in its slab (spares an object per call). */
  takenAt = 0;

  /** A region of `size` bytes, a power of two from 8 to 512: its slab; its start is `takenAt`. */
  take(size: number): Uint8Array {
    const slot = Math.log2(size / SMALLEST_BUFFER);
    const slabs = this.freeSlabs[slot]!;
    if (slabs.length > 0) {
      this.takenAt = this.freeStarts[slot]!.pop()!;
      return slabs.pop()!;
    }
    if (this.used + size > this.slab.length) {
      this.slab = new Uint8Array(SLAB_BYTES);
      this.used = 0;
    }
    this.takenAt = this.used;
    this.used += size;
    return this.slab;
  }

  /** Takes back a region `take` handed out. */
  give(slab: Uint8Array, start: number, size: number): void {
    const slot = Math.log2(size / SMALLEST_BUFFER);
    this.freeSlabs[slot]!.push(slab);
    this.freeStarts[slot]!.push(start);
  }
}

/** `limit` of a list whose bytes are someone else's (a loaded snapshot): copied before the first change. */
const BORROWED = -1;

export class PostingList {
  private bytes: Uint8Array;
  private start: number;
  private end: number;
  /**
   * End of the room the list may write in, or BORROWED. A list of an arena holds a region of it
   * exactly when `limit − start` is at most LARGEST_REGION (a longer list's own buffer is longer): no
   * field says so, as a list's every field is paid some 100,000 times.
   */
  private limit: number;
  private count: number;
  private last: number;
  private readonly arena: PostingArena | null;

  /** Without an arena the list owns its buffer whatever its length. */
  constructor(arena: PostingArena | null = null) {
    this.bytes = EMPTY;
    this.start = 0;
    this.end = 0;
    this.limit = 0;
    this.count = 0;
    this.last = -1;
    this.arena = arena;
  }

  /**
   * A list over `bytes[start, end)` holding `count` postings up to id `last`, as `encoded()` gave
   * them; the bytes are not copied, and not written to. The caller has checked them (see `check`).
   */
  static view(bytes: Uint8Array, start: number, end: number, count: number, last: number, arena: PostingArena | null = null): PostingList {
    const list = new PostingList(arena);
    list.bytes = bytes;
    list.start = start;
    list.end = end;
    list.limit = BORROWED;
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
    if (this.end + 10 > this.limit) this.move(10);
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
    this.leave();
    this.bytes = EMPTY;
    this.start = 0;
    this.end = 0;
    this.limit = 0;
    this.count = 0;
    this.last = -1;
    for (let at = 0; at < pairs.length; at += 2) this.append(pairs[at]!, pairs[at + 1]!);
  }

  /** Moves the postings to room for at least `extra` more bytes, about twice what they take. */
  private move(extra: number): void {
    const { bytes: from, start, end } = this;
    const length = end - start;
    const wanted = Math.max(SMALLEST_BUFFER, length + extra, length * 2);
    let bytes: Uint8Array;
    let at = 0;
    let size = wanted;
    const inArena = this.arena !== null && wanted <= LARGEST_REGION;
    if (inArena) {
      size = 2 ** Math.ceil(Math.log2(wanted));
      bytes = this.arena.take(size);
      at = this.arena.takenAt;
      for (let i = 0; i < length; i++) bytes[at + i] = from[start + i]!;
    } else {
      bytes = new Uint8Array(size);
      bytes.set(from.subarray(start, end));
    }
    this.leave();
    this.bytes = bytes;
    this.start = at;
    this.end = at + length;
    this.limit = at + size;
  }

  /** Gives the list's arena region back; the bytes stay readable until the next list takes it. */
  private leave(): void {
    const size = this.limit - this.start;
    if (this.arena && this.limit > 0 && size <= LARGEST_REGION) this.arena.give(this.bytes, this.start, size);
  }
}


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
