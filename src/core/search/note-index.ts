// The full-text index of a vault's notes over MiniSearch (BM25). It stores no document fields: bodies
// of 20,000 notes would double memory and the snapshot, so phrases are verified by reading only the
// candidate notes. Notes are tokenized and counted once, here, against a table of the terms seen so
// far, and their postings appended to compact lists in MiniSearch's own term tree (see
// posting-list.ts, minisearch-access.ts); what the evaluator reads per document (liveness, field
// lengths, phrase filter) is kept in arrays by short id.
import MiniSearch, { type Options } from "minisearch";
import { MiniSearchWriter, createTermData, type FieldLengthStore, type TermData } from "./minisearch-access";
import { PostingArena, PostingList } from "./posting-list";
import { PhraseText, containsPhrase, phraseCandidateTerms, type CandidateTerm } from "./phrase";
import { isPhraseFilter, mayHoldPairs, phrasePairHashes } from "./phrase-filter";
import { FIELD_COUNT, FIELDS, IndexBuilder, type IndexBatch, type IndexDoc } from "./index-builder";
import { TermTable } from "./term-table";
import { TermDictionary } from "./term-dictionary";
import { type ParsedQuery, type QueryTerm } from "./query";
import { positiveTerms } from "./scoring";
import { QueryEvaluator, matchedTerm, realTerm, type DocumentTable, type Evaluation } from "./evaluator";
import { planWord, type PlannedWord } from "./expansion";
import { detectLanguages, Stems, type Language } from "./languages";
import { coverage, queryWordWeight, RANKING, roundScore, titleMatch, type RankingParameters, type ScoreExplanation } from "./ranking";
import { SnapshotError } from "./snapshot";
import { tokenize, wordSequence } from "./tokenizer";
import { comparePaths } from "../notes/paths";

export { FIELD_COUNT, type IndexDoc } from "./index-builder";

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

export interface SearchHit {
  path: string;
  /** Larger is better; rounded to 3 decimals. */
  score: number;
  /** The index terms that matched, sorted (stem, prefix and fuzzy expansions included). */
  terms: string[];
  /** The parts of `score`, when the search asked for them. */
  explanation?: ScoreExplanation;
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

const PHRASE_READ_CONCURRENCY = 8;
/** Terms or posting runs of a batch between two pauses of `appendBatchSliced`. */
const APPEND_STEP = 2048;


interface PhraseCheck {
  words: string[];
  candidates: CandidateTerm[];
  pairs: Uint32Array;
}

class Candidate {
  constructor(
    readonly id: number,
    readonly score: number,
    /** The candidate's match in the query's evaluation. */
    readonly at: number,
    /** Looked up only when needed (ties, the page, reading its text): most candidates never are. */
    public path: string | null,
  ) {}
}

/**
 * The evaluation's matches that pass the query's checks, scored. A function of its own so that nothing
 * follows its loop: V8 compiles a loop over 50,000 matches while it runs, and the search's code after
 * the loop, never run before, deoptimized that compiled loop at its end on every query of a fresh
 * process.
 */
function collectCandidates(
  evaluation: Evaluation,
  terms: readonly QueryTerm[],
  ranking: RankingParameters,
  fieldLengths: Int32Array,
  checks: HitChecks,
  filters: readonly (Uint8Array | undefined)[],
  excluded: ReadonlySet<number> | null,
  filter: ((path: string) => boolean) | undefined,
): Candidate[] {
  const candidates: Candidate[] = [];
  const whole = questionWeight(evaluation, terms, ranking);
  const titleLengths = fieldLengths;
  for (let i = 0; i < evaluation.ids.length; i++) {
    const id = evaluation.ids[i]!;
    if (!passesChecks(evaluation, i, checks, filters[id])) continue;
    if (excluded?.has(id)) continue;
    let path: string | null = null;
    if (filter && !filter((path = evaluation.path(id)))) continue;
    candidates.push(new Candidate(id, matchScore(evaluation, i, terms, ranking, whole, titleLengths[id * FIELD_COUNT]!), i, path));
  }
  return candidates;
}

/** A phrase with the positions of its candidate terms among the query's terms. */
interface PhrasePositions {
  phrase: PhraseCheck;
  terms: number[];
}

/** What a match must have to be a hit, as positions among the query's terms. */
interface HitChecks {
  /** At least one of these, when any. */
  strong: number[];
  required: number[];
  phrases: PhrasePositions[];
  /** Each group: at least one alternative with all its terms and phrases. */
  groups: Array<Array<{ terms: number[]; phrases: PhrasePositions[] }>>;
}

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

/** Per-document arrays by short id, grown as ids are handed out. */
class Documents implements DocumentTable, FieldLengthStore {
  alive = new Uint8Array(0);
  fieldLengths = new Int32Array(0);
  filters: Array<Uint8Array | undefined> = [];
  readonly fieldCount = FIELD_COUNT;
  removals = 0;
  live = 0;
  /** Sum of each field's length over the live documents. */
  private readonly totals = new Float64Array(FIELD_COUNT);
  private readonly writer: () => MiniSearchWriter;

