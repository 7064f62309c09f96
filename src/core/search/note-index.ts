// The full-text index of a vault's notes over MiniSearch's document table: storage (notes added,
// replaced, removed, saved and loaded) and the steps of a search. Notes are tokenized and counted
// once, against a table of the terms seen so far, and their postings appended to compact lists
// (posting-list.ts, minisearch-access.ts); per-note arrays are in documents.ts. A search is planned
// (query-plan.ts: what a hit must hold; expansion.ts: which index terms each word reaches), evaluated
// (evaluator.ts), scored and ordered (candidates.ts, by the formulas of ranking.ts), and its phrases
// verified on the candidates' text (phrase-verify.ts): bodies are not stored.
import MiniSearch, { type Options } from "minisearch";
import { MiniSearchWriter, createTermData, type TermData } from "./minisearch-access";
import { PostingArena, PostingList } from "./posting-list";
import { isPhraseFilter } from "./phrase-filter";
import { FIELD_COUNT, FIELDS, IndexBuilder, type IndexBatch, type IndexDoc } from "./index-builder";
import { TermTable } from "./term-table";
import { TermDictionary } from "./term-dictionary";
import type { ParsedQuery, QueryTerm } from "./query";
import { QueryEvaluator, matchedTerm } from "./evaluator";
import { Documents } from "./documents";
import { bestCandidates, collectCandidates, RankedCandidates, toHits, type Candidate, type Scoring, type SearchHit } from "./candidates";
import { mayHavePhrase, planExclusion, planQuery, toPhraseCheck, type PhraseCheck } from "./query-plan";
import { verifyPhrases } from "./phrase-verify";
import { planWord, type PlannedWord } from "./expansion";
import { detectLanguages, Stems, type Language } from "./languages";
import { RANKING, type RankingParameters } from "./ranking";
import { SnapshotError } from "./snapshot";
import { tokenize } from "./tokenizer";
import { comparePaths } from "../notes/paths";

export { FIELD_COUNT, type IndexDoc } from "./index-builder";
export type { SearchHit } from "./candidates";

/** What indexing a note produced: its distinct terms and their frequencies, per field. */
export interface DocVector {
  /** Distinct terms per field, in field order (MiniSearch's field length). */
  lengths: number[];
  /** Distinct terms per field, in field order. */
  terms: string[][];
  /** Their frequencies, parallel to `terms`. */
  frequencies: number[][];
  /** The note's adjacent word pairs (see phrase-filter.ts); absent, phrases are checked on the text. */
  filter?: Uint8Array;
}

export interface SearchPage {
  /** Every hit, before offset and limit (an estimate when `totalEstimated`). */
  total: number;
  /**
   * True when phrases were verified only as far as the page needed: `total` then extrapolates the
   * share of verified candidates to the rest.
   */
  totalEstimated?: boolean;
  hits: SearchHit[];
}

export interface NoteSearchOptions {
  limit: number;
  offset: number;
  /** Keeps only the paths it accepts (folder, glob, tags…), before any note text is read. */
  filter?: (path: string) => boolean;
  /**
   * The note's text, to verify phrases on the few notes holding all of a phrase's terms; null when
   * the note is gone. Without it a phrase counts as present when all its terms are.
   */
  loadText?: (path: string) => Promise<string | null>;
  /** Give each hit its score's parts (costs a lookup per hit and index term; nothing when false). */
  explain?: boolean;
}

/** Bump when the tokenizer, fields or persisted postings change: older snapshots are then rebuilt. */
export const NOTE_INDEX_VERSION = 5;

/** Terms or posting runs of a batch between two pauses of `appendBatchSliced`. */
const APPEND_STEP = 2048;


/** How the term numbers of a builder with a table of its own map to the index's (see `appendBatch`). */
export interface BatchTerms {
  readonly numbers: number[];
}

/** An indexed note as a snapshot stores it: documents are written in short-id order. */
export interface StoredDocument {
  path: string;
  id: number;
  lengths: number[];
  filter?: Uint8Array;
}

