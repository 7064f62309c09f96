// The hybrid re-ranking of a query's best lexical hits (and, once vectors exist, its nearest
// chunks' notes): each gets the parts of fusion.ts, notes reached only through the graph join them,
// and all are ordered by the fused score. Which notes note_search hides unless asked is here too.
import type { CachedMetadata, FrontMatterCache } from "../notes/metadata";
import { fuse, isFused, normaliseKeyword, rankFused, similarityGate, timeDecay, DEFAULT_FUSION_WEIGHTS, type FusionInputs, type FusionResult, type FusionWeights, type SimilarityGate, type TimePart, type TypePart } from "./fusion";
import { noteType, walkGraph, type GraphSource } from "./graph";
import type { TypesConfig } from "./types-config";

/**
 * Hidden from note_search unless the caller passes include_sensitive (the seed's visibility and
 * editorial flags): `visibility: sensitive`, `draft: true`, `private_journal: true`, `needs_review: true`.
 */
export function isHidden(frontmatter: FrontMatterCache | undefined): boolean {
  if (!frontmatter) return false;
  const visibility = frontmatter.visibility;
  if (typeof visibility === "string" && visibility.trim().toLowerCase() === "sensitive") return true;
  return frontmatter.draft === true || frontmatter.private_journal === true || frontmatter.needs_review === true;
}

export interface HybridCandidate {
  path: string;
  /** ranking.ts's score; 0 for a note found otherwise. */
  lexical: number;
}

export interface HybridContext {
  config: TypesConfig | null;
  /** Milliseconds since the epoch. */
  now: number;
  graph: GraphSource;
  /** A note's mtime (ms), for the time component when its frontmatter has no date. */
  mtime(path: string): number | null;
  /** May a note reached only through the graph join the results (filters, visibility)? */
  accept(path: string): boolean;
  /** May notes that are no lexical hit join at all (not when the query has operators they were not checked against)? */
  join: boolean;
  /** Best lexical score of the query (normalises keyword). */
  bestLexical: number;
  /** Similarity per note path, when vectors exist. */
  similarity?: ReadonlyMap<string, number>;
  /** The weights when the vault has no types note (its retrieval weights win); DEFAULT_FUSION_WEIGHTS when absent. */
  weights?: FusionWeights;
}

export interface HybridRanked {
  path: string;
  lexical: number;
  result: FusionResult;
}

const DAY_MS = 86_400_000;
const DATE_KEYS = ["updated", "modified", "created"] as const;

/** The time part of a note: its newest-named date in frontmatter, else its mtime. */
export function timePart(frontmatter: FrontMatterCache | undefined, mtime: number | null, now: number, lambda: number): TimePart {
  for (const key of DATE_KEYS) {
    const when = dateOf(frontmatter?.[key]);
    if (when !== null) return { value: timeDecay(lambda, (now - when) / DAY_MS), age_days: (now - when) / DAY_MS, lambda, source: key };
  }
  const age = mtime === null ? 0 : (now - mtime) / DAY_MS;
  return { value: timeDecay(lambda, age), age_days: age, lambda, source: "mtime" };
}

function dateOf(value: unknown): number | null {
  if (value instanceof Date) return Number.isFinite(value.getTime()) ? value.getTime() : null;
  if (typeof value !== "string" || !/^\d{4}-\d{2}-\d{2}/.test(value)) return null;
  const when = Date.parse(value);
  return Number.isFinite(when) ? when : null;
}

/** The type part: the note's own `retriever_weight` (0..1), else its type's, else the default. */
export function typePart(cache: CachedMetadata | null, config: TypesConfig): TypePart {
  const type = noteType(cache);
  const own = cache?.frontmatter?.retriever_weight;
  if (typeof own === "number" && own >= 0 && own <= 1) return { value: own, type, source: "note" };
  const profile = type === null ? undefined : config.types.get(type);
  return profile ? { value: profile.retrieverWeight, type, source: "type" } : { value: config.defaultRetrieverWeight, type, source: "default" };
}

/**
 * The candidates (best lexical first), with the graph's newcomers, ordered by fused score. Without a
 * types config and similarities the order and scores are the lexical ones (fusion.ts).
 */
export function rankHybrid(candidates: readonly HybridCandidate[], context: HybridContext, compare: (a: string, b: string) => number): HybridRanked[] {
  const { config, similarity } = context;
  const inputs = new Map<string, FusionInputs>();
  // Measured over the lexical hits and the vector neighbours, before the graph adds its notes.
  let gate: SimilarityGate | undefined;
  for (const candidate of candidates) {
    inputs.set(candidate.path, { path: candidate.path, lexical: candidate.lexical, keyword: normaliseKeyword(candidate.lexical, context.bestLexical) });
  }
  if (similarity) {
    for (const path of similarity.keys()) {
      if (!inputs.has(path) && context.join && context.accept(path)) inputs.set(path, { path, lexical: 0, keyword: 0 });
    }
    for (const note of inputs.values()) note.similarity = similarity.get(note.path) ?? 0;
    gate = similarityGate(
      [...inputs.values()].map((note) => note.similarity ?? 0),
      candidates.filter((candidate) => candidate.lexical > 0).length,
    );
    for (const note of inputs.values()) note.gate = gate;
  }
  if (config) {
    if (config.graph.hops > 0 && config.weights.graph !== 0) {
      const seeds = new Map<string, number>();
      const bySeedValue = [...inputs.values()].map((note) => ({ path: note.path, base: Math.max(note.keyword, note.similarity ?? 0) }));
      bySeedValue.sort((a, b) => b.base - a.base || compare(a.path, b.path));
      for (const { path, base } of bySeedValue.slice(0, config.graph.seeds)) seeds.set(path, base);
      const parts = walkGraph(seeds, context.graph, config);
      for (const [path, part] of parts) {
        let note = inputs.get(path);
        if (!note) {
          if (part.value <= 0 || !context.join || !context.accept(path)) continue;
          inputs.set(path, (note = { path, lexical: 0, keyword: 0, ...(similarity ? { similarity: similarity.get(path) ?? 0 } : {}), ...(gate ? { gate } : {}) }));
        }
        note.graph = part;
      }
      for (const note of inputs.values()) note.graph ??= { value: 0, walks: [] };
    }
    for (const note of inputs.values()) {
      const cache = context.graph.cache(note.path);
      note.time = timePart(cache?.frontmatter, context.mtime(note.path), context.now, config.lambda);
      note.type = typePart(cache, config);
    }
  }
  const notes = [...inputs.values()];
  const fused = isFused(notes);
  const weights = config?.weights ?? context.weights ?? DEFAULT_FUSION_WEIGHTS;
  return rankFused(
    notes.map((note) => ({ path: note.path, lexical: note.lexical, result: fuse(note, weights, fused) })),
    compare,
  );
}
