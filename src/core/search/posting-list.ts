// The postings of one term in one field, in place of the Map<shortId, frequency> MiniSearch keeps
// there. A Map costs about 20 bytes an entry plus some 100 bytes a map, and the index holds millions
// of entries in hundreds of thousands of maps, filled one hashed insert at a time; this list is a
// plain array of small integers, appended to in order. It offers exactly the Map methods MiniSearch
// calls on postings (get, set, has, delete, size, keys, entries, iteration), with the same results.
//
// Layout: [id, tf, id, tf, …], ids ascending. A deleted entry keeps its id with tf 0 (MiniSearch
// deletes while it iterates, so nothing may move then); the holes are squeezed out on a later append.

export class PostingList {
  private data: number[] = [];
  private live = 0;
  private holes = 0;
  /** Index of the pair last visited, so that get(id) right after iterating to id costs nothing. */
  private cursor = 0;

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
    const data = this.data;
    if (data.length === 0 || data[data.length - 2]! < id) {
      if (this.holes > 0 && this.holes >= this.live) this.compact();
      data.push(id, frequency);
      this.live += 1;
      return this;
    }
    const at = this.find(id);
    if (at >= 0) {
      if (data[at + 1] === 0) {
        this.live += 1;
        this.holes -= 1;
      }
      data[at + 1] = frequency;
      return this;
    }
    data.splice(-at - 1, 0, id, frequency);
    this.live += 1;
    return this;
  }

  /** Adds an id larger than any present (the common case: ids grow as notes are added). */
  append(id: number, frequency: number): void {
    const data = this.data;
    if (data.length > 0 && data[data.length - 2]! >= id) {
      this.set(id, frequency);
      return;
    }
    data.push(id, frequency);
    this.live += 1;
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
    for (let at = 0; at < data.length; at += 2) {
      if (data[at + 1] === 0) continue;
      this.cursor = at;
      yield data[at]!;
    }
  }

  *entries(): IterableIterator<[number, number]> {
    const data = this.data;
    for (let at = 0; at < data.length; at += 2) {
      if (data[at + 1] === 0) continue;
      this.cursor = at;
      yield [data[at]!, data[at + 1]!];
    }
  }

  [Symbol.iterator](): IterableIterator<[number, number]> {
    return this.entries();
  }

  /** The pair index of id, or -(insertion point) - 1 when absent. */
  private find(id: number): number {
    const data = this.data;
    const cursor = this.cursor;
    if (data[cursor] === id && cursor < data.length) return cursor;
    let low = 0;
    let high = data.length / 2 - 1;
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
    for (let from = 0; from < data.length; from += 2) {
      if (data[from + 1] === 0) continue;
      data[to] = data[from]!;
      data[to + 1] = data[from + 1]!;
      to += 2;
    }
    data.length = to;
    this.holes = 0;
    this.cursor = 0;
  }
}
