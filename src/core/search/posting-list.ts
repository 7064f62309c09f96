// The postings of one term in one field, in place of the Map<shortId, frequency> MiniSearch keeps
// there. A Map costs about 20 bytes an entry plus some 100 bytes a map, and the index holds millions
// of entries in hundreds of thousands of maps, filled one hashed insert at a time; this list is a
// small array while short and an Int32Array (4 bytes a number) once long, appended to in order. It
// offers exactly the Map methods MiniSearch calls on postings (get, set, has, delete, size, keys,
// entries, iteration), with the same results.
//
// Layout: [id, tf, id, tf, …], ids ascending. A deleted entry keeps its id with tf 0 (MiniSearch
// deletes while it iterates, so nothing may move then); the holes are squeezed out on a later append.

/** Numbers kept in a plain array before moving to a typed one: most terms occur in a note or two. */
const SMALL_NUMBERS = 16;

export class PostingList {
  private data: number[] | Int32Array = [];
  /** Numbers of `data` in use (a typed array has spare room at its end). */
  private used = 0;
  private live = 0;
  private holes = 0;
  /** Index of the pair last visited, so that get(id) right after iterating to id costs nothing. */
  private cursor = 0;

  /** A list holding `pairs` ([id, tf, …], ids strictly ascending, tf ≥ 1), taken over without a copy. */
  static fromPairs(pairs: Int32Array): PostingList {
    const list = new PostingList();
    let valid = pairs.length % 2 === 0;
    for (let at = 0; at < pairs.length && valid; at += 2) valid = pairs[at + 1]! > 0 && (at === 0 || pairs[at - 2]! < pairs[at]!);
    if (!valid) {
      for (let at = 0; at + 1 < pairs.length; at += 2) if (pairs[at + 1]! > 0) list.set(pairs[at]!, pairs[at + 1]!);
      return list;
    }
    list.data = pairs.length > SMALL_NUMBERS ? pairs : Array.from(pairs);
    list.used = pairs.length;
    list.live = pairs.length / 2;
    return list;
  }

  get size(): number {
    return this.live;
  }

  get(id: number): number | undefined {
    const at = this.find(id);
    if (at < 0) return undefined;
    const frequency = this.data[at + 1]!;
    return frequency === 0 ? undefined : frequency;
  }

  has(id: number): boolean {
    return this.get(id) !== undefined;
  }

  set(id: number, frequency: number): this {
    if (frequency <= 0) {
      this.delete(id);
      return this;
    }
    if (this.used === 0 || this.data[this.used - 2]! < id) {
      if (this.holes > 0 && this.holes >= this.live) this.compact();
      this.push(id, frequency);
      return this;
    }
    const at = this.find(id);
    if (at >= 0) {
      if (this.data[at + 1] === 0) {
        this.live += 1;
        this.holes -= 1;
      }
      this.data[at + 1] = frequency;
      return this;
    }
    this.insertAt(-at - 1, id, frequency);
    return this;
  }

  /** Adds an id larger than any present (the common case: ids grow as notes are added). */
  append(id: number, frequency: number): void {
    if (this.used > 0 && this.data[this.used - 2]! >= id) {
      this.set(id, frequency);
      return;
    }
    this.push(id, frequency);
  }

  /**
   * Appends `count` postings, `pairs` being [id, tf, id, tf, …]: a bulk copy when the ids ascend
   * past every present id (a shard load), one by one otherwise.
   */
  appendPairs(pairs: Int32Array, count: number): void {
    const numbers = 2 * count;
    let ascending = count > 0 && (this.used === 0 || this.data[this.used - 2]! < pairs[0]!);
    for (let at = 2; at < numbers && ascending; at += 2) ascending = pairs[at - 2]! < pairs[at]! && pairs[at + 1]! > 0;
    if (!ascending || pairs[1]! <= 0) {
      for (let at = 0; at < numbers; at += 2) this.append(pairs[at]!, pairs[at + 1]!);
      return;
    }
    this.reserve(numbers);
    const data = this.data;
    if (data instanceof Int32Array) data.set(pairs.subarray(0, numbers), this.used);
    else for (let at = 0; at < numbers; at++) data[this.used + at] = pairs[at]!;
    this.used += numbers;
    this.live += count;
  }

  delete(id: number): boolean {
    const at = this.find(id);
    if (at < 0 || this.data[at + 1] === 0) return false;
    this.data[at + 1] = 0;
    this.live -= 1;
    this.holes += 1;
    return true;
  }

  *keys(): IterableIterator<number> {
    const data = this.data;
    for (let at = 0; at < this.used; at += 2) {
      if (data[at + 1] === 0) continue;
      this.cursor = at;
      yield data[at]!;
    }
  }

  *entries(): IterableIterator<[number, number]> {
    const data = this.data;
    for (let at = 0; at < this.used; at += 2) {
      if (data[at + 1] === 0) continue;
      this.cursor = at;
      yield [data[at]!, data[at + 1]!];
    }
  }

  [Symbol.iterator](): IterableIterator<[number, number]> {
    return this.entries();
  }

  /**
   * The pairs as stored, for a tight loop: [id, tf, …] up to `used`, ids ascending, tf 0 marking a
   * deleted entry. Valid until the list next changes.
   */
  view(): { data: ArrayLike<number>; used: number } {
    return { data: this.data, used: this.used };
  }

  private push(id: number, frequency: number): void {
    this.reserve(2);
    this.data[this.used] = id;
    this.data[this.used + 1] = frequency;
    this.used += 2;
    this.live += 1;
  }

  private insertAt(at: number, id: number, frequency: number): void {
    this.reserve(2);
    const data = this.data;
    if (data instanceof Int32Array) data.copyWithin(at + 2, at, this.used);
    else data.splice(at, 0, 0, 0);
    data[at] = id;
    data[at + 1] = frequency;
    this.used += 2;
    this.live += 1;
  }

  /** Makes room for `extra` more numbers, moving to a typed array once the list is long. */
  private reserve(extra: number): void {
    const needed = this.used + extra;
    const data = this.data;
    if (Array.isArray(data)) {
      if (needed <= SMALL_NUMBERS) return;
      const typed = new Int32Array(Math.max(needed, 2 * SMALL_NUMBERS));
      for (let at = 0; at < this.used; at++) typed[at] = data[at]!;
      this.data = typed;
      return;
    }
    if (needed <= data.length) return;
    const grown = new Int32Array(Math.max(needed, data.length * 2));
    grown.set(data.subarray(0, this.used));
    this.data = grown;
  }

  /** The pair index of id, or -(insertion point) - 1 when absent. */
  private find(id: number): number {
    const data = this.data;
    const cursor = this.cursor;
    if (cursor < this.used && data[cursor] === id) return cursor;
    let low = 0;
    let high = this.used / 2 - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const value = data[2 * middle]!;
      if (value < id) low = middle + 1;
      else if (value > id) high = middle - 1;
      else return (this.cursor = 2 * middle);
    }
    return -(2 * low) - 1;
  }

  private compact(): void {
    const data = this.data;
    let to = 0;
    for (let from = 0; from < this.used; from += 2) {
      if (data[from + 1] === 0) continue;
      data[to] = data[from]!;
      data[to + 1] = data[from + 1]!;
      to += 2;
    }
    if (Array.isArray(data)) data.length = to;
    this.used = to;
    this.holes = 0;
    this.cursor = 0;
  }
}