  constructor(writer: () => MiniSearchWriter) {
    this.writer = writer;
  }

  path(id: number): string {
    return this.writer().documentId(id)!;
  }

  reserve(ids: number): void {
    if (this.alive.length >= ids) return;
    const capacity = Math.max(ids, this.alive.length * 2, 256);
    const alive = new Uint8Array(capacity);
    alive.set(this.alive);
    const fieldLengths = new Int32Array(capacity * FIELD_COUNT);
    fieldLengths.set(this.fieldLengths);
    this.alive = alive;
    this.fieldLengths = fieldLengths;
  }

  add(id: number, lengths: ArrayLike<number>, filter: Uint8Array | undefined): void {
    this.setLengths(id, lengths);
    for (let f = 0; f < FIELD_COUNT; f++) this.totals[f] = this.totals[f]! + lengths[f]!;
    this.alive[id] = 1;
    this.filters[id] = filter;
    this.live += 1;
  }

  setLengths(id: number, lengths: ArrayLike<number>): void {
    this.reserve(id + 1);
    for (let f = 0; f < FIELD_COUNT; f++) this.fieldLengths[id * FIELD_COUNT + f] = lengths[f]!;
  }

  lengthsOf(id: number): Int32Array | undefined {
    return this.alive[id] === 1 ? this.fieldLengths.subarray(id * FIELD_COUNT, (id + 1) * FIELD_COUNT) : undefined;
  }

  *indexedIds(): IterableIterator<number> {
    for (let id = 0; id < this.alive.length; id++) if (this.alive[id] === 1) yield id;
  }

  get indexed(): number {
    return this.live;
  }

  averageLength(f: number): number {
    return this.live > 0 ? this.totals[f]! / this.live : 0;
  }

  remove(id: number): void {
    for (let f = 0; f < FIELD_COUNT; f++) this.totals[f] = this.totals[f]! - this.fieldLengths[id * FIELD_COUNT + f]!;
    this.alive[id] = 0;
    this.filters[id] = undefined;
    this.live -= 1;
    this.removals += 1;
  }
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
    const phrases = query.phrases.map(toPhraseCheck);
    const groupPhrases = query.groups.map((group) => group.alternatives.map((alternative) => alternative.phrases.map(toPhraseCheck)));
    const excludedPhrases = query.excludedPhrases.map(toPhraseCheck);
    const positive = positiveTerms(query, [...phrases, ...groupPhrases.flat(2)]);
    if (positive.size === 0) return { total: 0, hits: [] };
    const terms = [...positive.values()];
    const positions = new Map(terms.map((term, position) => [term.term, position]));
    const at = (term: string): number => positions.get(term)!;
    const phraseAt = (phrase: PhraseCheck): PhrasePositions => ({ phrase, terms: phrase.candidates.map(({ term }) => at(term)) });

    const exclusion = this.exclusion(query, excludedPhrases);
    // A note matching only "how", "a" and "the" of a longer question is noise, not a hit; explicit
    // requirements (+the, phrases, groups) say on their own what a hit is.
    const unconstrained = query.required.length === 0 && query.phrases.length === 0 && query.groups.length === 0;
    const checks: HitChecks = {
      strong: unconstrained ? terms.flatMap((term, position) => (term.weak ? [] : [position])) : [],
      required: query.required.map(({ term }) => at(term)),
      phrases: phrases.map(phraseAt),
      groups: query.groups.map((group, g) =>
        group.alternatives.map((alternative, a) => ({ terms: alternative.terms.map(({ term }) => at(term)), phrases: groupPhrases[g]![a]!.map(phraseAt) })),
      ),
    };

