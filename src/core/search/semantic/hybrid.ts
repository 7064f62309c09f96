// note_search's modes past the lexical one. Semantic ranks notes by their best chunk's similarity to
// the question. Hybrid (the engine with ../hybrid.ts) takes the union of the lexical candidates and
// the vector top-k and orders it by fusion.ts: a lexical hit the vectors do not reach keeps its
// keyword part, a note the words miss but the meaning finds keeps its similarity. A query with
// operators (+word, -word, "phrase") is a constraint on the words, so there only the lexical hits
// are re-ordered.
import type { FusionResult, FusionWeights } from "../fusion";
import { roundScore } from "../ranking";
import type { SearchHit } from "../candidates";
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
