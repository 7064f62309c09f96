// Tokenizing and counting notes into batches of inverted postings. Appending each note's postings to
// its terms' lists as it is read touches a different list for nearly every posting, and on a large
// vault that is most of a build's time spent waiting for memory; a batch collects the postings of many
// notes in one flat array and sorts them by term once (a counting sort), so that each list is then
// appended a run at a time. A builder needs no index: it numbers terms in a dictionary of its own, so
// it can run apart from the index (a worker thread) and hand over batches the index maps into its
// own terms (NoteIndex.appendBatch).
import { buildPhraseFilterFromHashes } from "./phrase-filter";
import { TermTable, termHash } from "./term-table";
import { TermScan, scanTerms, wordSequence } from "./tokenizer";
import { FIELD_COUNT, FIELDS, type FieldName } from "./ranking";

export { FIELD_COUNT, FIELDS } from "./ranking";

export interface IndexDoc {
  path: string;
  title: string;
  aliases: string[];
  headings: string[];
  tags: string[];
  body: string;
}

const BODY_FIELD = FIELDS.indexOf("body");

/**
 * The notes a builder took in since its last batch. Note i is `paths[i]`; postings are grouped in
 * runs, each `term, field, count`, then `count` pairs `note, frequency` with notes ascending.
 */
export interface IndexBatch {
  paths: string[];
  /** Distinct terms of note i in field f at i × FIELD_COUNT + f (MiniSearch's field lengths). */
  lengths: Int32Array;
  filters: Array<Uint8Array | undefined>;
  /** Terms the builder numbered since its last batch: their numbers follow the earlier ones. */
  terms: string[];
  runs: Int32Array;
}

function fieldText(doc: IndexDoc, field: FieldName): string {
  const value = doc[field];
  return typeof value === "string" ? value : value.join("\n");
}

function basename(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}

export class IndexBuilder {
  private readonly table: TermTable;
  /** The builder numbers its terms itself and hands them over with its batches. */
  private readonly own: boolean;
  /** Terms of its own table the receiver of the batches knows. */
  private handedOver = 0;
  private paths: string[] = [];
  private lengths: number[] = [];
  private filters: Array<Uint8Array | undefined> = [];
  /** The batch's postings as they come: `term × FIELD_COUNT + field, note, frequency` each. */
  private postings = new Int32Array(1 << 16);
  private used = 0;
  /** Per term number, the field being counted when it was last met there, and how often. */
  private marks = new Int32Array(1024);
  private counts = new Int32Array(1024);
  private mark = 0;
  private counted = new Int32Array(256);
  private readonly scan = new TermScan();

  /** With the index's term table its batches need no terms; without, the builder keeps a table of its own. */
  constructor(table?: TermTable) {
    this.own = table === undefined;
    this.table = table ?? new TermTable();
  }

  /** Notes taken in since the last batch. */
  get pending(): number {
    return this.paths.length;
  }

  /** Tokenizes and counts a note into the current batch. */
  addNote(doc: IndexDoc): void {
    const note = this.paths.length;
    const scan = this.scan;
    const lengths = [0, 0, 0, 0, 0];
    // The body first: its word hashes go into the phrase filter before the scan is reused.
    scanTerms(doc.body, this.table, scan);
    lengths[BODY_FIELD] = this.countField(note, BODY_FIELD);
    // The sequences PhraseText and the title check of `holdsPhrases` read, so the filter agrees with them.
    const title = Int32Array.from(wordSequence(basename(doc.path)), termHash);
    this.filters.push(buildPhraseFilterFromHashes([scan.words, title], [scan.wordCount, title.length]));
    for (let field = 0; field < FIELD_COUNT; field++) {
      if (field === BODY_FIELD) continue;
      scanTerms(fieldText(doc, FIELDS[field]!), this.table, scan);
      lengths[field] = this.countField(note, field);
    }
    for (const length of lengths) this.lengths.push(length);
    this.paths.push(doc.path);
  }