/** A term's postings as a snapshot stores them: one list per field, undefined where it has none. */
export interface StoredTerm {
  term: string;
  lists: ReadonlyArray<PostingList | undefined>;
}

/**
 * An index as a snapshot holds it: document d is `paths[d]`, and each term's lists are byte ranges of
 * `postings` numbered by d (see posting-list.ts), `ranges` holding per term and field the range's
 * length in bytes (0: no list).
 */
export interface LoadedIndex {
  paths: readonly string[];
  /** Field lengths of document d at d × FIELD_COUNT + f. */
  lengths: Int32Array;
  filters: ReadonlyArray<Uint8Array | undefined>;
  terms: readonly string[];
  ranges: Uint32Array;
  postings: Uint8Array;
}

function engineOptions(): Options<never> {
  return {
    fields: [...FIELDS],
    storeFields: [],
    tokenize: (text) => tokenize(text),
    processTerm: (term) => term,
    // The engine cleans posting lists itself, as a query meets them (see evaluator.ts).
    autoVacuum: false,
    // MiniSearch's warnings quote terms, which are note content (SPEC §11).
    logger: () => undefined,
  };
}

export class NoteIndex {
  // Replaced whole by `clear`, so a load that failed half-way leaves nothing behind.
  private engine!: MiniSearch<never>;
  private writer!: MiniSearchWriter;
  private evaluator!: QueryEvaluator;
  private documents!: Documents;
  private terms!: TermTable;
  /** MiniSearch's term lookups, answered from `terms` (see term-dictionary.ts). */
  private dictionary!: TermDictionary;
  private builder!: IndexBuilder;
  /** Where the short posting lists keep their bytes. */
  private arena!: PostingArena;
  /** The vault's languages and their stems, detected again once the index has grown or shrunk by a tenth. */
  private languages!: { atSize: number; stems: Stems[] } | null;
  /** Stems per language, kept across detections (they remember what they worked out). */
  private readonly stemsByLanguage = new Map<Language, Stems>();
  /** How hits are ordered (ranking.ts); replaced only to measure another ranking. */
  ranking: RankingParameters = RANKING;

  constructor() {
    this.clear();
  }

  /** Removes every note. */
  clear(): void {
    this.engine = new MiniSearch(engineOptions());
    const writer = new MiniSearchWriter(this.engine as MiniSearch<unknown>);
    this.writer = writer;
    this.documents = new Documents(() => writer);
    writer.shareFieldLengths(this.documents);
    this.terms = new TermTable();
    this.dictionary = new TermDictionary(this.terms);
    writer.useTermDictionary(this.dictionary);
    this.evaluator = new QueryEvaluator(this.documents);
    this.languages = null;
    this.builder = new IndexBuilder(this.terms);
    this.arena = new PostingArena();
  }

  get size(): number {
    return this.engine.documentCount;
  }

  has(path: string): boolean {
    return this.writer.shortId(path) !== undefined;
  }

  /** Sorted. */
  paths(): string[] {
    return [...this.writer.ids()].sort(comparePaths);
  }

  /**
   * Indexes a note, replacing an indexed one of the same path. Returns its terms when `keepVector`
   * (a snapshot journal needs them), else null.
   */
  add(doc: IndexDoc, keepVector = false): DocVector | null {
    this.builder.addNote(doc);
    const batch = this.builder.take();
    this.appendBatch(batch, null);
    return keepVector ? vectorOf(batch, this.terms.terms) : null;
  }

  /** A builder numbering terms in the index's table: its batches are appended with no mapping (null). */
  newBuilder(): IndexBuilder {
    return new IndexBuilder(this.terms);
  }

  /** A fresh mapping for the batches of a builder that numbers its own terms. */
  batchTerms(): BatchTerms {
    return { numbers: [] };
  }

  /**
   * Indexes the notes of a batch (replacing indexed ones of the same paths), in order. `terms` maps
   * the batch's term numbers and learns the terms it names first; null for the index's own builder,
   * which numbers terms in the index's table. Returns the notes' short ids.
   */
  appendBatch(batch: IndexBatch, terms: BatchTerms | null): Int32Array {
    const steps = this.appendSteps(batch, terms);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  }

