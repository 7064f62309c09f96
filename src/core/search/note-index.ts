// The full-text index of a vault's notes over MiniSearch (BM25). It stores no document fields: bodies
// of 20,000 notes would double memory and the snapshot, so phrases are verified by reading only the
// candidate notes, and MiniSearch's own id maps (ids are the note paths) are the only per-note state
// besides the postings. Notes are tokenized once, here: the resulting term vectors go into MiniSearch
// and, until the next snapshot, to the shard that persists them.
import MiniSearch, { type Options } from "minisearch";
import { MiniSearchWriter } from "./minisearch-access";
import { PhraseText, containsPhrase, phraseCandidateTerms, type CandidateTerm } from "./phrase";
import { buildPhraseFilter, isPhraseFilter, mayHoldPairs, phrasePairHashes } from "./phrase-filter";
import type { DocVector } from "./postings";
import { mergeShards, type MergedShard } from "./shard-merge";
import { STOP_WORD_WEIGHT, type ParsedQuery, type QueryTerm } from "./query";
import { FUZZY_MATCH_CREDIT, positiveTerms } from "./scoring";
import { QueryEvaluator, matchedTerm, realTerm, type Evaluation } from "./evaluator";
import { SnapshotError } from "./snapshot";
import { tokenize, tokenizeWithWords, wordSequence } from "./tokenizer";

export interface IndexDoc {
  path: string;
  title: string;
  aliases: string[];
  headings: string[];
  tags: string[];
  body: string;
}

export interface SearchHit {
  path: string;
  /** Larger is better; rounded to 3 decimals. */
  score: number;
  /** The index terms that matched, sorted (prefix and fuzzy expansions included). */
  terms: string[];
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
}

/** Field weights: a word in the title says more about a note than the same word in its body. */
export const FIELD_BOOSTS = { title: 4, aliases: 3, headings: 2, tags: 2, body: 1 } as const;

/** Bump when the tokenizer, fields or persisted postings change: older snapshots are then rebuilt. */
export const NOTE_INDEX_VERSION = 2;

const PHRASE_READ_CONCURRENCY = 8;

type FieldName = keyof typeof FIELD_BOOSTS;
const FIELDS = Object.keys(FIELD_BOOSTS) as FieldName[];
export const FIELD_COUNT = FIELDS.length;

interface PhraseCheck {
  words: string[];
  candidates: CandidateTerm[];
  pairs: Uint32Array;
}

interface Candidate {
  path: string;
  score: number;
  /** The candidate's match in the query's evaluation. */
  at: number;
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

/**
 * One shard's notes as a snapshot holds them: `paths[d]` with field lengths `lengths[d]` (and phrase
 * filter `filters[d]`, when given) is document d of the shard's encoded postings chunks.
 */
export interface StoredShard {
  paths: readonly string[];
  lengths: readonly unknown[];
  filters?: ReadonlyArray<Uint8Array | undefined>;
  chunks: readonly Uint8Array[];
}

function fieldText(doc: IndexDoc, field: FieldName): string {
  const value = doc[field];
  return typeof value === "string" ? value : value.join("\n");
}

function engineOptions(): Options<never> {
  return {
    fields: FIELDS,
    storeFields: [],
    tokenize: (text) => tokenize(text),
    processTerm: (term) => term,
    // MiniSearch's warnings quote terms, which are note content (SPEC §11).
    logger: () => undefined,
    searchOptions: { boost: { ...FIELD_BOOSTS }, tokenize: (term) => [term], processTerm: (term) => term },
  };
}

/** The terms of a note per field, as MiniSearch's `add` would count them. */
export function vectorize(doc: IndexDoc): DocVector {
  const body = tokenizeWithWords(doc.body);
  const terms = FIELDS.map((field) => {
    const frequencies = new Map<string, number>();
    for (const term of field === "body" ? body.terms : tokenize(fieldText(doc, field))) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
    return frequencies;
  });
  // The sequences PhraseText and the title check of `holdsPhrases` read, so the filter agrees with them.
  const filter = buildPhraseFilter([body.words, wordSequence(basename(doc.path))]);
  return { lengths: terms.map((frequencies) => frequencies.size), terms, filter };
}

export class NoteIndex {
  // Replaced whole by `clear`, so a load that failed half-way leaves nothing behind.
  private engine: MiniSearch<never>;
  private writer: MiniSearchWriter;
  private evaluator: QueryEvaluator;
  private readonly filters = new Map<string, Uint8Array>();