    const ranking = this.ranking;
    const evaluation = this.evaluator.evaluate(this.plan(terms), ranking);
    const excluded = exclusion.excluded.size > 0 ? exclusion.excluded : null;
    const candidates = collectCandidates(evaluation, terms, ranking, this.documents.fieldLengths, checks, this.documents.filters, excluded, options.filter);
    const explain = options.explain === true ? { titleLengths: this.documents.fieldLengths, terms, ranking, whole: questionWeight(evaluation, terms, ranking) } : null;
    const pathOf = (candidate: Candidate): string => (candidate.path ??= evaluation.path(candidate.id));
    const byRank = (a: Candidate, b: Candidate): number => b.score - a.score || comparePaths(pathOf(a), pathOf(b));
    const start = Math.max(0, options.offset);
    const wanted = start + Math.max(0, options.limit);
    const hasPositivePhrases = phrases.length > 0 || groupPhrases.some((group) => group.some((alternative) => alternative.length > 0));
    if (!hasPositivePhrases && exclusion.suspects.size === 0) {
      // Nothing to read: only the page needs ordering, not every match of a word in all notes.
      return { total: candidates.length, hits: toHits(evaluation, bestCandidates(candidates, wanted, byRank).slice(start), pathOf, explain) };
    }
    const verified = await this.verifyPhrases(new RankedCandidates(candidates, byRank), wanted, pathOf, {
      evaluation,
      checks,
      phrases,
      hasPositivePhrases,
      suspects: exclusion.suspects,
      loadText: options.loadText,
    });
    const page: SearchPage = { total: verified.total, hits: toHits(evaluation, verified.kept.slice(start, wanted), pathOf, explain) };
    if (verified.estimated) page.totalEstimated = true;
    return page;
  }

  /** Notes certainly excluded, and notes holding every term of an excluded phrase (to be checked). */
  private exclusion(
    query: ParsedQuery,
    excludedPhrases: readonly PhraseCheck[],
  ): { excluded: Set<number>; suspects: Map<number, PhraseCheck[]> } {
    const excluded = new Set<number>();
    const suspects = new Map<number, PhraseCheck[]>();
    const lookups = new Map<string, QueryTerm>();
    for (const term of query.excluded) lookups.set(term.term, term);
    for (const phrase of excludedPhrases) {
      for (const candidate of phrase.candidates) {
        const known = lookups.get(candidate.term);
        lookups.set(candidate.term, {
          term: candidate.term,
          prefix: candidate.prefix || (known?.prefix ?? false),
          fuzzy: 0,
          weak: false,
          match: "exact",
        });
      }
    }
    if (lookups.size === 0) return { excluded, suspects };
    const terms = [...lookups.values()];
    const positions = new Map(terms.map((term, position) => [term.term, position]));
    const excludedTerms = query.excluded.map(({ term }) => positions.get(term)!);
    const phrases = excludedPhrases.map((phrase) => ({ phrase, terms: phrase.candidates.map(({ term }) => positions.get(term)!) }));
    const evaluation = this.evaluator.evaluate(this.plan(terms), this.ranking);
    for (let i = 0; i < evaluation.ids.length; i++) {
      const id = evaluation.ids[i]!;
      if (excludedTerms.some((term) => matchedTerm(evaluation, i, term))) {
        excluded.add(id);
        continue;
      }
      const filter = this.documents.filters[id];
      const suspected = phrases.filter((plan) => mayHavePhrase(evaluation, i, plan, filter)).map(({ phrase }) => phrase);
      if (suspected.length > 0) suspects.set(id, suspected);
    }
    return { excluded, suspects };
  }