  /**
   * As `appendBatch`, with `pause` between stretches of the work: a batch of a few hundred notes,
   * the first of a build above all (most of its terms are new), is more work than one slice. A query
   * in between sees some of the batch's postings.
   */
  async appendBatchSliced(batch: IndexBatch, terms: BatchTerms | null, pause: () => Promise<void>): Promise<Int32Array> {
    const steps = this.appendSteps(batch, terms);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
      await pause();
    }
  }

  private *appendSteps(batch: IndexBatch, terms: BatchTerms | null): Generator<void, Int32Array, void> {
    if (terms) {
      for (let at = 0; at < batch.terms.length; at++) {
        terms.numbers.push(this.terms.number(batch.terms[at]!));
        if (at % APPEND_STEP === APPEND_STEP - 1) yield;
      }
    }
    const numbers = terms?.numbers;
    const { paths, lengths, filters, runs } = batch;
    const ids = new Int32Array(paths.length);
    for (let note = 0; note < paths.length; note++) {
      ids[note] = this.register(paths[note]!, lengths.subarray(note * FIELD_COUNT, (note + 1) * FIELD_COUNT), filters[note]);
    }
    let at = 0;
    let step = 0;
    while (at < runs.length) {
      const list = this.postings(numbers ? numbers[runs[at]!]! : runs[at]!, runs[at + 1]!);
      const end = at + 3 + 2 * runs[at + 2]!;
      for (at += 3; at < end; at += 2) list.append(ids[runs[at]!]!, runs[at + 1]!);
      if (++step % APPEND_STEP === 0) yield;
    }
    return ids;
  }

  /** Indexes a note from its term vector (see `add`), replacing an indexed one of the same path. */
  insert(path: string, vector: DocVector): void {
    const id = this.register(path, vector.lengths, vector.filter);
    vector.terms.forEach((terms, field) => {
      const counts = vector.frequencies[field]!;
      terms.forEach((term, i) => this.postings(this.terms.number(term), field).append(id, counts[i]!));
    });
  }

  /** False when the path was not indexed. */
  remove(path: string): boolean {
    const id = this.writer.shortId(path);
    if (id === undefined) return false;
    this.engine.discard(path);
    this.documents.remove(id);
    return true;
  }

  /** Indexed notes in short-id order, for a snapshot; `pause` between stretches of them. */
  async storedDocuments(pause: () => Promise<void>): Promise<StoredDocument[]> {
    const stored: StoredDocument[] = [];
    const { alive, fieldLengths, filters } = this.documents;
    const next = this.writer.nextShortId;
    for (let id = 0; id < next; id++) {
      if (id % 1024 === 1023) await pause();
      if (alive[id] !== 1) continue;
      const document: StoredDocument = {
        path: this.writer.documentId(id)!,
        id,
        lengths: Array.from(fieldLengths.subarray(id * FIELD_COUNT, (id + 1) * FIELD_COUNT)),
      };
      const filter = filters[id];
      if (filter) document.filter = filter;
      stored.push(document);
    }
    return stored;
  }

  /** Every term with postings, for a snapshot; lists may still hold removed documents' postings. */
  *storedTerms(): IterableIterator<StoredTerm> {
    const byNumber = this.dictionary.byNumber;
    for (let number = 0; number < byNumber.length; number++) {
      const data = byNumber[number];
      if (!data || data.size === 0) continue;
      const lists: Array<PostingList | undefined> = [];
      for (let field = 0; field < FIELD_COUNT; field++) lists.push(data.get(field));
      yield { term: this.terms.terms[number]!, lists };
    }
  }

  /** The short id handed out next: stored documents have ids below it. */
  get idLimit(): number {
    return this.writer.nextShortId;
  }

  /**
   * Fills an empty index from a snapshot's postings, taken as views of its bytes (not decoded).
   * Throws a SnapshotError("format") and leaves the index empty when something is malformed (the
   * snapshot's checksum passed, so a faulty writer wrote it).
   */
  async load(stored: LoadedIndex, pause: () => Promise<void>): Promise<void> {
    if (this.size > 0 || this.writer.nextShortId > 0) throw new Error("NoteIndex.load needs an empty index.");
    try {
      await this.loadChecked(stored, pause);
    } catch (error) {
      this.clear();
      throw error;
    }
  }

  private async loadChecked(stored: LoadedIndex, pause: () => Promise<void>): Promise<void> {
    const { paths, lengths, filters, terms, ranges, postings } = stored;
    const docs = paths.length;
    if (lengths.length !== docs * FIELD_COUNT || filters.length !== docs || ranges.length !== terms.length * FIELD_COUNT) {
      throw new SnapshotError("format", "Index snapshot tables do not match its document count.");
    }
    for (const filter of filters) if (filter !== undefined && !isPhraseFilter(filter)) throw new SnapshotError("format", "Index snapshot has a malformed phrase filter.");
    const seen = new Set<string>();
    for (let d = 0; d < docs; d++) {
      const path = paths[d]!;
      if (seen.has(path)) throw new SnapshotError("format", "Index snapshot lists a note twice.");
      seen.add(path);
      const fields = lengths.subarray(d * FIELD_COUNT, (d + 1) * FIELD_COUNT);
      for (const length of fields) if (length < 0) throw new SnapshotError("format", "Index snapshot has malformed field lengths.");
      const id = this.writer.addDocument(path, Array.from(fields));
      this.documents.add(id, fields, filters[d]);
      if (d % 1024 === 1023) await pause();
    }
    let at = 0;
    for (let t = 0; t < terms.length; t++) {
      const term = terms[t]!;
      if (typeof term !== "string" || term.length === 0 || this.terms.find(term) >= 0) throw new SnapshotError("format", "Index snapshot has a malformed term.");
      const number = this.terms.number(term);
      let data: TermData | null = null;
      for (let field = 0; field < FIELD_COUNT; field++) {
        const length = ranges[t * FIELD_COUNT + field]!;
        if (length === 0) continue;
        const end = at + length;
        if (end > postings.length) throw new SnapshotError("format", "Index snapshot postings are cut short.");
        const checked = PostingList.check(postings, at, end, docs);
        if (!checked) throw new SnapshotError("format", "Index snapshot has a malformed posting list.");
        data ??= this.dictionary.fetchNumber(number, createTermData);
        data.set(field, PostingList.view(postings, at, end, checked.count, checked.last, this.arena));
        at = end;
      }
      if (t % 256 === 255) await pause();
    }
    if (at !== postings.length) throw new SnapshotError("format", "Index snapshot has postings no term names.");
  }

  private postings(number: number, field: number): PostingList {
    // MiniSearch's vacuum deletes a term's entry once it is empty; this makes a new one.
    const data = this.dictionary.fetchNumber(number, createTermData);
    let list = data.get(field);
    if (list === undefined) data.set(field, (list = new PostingList(this.arena)));
    return list;
  }

  private register(path: string, lengths: ArrayLike<number>, filter: Uint8Array | undefined): number {
    this.remove(path);
    const id = this.writer.addDocument(path, Array.from(lengths));
    this.documents.add(id, lengths, filter);
    return id;
  }

  /** The index terms each word reaches (expansion.ts), in the vault's languages. */
  private plan(terms: readonly QueryTerm[]): PlannedWord[] {
    const stems = this.stems();
    return terms.map((term) => planWord(term, this.dictionary, stems, this.ranking));
  }

  private stems(): Stems[] {
    const size = this.documents.indexed;
    const known = this.languages;
    if (known && Math.abs(size - known.atSize) * 10 <= known.atSize) return known.stems;
    const notesWith = (term: string): number => this.dictionary.get(term)?.get(FIELDS.indexOf("body"))?.size ?? 0;
    const stems = detectLanguages(size, notesWith).map((language) => {
      let kept = this.stemsByLanguage.get(language);
      if (!kept) this.stemsByLanguage.set(language, (kept = new Stems(language)));
      return kept;
    });
    this.languages = { atSize: size, stems };
    return stems;
  }

  /** The languages whose stems queries reach, as last detected. */
  detectedLanguages(): Language[] {
    return this.stems().map(({ language }) => language);
  }

  async search(query: ParsedQuery, options: NoteSearchOptions): Promise<SearchPage> {
    const plan = planQuery(query);
    if (!plan) return { total: 0, hits: [] };
    const { terms, checks, phrases, hasPositivePhrases } = plan;
    const exclusion = this.exclusion(query);
    const scoring: Scoring = { terms, ranking: this.ranking, fieldLengths: this.documents.fieldLengths };
    const evaluation = this.evaluator.evaluate(this.plan(terms), scoring.ranking);
    const excluded = exclusion.excluded.size > 0 ? exclusion.excluded : null;
    const candidates = collectCandidates(evaluation, scoring, checks, this.documents.filters, excluded, options.filter);
    const pathOf = (candidate: Candidate): string => (candidate.path ??= evaluation.path(candidate.id));
    const byRank = (a: Candidate, b: Candidate): number => b.score - a.score || comparePaths(pathOf(a), pathOf(b));
    const start = Math.max(0, options.offset);
    const wanted = start + Math.max(0, options.limit);
    const explain = options.explain === true;
    if (!hasPositivePhrases && exclusion.suspects.size === 0) {
      // Nothing to read: only the page needs ordering, not every match of a word in all notes.
      return { total: candidates.length, hits: toHits(evaluation, bestCandidates(candidates, wanted, byRank).slice(start), pathOf, scoring, explain) };
    }
    const verified = await verifyPhrases(new RankedCandidates(candidates, byRank), wanted, pathOf, {
      evaluation,
      checks,
      phrases,
      hasPositivePhrases,
      suspects: exclusion.suspects,
      loadText: options.loadText,
    });
    const page: SearchPage = { total: verified.total, hits: toHits(evaluation, verified.kept.slice(start, wanted), pathOf, scoring, explain) };
    if (verified.estimated) page.totalEstimated = true;
    return page;
  }

  /** Notes certainly excluded, and notes holding every term of an excluded phrase (to be checked). */
  private exclusion(query: ParsedQuery): { excluded: Set<number>; suspects: Map<number, PhraseCheck[]> } {
    const excluded = new Set<number>();
    const suspects = new Map<number, PhraseCheck[]>();
    const plan = planExclusion(query, query.excludedPhrases.map(toPhraseCheck));
    if (!plan) return { excluded, suspects };
    const evaluation = this.evaluator.evaluate(this.plan(plan.terms), this.ranking);
    for (let i = 0; i < evaluation.ids.length; i++) {
      const id = evaluation.ids[i]!;
      if (plan.excludedTerms.some((term) => matchedTerm(evaluation, i, term))) {
        excluded.add(id);
        continue;
      }
      const filter = this.documents.filters[id];
      const suspected = plan.phrases.filter((phrase) => mayHavePhrase(evaluation, i, phrase, filter)).map(({ phrase }) => phrase);
      if (suspected.length > 0) suspects.set(id, suspected);
    }
    return { excluded, suspects };
  }
}

/** The terms of the one note of a batch, as a journal stores them. */
function vectorOf(batch: IndexBatch, terms: readonly string[]): DocVector {
  const vector: DocVector = {
    lengths: Array.from(batch.lengths.subarray(0, FIELD_COUNT)),
    terms: FIELDS.map(() => []),
    frequencies: FIELDS.map(() => []),
  };
  const filter = batch.filters[0];
  if (filter) vector.filter = filter;
  const runs = batch.runs;
  for (let at = 0; at < runs.length; at += 3 + 2 * runs[at + 2]!) {
    const field = runs[at + 1]!;
    vector.terms[field]!.push(terms[runs[at]!]!);
    vector.frequencies[field]!.push(runs[at + 4]!);
  }
  return vector;
}