  /** Counts the scanned terms of one field and records their postings; returns how many are distinct. */
  private countField(note: number, field: number): number {
    const distinct = this.count(this.scan.terms, this.scan.termCount);
    this.reservePostings(3 * distinct);
    const postings = this.postings;
    let at = this.used;
    for (let i = 0; i < distinct; i++) {
      const term = this.counted[i]!;
      postings[at++] = term * FIELD_COUNT + field;
      postings[at++] = note;
      postings[at++] = this.counts[term]!;
    }
    this.used = at;
    return distinct;
  }

  /** The notes added since the last batch, their postings grouped by term and field; starts a new batch. */
  take(): IndexBatch {
    const batch: IndexBatch = {
      paths: this.paths,
      lengths: Int32Array.from(this.lengths),
      filters: this.filters,
      terms: this.own ? this.table.terms.slice(this.handedOver) : [],
      // A single note has each term and field once: its postings are runs of one as they stand.
      runs: this.paths.length === 1 ? this.singleRuns() : this.sortedRuns(),
    };
    this.handedOver += batch.terms.length;
    this.paths = [];
    this.lengths = [];
    this.filters = [];
    this.used = 0;
    return batch;
  }

  private singleRuns(): Int32Array {
    const postings = this.postings;
    const out = new Int32Array((5 * this.used) / 3);
    let at = 0;
    for (let from = 0; from < this.used; from += 3) {
      const key = postings[from]!;
      out[at++] = Math.floor(key / FIELD_COUNT);
      out[at++] = key % FIELD_COUNT;
      out[at++] = 1;
      out[at++] = postings[from + 1]!;
      out[at++] = postings[from + 2]!;
    }
    return out;
  }

  private sortedRuns(): Int32Array {
    const keys = this.table.size * FIELD_COUNT;
    const starts = new Int32Array(keys + 1);
    const postings = this.postings;
    const used = this.used;
    for (let at = 0; at < used; at += 3) starts[postings[at]! + 1]! += 1;
    let runs = 0;
    for (let key = 0; key < keys; key++) {
      if (starts[key + 1]! > 0) runs += 1;
      starts[key + 1] = starts[key + 1]! + starts[key]!;
    }
    // Each posting becomes a pair, each run gets a three-number head.
    const out = new Int32Array(3 * runs + (2 * used) / 3);
    const heads = new Int32Array(keys);
    let at = 0;
    for (let key = 0; key < keys; key++) {
      const count = starts[key + 1]! - starts[key]!;
      if (count === 0) continue;
      out[at] = Math.floor(key / FIELD_COUNT);
      out[at + 1] = key % FIELD_COUNT;
      out[at + 2] = count;
      heads[key] = at + 3;
      at += 3 + 2 * count;
    }
    // Notes were added in order, so each run's notes ascend as they are placed.
    for (let from = 0; from < used; from += 3) {
      const key = postings[from]!;
      const to = heads[key]!;
      out[to] = postings[from + 1]!;
      out[to + 1] = postings[from + 2]!;
      heads[key] = to + 2;
    }
    return out;
  }

  /** Counts terms into `counts`; their numbers go to `counted`, each once; returns how many. */
  private count(terms: Int32Array, length: number): number {
    const mark = ++this.mark;
    const needed = this.table.size;
    if (needed > this.marks.length) {
      this.marks = grown(this.marks, needed);
      this.counts = grown(this.counts, needed);
    }
    if (length > this.counted.length) this.counted = grown(this.counted, length);
    const { marks, counts, counted } = this;
    let distinct = 0;
    for (let i = 0; i < length; i++) {
      const number = terms[i]!;
      if (marks[number] !== mark) {
        marks[number] = mark;
        counts[number] = 1;
        counted[distinct++] = number;
      } else {
        counts[number] = counts[number]! + 1;
      }
    }
    return distinct;
  }

  private reservePostings(extra: number): void {
    if (this.used + extra > this.postings.length) this.postings = grown(this.postings, this.used + extra);
  }
}

function grown(array: Int32Array, needed: number): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(Math.max(needed, array.length * 2));
  bigger.set(array);
  return bigger;
}