  /**
   * Keeps the candidates (sorted best first) that really hold their phrases, reading their text in
   * rank order only until `wanted` are kept: a phrase of two common words has thousands of candidates,
   * and a page of 10 needs about 10 of them read. The rest is estimated from the share verified.
   */
  private async verifyPhrases(
    candidates: RankedCandidates,
    wanted: number,
    pathOf: (candidate: Candidate) => string,
    plan: PhrasePlan,
  ): Promise<{ kept: Candidate[]; total: number; estimated: boolean }> {
    const { hasPositivePhrases } = plan;
    const loadText = plan.loadText;
    if (!loadText) {
      const kept = candidates.all().filter((candidate) => !plan.suspects.has(candidate.id));
      return { kept, total: kept.length, estimated: false };
    }
    // Reads run up to PHRASE_READ_CONCURRENCY ahead of the candidate being decided, in rank order.
    const kept: Candidate[] = [];
    const verdicts = new Map<number, Promise<boolean>>();
    let launched = 0;
    let checked = 0;
    while (checked < candidates.length && (kept.length < wanted || checked === 0)) {
      while (launched < candidates.length && launched < checked + PHRASE_READ_CONCURRENCY) {
        const candidate = candidates.at(launched);
        if (hasPositivePhrases || plan.suspects.has(candidate.id)) {
          verdicts.set(launched, this.holdsPhrases(candidate, pathOf(candidate), plan, loadText).catch(() => false));
        }
        launched += 1;
      }
      const verdict = verdicts.get(checked);
      verdicts.delete(checked);
      if (verdict === undefined || (await verdict)) kept.push(candidates.at(checked));
      checked += 1;
    }
    const remaining = candidates.length - checked;
    if (remaining === 0) return { kept, total: kept.length, estimated: false };
    return { kept, total: kept.length + Math.round((remaining * kept.length) / checked), estimated: true };
  }

  private async holdsPhrases(
    candidate: Candidate,
    path: string,
    plan: PhrasePlan,
    loadText: (path: string) => Promise<string | null>,
  ): Promise<boolean> {
    const text = await loadText(path);
    if (text === null) return false;
    const body = new PhraseText(text);
    const titleWords = wordSequence(basename(path));
    const present = (phrase: PhraseCheck): boolean => body.contains(phrase.words) || containsPhrase(titleWords, phrase.words);
    if (!plan.phrases.every(present)) return false;
    const groupsHold = plan.checks.groups.every((alternatives) =>
      alternatives.some(
        (alternative) =>
          alternative.terms.every((term) => matchedTerm(plan.evaluation, candidate.at, term)) && alternative.phrases.every(({ phrase }) => present(phrase)),
      ),
    );
    if (!groupsHold) return false;
    return !(plan.suspects.get(candidate.id) ?? []).some(present);
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

interface ExplainPlan {
  titleLengths: Int32Array;
  terms: readonly QueryTerm[];
  ranking: RankingParameters;
  whole: number;
}

function toHits(evaluation: Evaluation, page: readonly Candidate[], pathOf: (candidate: Candidate) => string, explain: ExplainPlan | null): SearchHit[] {
  const matches = page.map(({ at }) => at);
  const terms = evaluation.terms(matches);
  const parts = explain ? evaluation.explain(matches) : null;
  return page.map((candidate, position) => {
    const hit: SearchHit = { path: pathOf(candidate), score: candidate.score, terms: terms[position]! };
    if (explain && parts) {
      hit.explanation = {
        score: candidate.score,
        coverage: roundScore(coverage(explain.ranking, coveredWeight(evaluation, candidate.at, explain.terms, explain.ranking), explain.whole)),
        title: roundScore(titleMatch(explain.ranking, evaluation.titleWords[candidate.at]!, explain.titleLengths[candidate.id * FIELD_COUNT]!)),
        words: parts[position]!,
      };
    }
    return hit;
  });
}

/** The first `wanted` candidates in rank order, without sorting them all when few are wanted. */
/**
 * Candidates in rank order, ordered only as far as they are asked for: a phrase of two common words
 * has thousands of candidates, and a page of ten is usually decided by the first dozen (a binary heap,
 * built in one pass, gives them up one by one).
 */
class RankedCandidates {
  readonly length: number;
  private readonly heap: Candidate[];
  private readonly ordered: Candidate[] = [];
  private readonly byRank: (a: Candidate, b: Candidate) => number;

  constructor(candidates: Candidate[], byRank: (a: Candidate, b: Candidate) => number) {
    this.heap = candidates;
    this.length = candidates.length;
    this.byRank = byRank;
    for (let at = (candidates.length >> 1) - 1; at >= 0; at--) this.siftDown(at);
  }

  /** The candidate of rank `rank` (0 the best); `rank` below `length`. */
  at(rank: number): Candidate {
    while (this.ordered.length <= rank) this.ordered.push(this.pop());
    return this.ordered[rank]!;
  }

  all(): Candidate[] {
    return Array.from({ length: this.length }, (_, rank) => this.at(rank));
  }

  private pop(): Candidate {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      this.siftDown(0);
    }
    return top;
  }

  private siftDown(from: number): void {
    const heap = this.heap;
    let at = from;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= heap.length) return;
      const right = left + 1;
      const better = right < heap.length && this.byRank(heap[right]!, heap[left]!) < 0 ? right : left;
      if (this.byRank(heap[better]!, heap[at]!) >= 0) return;
      [heap[at], heap[better]] = [heap[better]!, heap[at]!];
      at = better;
    }
  }
}