  constructor() {
    this.engine = new MiniSearch(engineOptions());
    this.writer = new MiniSearchWriter(this.engine as MiniSearch<unknown>);
    this.evaluator = new QueryEvaluator(this.engine);
  }

  /** Removes every note. */
  clear(): void {
    this.engine = new MiniSearch(engineOptions());
    this.writer = new MiniSearchWriter(this.engine as MiniSearch<unknown>);
    this.evaluator = new QueryEvaluator(this.engine);
    this.filters.clear();
  }

  get size(): number {
    return this.engine.documentCount;
  }

  has(path: string): boolean {
    return this.engine.has(path);
  }

  /** Sorted. */
  paths(): string[] {
    return [...this.writer.ids()].sort(comparePaths);
  }

  /** Indexes a note, replacing an indexed one of the same path; returns the terms it indexed. */
  add(doc: IndexDoc): DocVector {
    const vector = vectorize(doc);
    this.insert(doc.path, vector);
    return vector;
  }

  replace(doc: IndexDoc): DocVector {
    return this.add(doc);
  }

  /** Indexes a note from its term vector (see `vectorize`), replacing an indexed one of the same path. */
  insert(path: string, vector: DocVector): void {
    if (this.engine.has(path)) this.engine.discard(path);
    if (vector.filter) this.filters.set(path, vector.filter);
    else this.filters.delete(path);
    const shortId = this.writer.addDocument(path, vector.lengths);
    vector.terms.forEach((terms, field) => {
      for (const [term, frequency] of terms) this.writer.fieldPostings(term, field).append(shortId, frequency);
    });
  }

  /** False when the path was not indexed. */
  remove(path: string): boolean {
    if (!this.engine.has(path)) return false;
    this.engine.discard(path);
    this.filters.delete(path);
    return true;
  }

  /** The note's phrase filter, when it has one. */
  phraseFilter(path: string): Uint8Array | undefined {
    return this.filters.get(path);
  }

  /**
   * Throws a SnapshotError("format") unless the shard's lengths and filters are well formed; its
   * postings are checked as `loadShards` reads them.
   */
  checkShard(shard: StoredShard): void {
    const { paths, lengths, filters } = shard;
    if (lengths.length !== paths.length || !lengths.every(isFieldLengths)) {
      throw new SnapshotError("format", "Shard has malformed field lengths.");
    }
    if (filters && (filters.length !== paths.length || !filters.every((filter) => filter === undefined || isPhraseFilter(filter)))) {
      throw new SnapshotError("format", "Shard has malformed phrase filters.");
    }
    if (paths.length === 0 && shard.chunks.length > 0) throw new SnapshotError("format", "Shard has postings but no notes.");
  }

  /**
   * Adds the notes of shards that passed `checkShard`, replacing indexed notes of the same paths, with
   * their postings merged term by term over all the shards (see shard-merge.ts). A malformed chunk
   * (written by a faulty version: the checksums passed) throws a SnapshotError("format") and leaves
   * the index empty: checking every chunk first would double the work of every start.
   */
  async loadShards(shards: readonly StoredShard[], pause: () => Promise<void>): Promise<void> {
    for (const shard of shards) this.checkShard(shard);
    const merged: MergedShard[] = [];
    for (const shard of shards) {
      const ids = Int32Array.from(shard.paths, (path, position) => {
        if (this.engine.has(path)) this.engine.discard(path);
        const filter = shard.filters?.[position];
        if (filter) this.filters.set(path, filter);
        else this.filters.delete(path);
        return this.writer.addDocument(path, shard.lengths[position] as number[]);
      });
      merged.push({ ids, chunks: shard.chunks });
      await pause();
    }
    try {
      await mergeShards(merged, FIELD_COUNT, (term, field, pairs) => this.writer.installPostings(term, field, pairs), pause);
    } catch (error) {
      this.clear();
      throw error;
    }
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
      strong: unconstrained ? terms.flatMap((term, position) => (term.weight > STOP_WORD_WEIGHT ? [position] : [])) : [],
      required: query.required.map(({ term }) => at(term)),
      phrases: phrases.map(phraseAt),
      groups: query.groups.map((group, g) =>
        group.alternatives.map((alternative, a) => ({ terms: alternative.terms.map(({ term }) => at(term)), phrases: groupPhrases[g]![a]!.map(phraseAt) })),
      ),
    };

