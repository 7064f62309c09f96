// A tree object as the history keeps it from one commit to the next: its entries in git's order and its
// content, each entry's record at a known offset. A commit usually changes one entry of a folder, and a
// folder may hold thousands of notes: the next tree is the one before with that entry's record spliced
// in, found by binary search, instead of every entry sorted and serialized again.
import type { TreeEntry } from "isomorphic-git";

export interface TreeImage {
  /** In git's order (sortTree). */
  readonly entries: readonly TreeEntry[];
  /** The tree object's content: each entry's `mode name\0` and its 20-byte id. */
  readonly content: Uint8Array;
  /** Entry i's record is content[offsets[i], offsets[i + 1]). */
  readonly offsets: Uint32Array;
}

const encoder = new TextEncoder();
const SURROGATE = /[\uD800-\uDFFF]/;
const HEX = new Map(Array.from({ length: 256 }, (_, byte) => [byte.toString(16).padStart(2, "0"), byte]));

/** UTF-8 byte order, which is code point order: UTF-16 order of the strings unless a surrogate is in them. */
function compareNames(a: string, b: string): number {
  if (!SURROGATE.test(a) && !SURROGATE.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  const x = [...a].map((char) => char.codePointAt(0)!);
  const y = [...b].map((char) => char.codePointAt(0)!);
  for (let at = 0; at < Math.min(x.length, y.length); at++) if (x[at] !== y[at]) return x[at]! - y[at]!;
  return x.length - y.length;
}

/** The name git sorts an entry by: a folder's as if it ended in `/`. */
function sortKey(entry: TreeEntry): string {
  return entry.type === "tree" ? `${entry.path}/` : entry.path;
}

function recordOf(entry: TreeEntry): Uint8Array {
  const head = encoder.encode(`${entry.mode.replace(/^0+/, "")} ${entry.path}\0`);
  const record = new Uint8Array(head.byteLength + 20);
  record.set(head);
  for (let at = 0; at < 20; at++) record[head.byteLength + at] = HEX.get(entry.oid.slice(at * 2, at * 2 + 2))!;
  return record;
}

/** Entries in git's order: by name, a folder's as if it ended in `/`. */
export function sortTree(entries: readonly TreeEntry[]): TreeEntry[] {
  const keyed = entries.map((entry) => ({ entry, key: sortKey(entry) }));
  const plain = keyed.every(({ key }) => !SURROGATE.test(key));
  keyed.sort(plain ? (a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) : (a, b) => compareNames(a.key, b.key));
  return keyed.map(({ entry }) => entry);
}

/** The image of entries in any order. */
export function treeImage(entries: readonly TreeEntry[]): TreeImage {
  const sorted = sortTree(entries);
  const records = sorted.map(recordOf);
  const offsets = new Uint32Array(sorted.length + 1);
  for (let at = 0; at < records.length; at++) offsets[at + 1] = offsets[at]! + records[at]!.byteLength;
  const content = new Uint8Array(offsets[sorted.length]!);
  for (let at = 0; at < records.length; at++) content.set(records[at]!, offsets[at]);
  return { entries: sorted, content, offsets };
}

/** A tree object's content from entries in git's order (sortTree). */
export function treeContent(sorted: readonly TreeEntry[]): Uint8Array {
  return treeImage(sorted).content;
}

/** The first position whose entry sorts at or after `key`. */
function lowerBound(entries: readonly TreeEntry[], key: string): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareNames(sortKey(entries[middle]!), key) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The position of the entry named `name` (a file's or a folder's, there is at most one), or -1. */
export function findEntry(image: TreeImage, name: string): number {
  for (const key of [name, `${name}/`]) {
    const at = lowerBound(image.entries, key);
    if (image.entries[at]?.path === name) return at;
  }
  return -1;
}

/**
 * The tree with the entries named in `updates` replaced, added or (null) removed: the records of the
 * entries in between are copied as they are. Equals treeImage of the changed entry list.
 */
export function patchTree(base: TreeImage, updates: ReadonlyMap<string, TreeEntry | null>): TreeImage {
  // Each update as a removal of the entry it replaces and an insertion at its sorted place.
  const removed = new Set<number>();
  const inserted: Array<{ at: number; entry: TreeEntry; record: Uint8Array }> = [];
  for (const [name, entry] of updates) {
    const at = findEntry(base, name);
    if (at >= 0) removed.add(at);
    if (entry) inserted.push({ at: lowerBound(base.entries, sortKey(entry)), entry, record: recordOf(entry) });
  }
  inserted.sort((a, b) => a.at - b.at || compareNames(sortKey(a.entry), sortKey(b.entry)));

  const count = base.entries.length - removed.size + inserted.length;
  const entries: TreeEntry[] = new Array<TreeEntry>(count);
  const offsets = new Uint32Array(count + 1);
  const size = base.content.byteLength + inserted.reduce((sum, { record }) => sum + record.byteLength, 0) - [...removed].reduce((sum, at) => sum + base.offsets[at + 1]! - base.offsets[at]!, 0);
  const content = new Uint8Array(size);
  let written = 0;
  let cursor = 0;
  /** Copies base entries [cursor, end), skipping removed ones, records and all. */
  const copyUntil = (end: number): void => {
    while (cursor < end) {
      let stop = cursor;
      while (stop < end && !removed.has(stop)) stop += 1;
      const shift = offsets[written]! - base.offsets[cursor]!;
      content.set(base.content.subarray(base.offsets[cursor], base.offsets[stop]), offsets[written]);
      for (let at = cursor; at < stop; at++) {
        entries[written] = base.entries[at]!;
        offsets[written + 1] = base.offsets[at + 1]! + shift;
        written += 1;
      }
      cursor = stop < end ? stop + 1 : stop;
    }
  };
  for (const { at, entry, record } of inserted) {
    copyUntil(at);
    content.set(record, offsets[written]);
    entries[written] = entry;
    offsets[written + 1] = offsets[written]! + record.byteLength;
    written += 1;
  }
  copyUntil(base.entries.length);
  return { entries, content, offsets };
}

export const EMPTY_TREE: TreeImage = { entries: [], content: new Uint8Array(0), offsets: new Uint32Array(1) };
