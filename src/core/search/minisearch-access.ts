// Direct insertion into a MiniSearch instance, with compact posting lists (./posting-list.ts).
// MiniSearch only loads a whole serialised index in one piece (`loadJS`, one multi-second stall on a
// large vault) and only adds documents by re-tokenizing them; the engine tokenizes each note once,
// counts its terms itself and loads snapshots as views of their bytes. Both go through the instance's
// own structures, the same ones `loadJS` and `add` fill, so discarding, vacuuming and its own search
// stay MiniSearch's; only its term tree is swapped for the index's term table (./term-dictionary.ts),
// behind the calls MiniSearch makes on it. Checked once per instance: another MiniSearch layout fails
// loudly here instead of corrupting an index.
import type MiniSearch from "minisearch";
import type { PostingList } from "./posting-list";

/**
 * A term's lists by field id, in place of the Map<fieldId, Map<number, number>> MiniSearch keeps in
 * its tree: the index holds one per term, and a Map costs three times as much as five slots. It
 * answers every Map call MiniSearch makes on it (get, set, delete, has, size, iteration).
 */
export class TermData {
  // Sized for the note index's five fields; another field id grows it.
  private readonly lists: Array<PostingList | undefined> = new Array<PostingList | undefined>(5);
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(field: number): PostingList | undefined {
    return this.lists[field];
  }

  has(field: number): boolean {
    return this.lists[field] !== undefined;
  }

  set(field: number, list: PostingList): this {
    if (this.lists[field] === undefined) this.count += 1;
    this.lists[field] = list;
    return this;
  }

  delete(field: number): boolean {
    if (this.lists[field] === undefined) return false;
    this.lists[field] = undefined;
    this.count -= 1;
    return true;
  }

  *entries(): IterableIterator<[number, PostingList]> {
    for (let field = 0; field < this.lists.length; field++) {
      const list = this.lists[field];
      if (list !== undefined) yield [field, list];
    }
  }

  *keys(): IterableIterator<number> {
    for (const [field] of this.entries()) yield field;
  }

  *values(): IterableIterator<PostingList> {
    for (const [, list] of this.entries()) yield list;
  }

  [Symbol.iterator](): IterableIterator<[number, PostingList]> {
    return this.entries();
  }
}

interface TermTree {
  fetch(term: string, initial: () => TermData): TermData;
}

/** What MiniSearch calls on its term tree (`_index`): its search, vacuum, discard and toJSON. */
export interface TermLookup extends TermTree, Iterable<[string, TermData]> {
  readonly size: number;
  get(term: string): TermData | undefined;
  has(term: string): boolean;
  set(term: string, data: TermData): unknown;
  delete(term: string): boolean;
  atPrefix(prefix: string): Iterable<[string, TermData]>;
  fuzzyGet(term: string, maxDistance: number): Map<string, [TermData, number]>;
}

interface Internals {
  _index: TermTree | TermLookup;
  _documentCount: number;
  _nextId: number;
  _documentIds: Map<number, string>;
  _idToShortId: Map<string, number>;
  _fieldLength: Map<number, ArrayLike<number>> | SharedFieldLengths;
  _avgFieldLength: number[];
}

function isInternals(value: unknown): value is Internals {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Record<string, unknown>;
  const tree = candidate["_index"] as { fetch?: unknown } | undefined;
  return (
    typeof tree === "object" &&
    tree !== null &&
    typeof tree.fetch === "function" &&
    typeof candidate["_documentCount"] === "number" &&
    typeof candidate["_nextId"] === "number" &&
    candidate["_documentIds"] instanceof Map &&
    candidate["_idToShortId"] instanceof Map &&
    candidate["_fieldLength"] instanceof Map &&
    Array.isArray(candidate["_avgFieldLength"])
  );
}

export const createTermData = (): TermData => new TermData();

