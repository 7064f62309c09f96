// The matches of a query that are hits, scored (ranking.ts) and put in rank order only as far as a
// page needs: a word in every note matches thousands, and a page shows ten.
import { matchedTerm, realTerm, type Evaluation } from "./evaluator";
import { passesChecks, type HitChecks } from "./query-plan";
import type { QueryTerm } from "./query";
import { coverage, FIELD_COUNT, noteScore, roundScore, titleMatch, wordCoverage, type RankingParameters, type ScoreExplanation } from "./ranking";

export class Candidate {
  constructor(
    readonly id: number,
    readonly score: number,
    /** The candidate's match in the query's evaluation. */
    readonly at: number,
    /** Looked up only when needed (ties, the page, reading its text): most candidates never are. */
    public path: string | null,
  ) {}
}

/** A page's hit as the index returns it. */
export interface SearchHit {
  path: string;
  /** Larger is better; rounded to 3 decimals. */
  score: number;
  /** The index terms that matched, sorted (stem, prefix and fuzzy expansions included). */
  terms: string[];
  /** The parts of `score`, when the search asked for them. */
  explanation?: ScoreExplanation;
}

/** How a query's matches are scored. */
export interface Scoring {
  terms: readonly QueryTerm[];
  ranking: RankingParameters;
  /** Field lengths by short id (see Documents): the title's is the title factor's denominator. */
  fieldLengths: Int32Array;
}

/** Σ wordCoverage() over every query word. */
function wholeQuestion(evaluation: Evaluation, scoring: Scoring): number {
  let whole = 0;
  for (let t = 0; t < scoring.terms.length; t++) whole += wordCoverage(scoring.ranking, scoring.terms[t]!.weak, evaluation.idf[t]!, true);
  return whole;
}

/** Σ wordCoverage() over the words match `i` matched. */
function coveredQuestion(evaluation: Evaluation, i: number, scoring: Scoring): number {
  let covered = 0;
  for (let t = 0; t < scoring.terms.length; t++) {
    if (matchedTerm(evaluation, i, t)) covered += wordCoverage(scoring.ranking, scoring.terms[t]!.weak, evaluation.idf[t]!, realTerm(evaluation, i, t));
  }
  return covered;
}

/**
 * The evaluation's matches that pass the query's checks, scored. A function of its own so that nothing
 * follows its loop: V8 compiles a loop over 50,000 matches while it runs, and the search's code after
 * the loop, never run before, deoptimized that compiled loop at its end on every query of a fresh
 * process.
 */
export function collectCandidates(
  evaluation: Evaluation,
  scoring: Scoring,
  checks: HitChecks,
  filters: readonly (Uint8Array | undefined)[],
  excluded: ReadonlySet<number> | null,
  filter: ((path: string) => boolean) | undefined,
): Candidate[] {
  const candidates: Candidate[] = [];
  const whole = wholeQuestion(evaluation, scoring);
  const { ranking, fieldLengths } = scoring;
  for (let i = 0; i < evaluation.ids.length; i++) {
    const id = evaluation.ids[i]!;
    if (!passesChecks(evaluation, i, checks, filters[id])) continue;
    if (excluded?.has(id)) continue;
    let path: string | null = null;
    if (filter && !filter((path = evaluation.path(id)))) continue;
    const score = noteScore(ranking, evaluation.scores[i]!, coveredQuestion(evaluation, i, scoring), whole, evaluation.titleWords[i]!, fieldLengths[id * FIELD_COUNT]!);
    candidates.push(new Candidate(id, score, i, path));
  }
  return candidates;
}

/** The page's hits with their matched terms, and their score's parts when `explain`. */
export function toHits(evaluation: Evaluation, page: readonly Candidate[], pathOf: (candidate: Candidate) => string, scoring: Scoring, explain: boolean): SearchHit[] {
  const matches = page.map(({ at }) => at);
  const terms = evaluation.terms(matches);
  const parts = explain ? evaluation.explain(matches) : null;
  const whole = explain ? wholeQuestion(evaluation, scoring) : 0;
  return page.map((candidate, position) => {
    const hit: SearchHit = { path: pathOf(candidate), score: candidate.score, terms: terms[position]! };
    if (parts) {
      const { ranking, fieldLengths } = scoring;
      hit.explanation = {
        score: candidate.score,
        coverage: roundScore(coverage(ranking, coveredQuestion(evaluation, candidate.at, scoring), whole)),
        title: roundScore(titleMatch(ranking, evaluation.titleWords[candidate.at]!, fieldLengths[candidate.id * FIELD_COUNT]!)),
        words: parts[position]!,
      };
    }
    return hit;
  });
}

/**
 * Candidates in rank order, ordered only as far as they are asked for: a phrase of two common words
 * has thousands of candidates, and a page of ten is usually decided by the first dozen (a binary heap,
 * built in one pass, gives them up one by one).
 */
export class RankedCandidates {
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

/** The first `wanted` candidates in rank order, without sorting them all when few are wanted. */
export function bestCandidates(candidates: Candidate[], wanted: number, byRank: (a: Candidate, b: Candidate) => number): Candidate[] {
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