    const evaluation = this.evaluator.evaluate(terms);
    const candidates: Candidate[] = [];
    for (let i = 0; i < evaluation.ids.length; i++) {
      const path = evaluation.path(evaluation.ids[i]!);
      if (exclusion.excluded.has(path)) continue;
      if (options.filter && !options.filter(path)) continue;
      if (!passesChecks(evaluation, i, checks, this.filters.get(path))) continue;
      candidates.push({ path, score: matchScore(evaluation, i, terms), at: i });
    }
    const start = Math.max(0, options.offset);
    const wanted = start + Math.max(0, options.limit);
    const hasPositivePhrases = phrases.length > 0 || groupPhrases.some((group) => group.some((alternative) => alternative.length > 0));
    if (!hasPositivePhrases && exclusion.suspects.size === 0) {
      // Nothing to read: only the page needs ordering, not every match of a word in all notes.
      const hits = bestCandidates(candidates, wanted)
        .slice(start)
        .map(({ path, score: value, at: i }) => ({ path, score: value, terms: evaluation.terms(evaluation.ids[i]!) }));
      return { total: candidates.length, hits };
    }
    candidates.sort(byRank);
    const verified = await this.verifyPhrases(candidates, wanted, {
      evaluation,
      checks,
      phrases,
      hasPositivePhrases,
      suspects: exclusion.suspects,
      loadText: options.loadText,
    });
    const hits = verified.kept
      .slice(start, wanted)
      .map(({ path, score: value, at: i }) => ({ path, score: value, terms: evaluation.terms(evaluation.ids[i]!) }));
    const page: SearchPage = { total: verified.total, hits };
    if (verified.estimated) page.totalEstimated = true;
    return page;
  }

  /** Notes certainly excluded, and notes holding every term of an excluded phrase (to be checked). */
  private exclusion(
    query: ParsedQuery,
    excludedPhrases: readonly PhraseCheck[],
  ): { excluded: Set<string>; suspects: Map<string, PhraseCheck[]> } {
    const excluded = new Set<string>();
    const suspects = new Map<string, PhraseCheck[]>();
    const lookups = new Map<string, QueryTerm>();
    for (const term of query.excluded) lookups.set(term.term, term);
    for (const phrase of excludedPhrases) {
      for (const candidate of phrase.candidates) {
        const known = lookups.get(candidate.term);
        lookups.set(candidate.term, {
          term: candidate.term,
          prefix: candidate.prefix || (known?.prefix ?? false),
          fuzzy: 0,
          weight: 1,
        });
      }
    }
    if (lookups.size === 0) return { excluded, suspects };
    const terms = [...lookups.values()];
    const positions = new Map(terms.map((term, position) => [term.term, position]));
    const excludedTerms = query.excluded.map(({ term }) => positions.get(term)!);
    const phrases = excludedPhrases.map((phrase) => ({ phrase, terms: phrase.candidates.map(({ term }) => positions.get(term)!) }));
    const evaluation = this.evaluator.evaluate(terms);
    for (let i = 0; i < evaluation.ids.length; i++) {
      const path = evaluation.path(evaluation.ids[i]!);
      if (excludedTerms.some((term) => matchedTerm(evaluation, i, term))) {
        excluded.add(path);
        continue;
      }
      const filter = this.filters.get(path);
      const suspected = phrases.filter((plan) => mayHavePhrase(evaluation, i, plan, filter)).map(({ phrase }) => phrase);
      if (suspected.length > 0) suspects.set(path, suspected);
    }
    return { excluded, suspects };
  }