/** Field lengths by short id, kept by the index in one typed array (see MiniSearchWriter.shareFieldLengths). */
export interface FieldLengthStore {
  /** A view of the document's lengths by field id; undefined while it is not indexed. */
  lengthsOf(shortId: number): Int32Array | undefined;
  setLengths(shortId: number, lengths: ArrayLike<number>): void;
  /** Indexed short ids, ascending. */
  indexedIds(): IterableIterator<number>;
  readonly indexed: number;
}

/**
 * MiniSearch's `_fieldLength` (a Map from short id to an array of lengths by field) answered from the
 * index's own typed array: twenty thousand small arrays cost more than the postings of a frequent
 * word. It answers the calls MiniSearch makes on it (get, set, delete, has, size, iteration); a
 * view of a typed array reads and iterates as the array did.
 */
class SharedFieldLengths {
  private readonly store: FieldLengthStore;

  constructor(store: FieldLengthStore) {
    this.store = store;
  }

  get size(): number {
    return this.store.indexed;
  }

  get(shortId: number): Int32Array | undefined {
    return this.store.lengthsOf(shortId);
  }

  has(shortId: number): boolean {
    return this.store.lengthsOf(shortId) !== undefined;
  }

  set(shortId: number, lengths: ArrayLike<number>): this {
    this.store.setLengths(shortId, lengths);
    return this;
  }

  /** The store forgets a document when the index removes it, right after MiniSearch's discard. */
  delete(shortId: number): boolean {
    return this.has(shortId);
  }

  *entries(): IterableIterator<[number, Int32Array]> {
    for (const shortId of this.store.indexedIds()) yield [shortId, this.store.lengthsOf(shortId)!];
  }

  *keys(): IterableIterator<number> {
    yield* this.store.indexedIds();
  }

  [Symbol.iterator](): IterableIterator<[number, Int32Array]> {
    return this.entries();
  }
}

/** Writes documents and postings straight into a MiniSearch instance whose ids are note paths. */
export class MiniSearchWriter {
  private readonly target: Internals;

  constructor(engine: MiniSearch<unknown>) {
    if (!isInternals(engine)) {
      throw new Error("This MiniSearch version lays out its index differently; the note index supports minisearch 7.");
    }
    this.target = engine;
  }

  /** Registers a document (absent from the index) with its field lengths; returns its short id. */
  addDocument(id: string, lengths: readonly number[]): number {
    const target = this.target;
    const shortId = target._nextId++;
    target._documentIds.set(shortId, id);
    target._idToShortId.set(id, shortId);
    target._documentCount += 1;
    // The running average MiniSearch's own `add` keeps (its addFieldLength), field by field.
    const previous = target._documentCount - 1;
    const averages = target._avgFieldLength;
    for (let field = 0; field < lengths.length; field++) {
      averages[field] = ((averages[field] ?? 0) * previous + lengths[field]!) / (previous + 1);
    }
    target._fieldLength.set(shortId, lengths);
    return shortId;
  }

  /** From now on MiniSearch looks terms up in `terms` instead of its own tree (call while the index is empty). */
  useTermDictionary(terms: TermLookup): void {
    if (this.target._documentCount > 0) throw new Error("A term dictionary replaces the tree of an empty index only.");
    this.target._index = terms;
  }

  /** From now on MiniSearch reads and writes field lengths in the index's own arrays. */
  shareFieldLengths(store: FieldLengthStore): void {
    this.target._fieldLength = new SharedFieldLengths(store);
  }

  /** The short id of an indexed document. */
  shortId(id: string): number | undefined {
    return this.target._idToShortId.get(id);
  }

  /** The document of a short id, while it is indexed. */
  documentId(shortId: number): string | undefined {
    return this.target._documentIds.get(shortId);
  }

  /** The id the next added document gets: every short id so far is below it. */
  get nextShortId(): number {
    return this.target._nextId;
  }

  /** Every indexed document id, in no particular order. */
  ids(): IterableIterator<string> {
    return this.target._documentIds.values();
  }
}