function bestCandidates(candidates: Candidate[], wanted: number, byRank: (a: Candidate, b: Candidate) => number): Candidate[] {
  if (wanted <= 0) return [];
  if (wanted * 16 >= candidates.length) return candidates.sort(byRank).slice(0, wanted);
  const best: Candidate[] = [];
  for (const candidate of candidates) {
    if (best.length === wanted && byRank(candidate, best[wanted - 1]!) >= 0) continue;
    let low = 0;
    let high = best.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (byRank(best[middle]!, candidate) <= 0) low = middle + 1;
      else high = middle;
    }
    best.splice(low, 0, candidate);
    if (best.length > wanted) best.pop();
  }
  return best;
}

// Plain loops, no closures: these run once per matched note, thousands of times a query.
function passesChecks(evaluation: Evaluation, i: number, checks: HitChecks, filter: Uint8Array | undefined): boolean {
  if (checks.strong.length > 0) {
    let any = false;
    for (const term of checks.strong) if (matchedTerm(evaluation, i, term)) any = true;
    if (!any) return false;
  }
  for (const term of checks.required) if (!matchedTerm(evaluation, i, term)) return false;
  for (const plan of checks.phrases) if (!mayHavePhrase(evaluation, i, plan, filter)) return false;
  for (const alternatives of checks.groups) {
    let satisfied = false;
    for (const alternative of alternatives) {
      let all = true;
      for (const term of alternative.terms) if (!matchedTerm(evaluation, i, term)) all = false;
      for (const plan of alternative.phrases) if (all && !mayHavePhrase(evaluation, i, plan, filter)) all = false;
      if (all) {
        satisfied = true;
        break;
      }
    }
    if (!satisfied) return false;
  }
  return true;
}

/** The note holds every term the phrase is sure to be indexed with, and its filter every pair. */
function mayHavePhrase(evaluation: Evaluation, i: number, plan: PhrasePositions, filter: Uint8Array | undefined): boolean {
  for (const term of plan.terms) if (!matchedTerm(evaluation, i, term)) return false;
  return !filter || mayHoldPairs(filter, plan.phrase.pairs);
}

/** Σ weight × idf over every query word: what a note covering the whole question matched. */
function questionWeight(evaluation: Evaluation, terms: readonly QueryTerm[], ranking: RankingParameters): number {
  let whole = 0;
  for (let t = 0; t < terms.length; t++) whole += queryWordWeight(ranking, terms[t]!.weak) * evaluation.idf[t]!;
  return whole;
}

/** Σ weight × idf over the words match `i` matched, a near spelling counting `fuzzyCoverage` of it. */
function coveredWeight(evaluation: Evaluation, i: number, terms: readonly QueryTerm[], ranking: RankingParameters): number {
  let covered = 0;
  for (let t = 0; t < terms.length; t++) {
    if (!matchedTerm(evaluation, i, t)) continue;
    covered += queryWordWeight(ranking, terms[t]!.weak) * evaluation.idf[t]! * (realTerm(evaluation, i, t) ? 1 : ranking.fuzzyCoverage);
  }
  return covered;
}

/** BM25F times coverage and the title factor (ranking.ts), rounded to 3 decimals. */
function matchScore(evaluation: Evaluation, i: number, terms: readonly QueryTerm[], ranking: RankingParameters, whole: number, titleLength: number): number {
  return roundScore(evaluation.scores[i]! * coverage(ranking, coveredWeight(evaluation, i, terms, ranking), whole) * titleMatch(ranking, evaluation.titleWords[i]!, titleLength));
}

interface PhrasePlan {
  evaluation: Evaluation;
  checks: HitChecks;
  phrases: PhraseCheck[];
  /** The query has phrases every hit must hold (else only suspects of excluded phrases are read). */
  hasPositivePhrases: boolean;
  suspects: ReadonlyMap<number, PhraseCheck[]>;
  loadText: ((path: string) => Promise<string | null>) | undefined;
}

function toPhraseCheck(words: string[]): PhraseCheck {
  return { words, candidates: phraseCandidateTerms(words), pairs: phrasePairHashes(words) };
}


function basename(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}