  /**
   * Keeps the candidates (sorted best first) that really hold their phrases, reading their text in
   * rank order only until `wanted` are kept: a phrase of two common words has thousands of candidates,
   * and a page of 10 needs about 10 of them read. The rest is estimated from the share verified.
   */
  private async verifyPhrases(
    candidates: Candidate[],
    wanted: number,
    plan: PhrasePlan,
  ): Promise<{ kept: Candidate[]; total: number; estimated: boolean }> {
    const { hasPositivePhrases } = plan;
    const loadText = plan.loadText;
    if (!loadText) {
      const kept = candidates.filter((candidate) => !plan.suspects.has(candidate.path));
      return { kept, total: kept.length, estimated: false };
    }
    // Reads run up to PHRASE_READ_CONCURRENCY ahead of the candidate being decided, in rank order.
    const kept: Candidate[] = [];
    const verdicts = new Map<number, Promise<boolean>>();
    let launched = 0;
    let checked = 0;
    while (checked < candidates.length && (kept.length < wanted || checked === 0)) {
      while (launched < candidates.length && launched < checked + PHRASE_READ_CONCURRENCY) {
        const candidate = candidates[launched]!;
        if (hasPositivePhrases || plan.suspects.has(candidate.path)) {
          verdicts.set(launched, this.holdsPhrases(candidate, plan, loadText).catch(() => false));
        }
        launched += 1;
      }
      const verdict = verdicts.get(checked);
      verdicts.delete(checked);
      if (verdict === undefined || (await verdict)) kept.push(candidates[checked]!);
      checked += 1;
    }
    const remaining = candidates.length - checked;
    if (remaining === 0) return { kept, total: kept.length, estimated: false };
    return { kept, total: kept.length + Math.round((remaining * kept.length) / checked), estimated: true };
  }

  private async holdsPhrases(
    candidate: Candidate,
    plan: PhrasePlan,
    loadText: (path: string) => Promise<string | null>,
  ): Promise<boolean> {
    const text = await loadText(candidate.path);
    if (text === null) return false;
    const body = new PhraseText(text);
    const titleWords = wordSequence(basename(candidate.path));
    const present = (phrase: PhraseCheck): boolean => body.contains(phrase.words) || containsPhrase(titleWords, phrase.words);
    if (!plan.phrases.every(present)) return false;
    const groupsHold = plan.checks.groups.every((alternatives) =>
      alternatives.some(
        (alternative) =>
          alternative.terms.every((term) => matchedTerm(plan.evaluation, candidate.at, term)) && alternative.phrases.every(({ phrase }) => present(phrase)),
      ),
    );
    if (!groupsHold) return false;
    return !(plan.suspects.get(candidate.path) ?? []).some(present);
  }
}

function byRank(a: Candidate, b: Candidate): number {
  return b.score - a.score || comparePaths(a.path, b.path);
}

/** The first `wanted` candidates in rank order, without sorting them all when few are wanted. */
function bestCandidates(candidates: Candidate[], wanted: number): Candidate[] {
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

/**
 * BM25 summed over the query terms, times the weight of the query terms matched (a near-miss spelling
 * counting FUZZY_MATCH_CREDIT): MiniSearch multiplies by their plain count instead, which would let a
 * note win by matching "a", "of" and "the". Rounded to 3 decimals.
 */
function matchScore(evaluation: Evaluation, i: number, terms: readonly QueryTerm[]): number {
  let count = 0;
  let coordination = 0;
  for (let t = 0; t < terms.length; t++) {
    if (!matchedTerm(evaluation, i, t)) continue;
    count += 1;
    coordination += terms[t]!.weight * (realTerm(evaluation, i, t) ? 1 : FUZZY_MATCH_CREDIT);
  }
  const sum = evaluation.scores[i]!;
  // MiniSearch's score is the sum times the matched count; dividing it out again keeps scores equal to
  // the bit with those computed from MiniSearch's results.
  const quality = Math.max(1, count);
  const bm25 = (sum * quality) / quality;
  return Math.round(bm25 * coordination * 1000) / 1000;
}

function isFieldLengths(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.length === FIELD_COUNT &&
    value.every((length) => Number.isInteger(length) && (length as number) >= 0)
  );
}

interface PhrasePlan {
  evaluation: Evaluation;
  checks: HitChecks;
  phrases: PhraseCheck[];
  /** The query has phrases every hit must hold (else only suspects of excluded phrases are read). */
  hasPositivePhrases: boolean;
  suspects: ReadonlyMap<string, PhraseCheck[]>;
  loadText: ((path: string) => Promise<string | null>) | undefined;
}

function toPhraseCheck(words: string[]): PhraseCheck {
  return { words, candidates: phraseCandidateTerms(words), pairs: phrasePairHashes(words) };
}

function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function basename(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}


