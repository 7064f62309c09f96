// note_search's modes past the lexical one. Semantic ranks notes by their best chunk's similarity to
// the question. Hybrid takes the union of the lexical candidates and the vector top-k and orders it by
// fusion.ts: a lexical hit the vectors do not reach keeps its keyword part, a note the words miss but
// the meaning finds keeps its similarity. A query with operators (+word, -word, "phrase") is a
// constraint on the words, so there only the lexical hits are re-ordered.
import { DEFAULT_FUSION_WEIGHTS, fuse, normaliseKeyword, type FusionResult, type FusionWeights } from "../fusion";
import { roundScore } from "../ranking";
import type { SearchHit } from "../candidates";
import type { ParsedQuery } from "../query";
import type { VectorMatch } from "./vector-index";

export type SearchMode = "lexical" | "semantic" | "hybrid";
export const SEARCH_MODES: readonly SearchMode[] = ["lexical", "semantic", "hybrid"];

/** Lexical hits considered and vector neighbours taken, at the least (more when the page reaches further). */
export const HYBRID_CANDIDATES = 100;

export interface MatchedChunk {
  index: number;
  heading: string;
  similarity: number;
}

export interface RankedHit extends SearchHit {
  fusion?: FusionResult;
  chunk?: MatchedChunk;
}

export interface RankedPage {
  total: number;
  totalEstimated?: boolean;
  hits: RankedHit[];
}

export interface VectorSide {
  search(k: number, accept?: (path: string) => boolean): VectorMatch[];
  similarity(path: string): VectorMatch | null;
  /** Notes with vectors that pass the filter. */
  count(accept?: (path: string) => boolean): number;
}

export interface HybridRequest {
  limit: number;
  offset: number;
  filter?: (path: string) => boolean;
  explain: boolean;
  weights?: FusionWeights;
}

function matched(match: VectorMatch): MatchedChunk {
  return { index: match.chunk.index, heading: match.chunk.heading, similarity: roundScore(match.similarity) };
}

/** True when the query holds operators that a note must satisfy word for word. */
export function isConstrained(query: ParsedQuery): boolean {
  return query.required.length > 0 || query.excluded.length > 0 || query.phrases.length > 0 || query.excludedPhrases.length > 0 || query.groups.length > 0;
}

export function semanticPage(vectors: VectorSide, request: HybridRequest): RankedPage {
  const wanted = request.offset + request.limit;
  const matches = vectors.search(wanted, request.filter);
  const hits = matches.slice(request.offset).map((match): RankedHit => {
    const hit: RankedHit = { path: match.path, score: roundScore(match.similarity), terms: [] };
    if (request.explain) hit.chunk = matched(match);
    return hit;
  });
  return { total: matches.length < wanted ? matches.length : vectors.count(request.filter), hits };
}

export async function hybridPage(
  lexical: (limit: number) => Promise<RankedPage>,
  vectors: VectorSide,
  constrained: boolean,
  request: HybridRequest,
): Promise<RankedPage> {
  const weights = request.weights ?? DEFAULT_FUSION_WEIGHTS;
  const k = Math.max(HYBRID_CANDIDATES, request.offset + request.limit);
  const words = await lexical(k);
  const best = words.hits.reduce((top, hit) => Math.max(top, hit.score), 0);
  const candidates = new Map<string, { hit?: RankedHit; match: VectorMatch | null }>();
  for (const hit of words.hits) candidates.set(hit.path, { hit, match: vectors.similarity(hit.path) });
  let meaningOnly = 0;
  if (!constrained) {
    for (const match of vectors.search(k, request.filter)) {
      if (candidates.has(match.path)) continue;
      candidates.set(match.path, { match });
      meaningOnly += 1;
    }
  }
  const ranked = [...candidates].map(([path, { hit, match }]) => {
    const lexicalScore = hit?.score ?? 0;
    const result = fuse({ path, lexical: lexicalScore, keyword: normaliseKeyword(lexicalScore, best), ...(match ? { similarity: match.similarity } : {}) }, weights, true);
    return { path, hit, match, result };
  });
  ranked.sort((a, b) => b.result.score - a.result.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const hits = ranked.slice(request.offset, request.offset + request.limit).map(({ path, hit, match, result }): RankedHit => {
    const out: RankedHit = { path, score: roundScore(result.score), terms: hit?.terms ?? [] };
    if (request.explain) {
      if (hit?.explanation) out.explanation = hit.explanation;
      out.fusion = result;
      if (match) out.chunk = matched(match);
    }
    return out;
  });
  const page: RankedPage = { total: words.total + meaningOnly, hits };
  if (words.totalEstimated || words.total > words.hits.length) page.totalEstimated = true;
  return page;
}
