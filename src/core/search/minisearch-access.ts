// Direct insertion into a MiniSearch instance, with compact posting lists (./posting-list.ts). MiniSearch only loads a whole serialised index in one
// piece (`loadJS`, one multi-second stall on a large vault) and only adds documents by re-tokenizing
// them; a sharded snapshot needs to merge one shard's postings at a time, and ingest needs the terms it
// indexed (to persist them). Both go through the instance's own structures, the same ones `loadJS` and
// `add` fill, so searching, discarding and vacuuming stay MiniSearch's. Checked once per instance:
// another MiniSearch layout fails loudly here instead of corrupting an index.
import type MiniSearch from "minisearch";
import { PostingList } from "./posting-list";

/** MiniSearch types it as Map<number, number>; a PostingList answers the same calls. */
type TermData = Map<number, PostingList>;

interface TermTree {
  fetch(term: string, initial: () => TermData): TermData;
}

interface Internals {
  _index: TermTree;
  _documentCount: number;
  _nextId: number;
  _documentIds: Map<number, string>;
  _idToShortId: Map<string, number>;
  _fieldLength: Map<number, number[]>;
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

const createTermData = (): TermData => new Map();

/** Writes documents and postings straight into a MiniSearch instance whose ids are note paths. */
export class MiniSearchWriter {
  private readonly target: Internals;
  /**
   * Term → its entry in the tree. A radix-tree lookup scans each node's keys, so a shard load (which
   * visits most common terms once per shard) spent most of its time finding terms; a hash lookup does
   * not. MiniSearch only ever removes a term's entry once it is empty and never swaps a non-empty one,
   * so an entry found non-empty here is still the one in the tree.
   */
  private readonly entries = new Map<string, TermData>();

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
    lengths.forEach((length, field) => {
      averages[field] = ((averages[field] ?? 0) * previous + length) / (previous + 1);
    });
    target._fieldLength.set(shortId, [...lengths]);
    return shortId;
  }

  /** The postings of one term in one field, created when missing. */
  fieldPostings(term: string, field: number): PostingList {
    let data = this.entries.get(term);
    if (!data || data.size === 0) {
      data = this.target._index.fetch(term, createTermData);
      this.entries.set(term, data);
    }
    let postings = data.get(field);
    if (!postings) data.set(field, (postings = new PostingList()));
    return postings;
  }

  /** Gives a term's postings in a field (see PostingList.fromPairs), appended when it has some already. */
  installPostings(term: string, field: number, pairs: Int32Array): void {
    let data = this.entries.get(term);
    if (!data || data.size === 0) {
      data = this.target._index.fetch(term, createTermData);
      this.entries.set(term, data);
    }
    const existing = data.get(field);
    if (existing) existing.appendPairs(pairs, pairs.length / 2);
    else data.set(field, PostingList.fromPairs(pairs));
  }

  /** Every indexed document id, in no particular order. */
  ids(): IterableIterator<string> {
    return this.target._documentIds.values();
  }
}
