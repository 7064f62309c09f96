// The types configuration of hybrid retrieval, in the shape of the knowledge-graph seed's types.yaml:
// per note type (`type:` in frontmatter) its retriever weight, chunk profile and default edge
// relations; the weight of each relation; the time decay λ; the fusion weights (fusion.ts); how far
// the graph is walked. It lives in the vault as a note, TYPES_NOTE, whose first ```yaml (or ```types)
// code block holds it, so it is edited, synced and versioned like any note. Without that note the
// graph, time and type components are off and note_search ranks by words alone. A note that does not
// parse or validate is reported (vault_list `types`) and ignored: search goes on without it.
import { parse as parseYaml } from "yaml";
import { DEFAULT_FUSION_WEIGHTS, type FusionWeights } from "./fusion";

export const TYPES_NOTE = "_config/types.md";

export type ChunkProfile = "short" | "medium" | "long";

export interface TypeProfile {
  /** The type weight ε multiplies, 0..1. */
  readonly retrieverWeight: number;
  readonly chunkProfile: ChunkProfile;
  /** Relations a plain link of a note of this type stands for (rule edges), in place of links_to. */
  readonly edgeDefaults: readonly string[];
}

export interface GraphSettings {
  /** 1 or 2. */
  readonly hops: number;
  /** Multiplies a walk's value once per hop after the first. */
  readonly hopDecay: number;
  /** How many of the query's best hits the walk starts from. */
  readonly seeds: number;
  /** Weight of a relation relationWeights does not name (a frontmatter property holding links). */
  readonly defaultRelationWeight: number;
}

export interface TypesConfig {
  readonly types: ReadonlyMap<string, TypeProfile>;
  readonly relationWeights: ReadonlyMap<string, number>;
  /** λ of exp(−λ × age in days). */
  readonly lambda: number;
  readonly weights: FusionWeights;
  readonly graph: GraphSettings;
  /** Type weight of a note with no `type`, or one the config does not name. */
  readonly defaultRetrieverWeight: number;
}

/** The seed's relation weights, with links_to (a plain wiki or Markdown link) as references. */
export const DEFAULT_RELATION_WEIGHTS: Readonly<Record<string, number>> = Object.freeze({
  links_to: 1.0,
  references: 1.0,
  related_to: 0.6,
  related: 0.6,
  depends_on: 1.2,
  belongs_to: 0.8,
  derived_from: 1.1,
  inspired_by: 0.8,
  supports: 1.0,
  contradicts: -0.9,
});

/** ~ 277 days' half-life, as in the seed. */
export const DEFAULT_LAMBDA = 0.0025;

export const DEFAULT_GRAPH: GraphSettings = Object.freeze({ hops: 2, hopDecay: 0.5, seeds: 10, defaultRelationWeight: 0.5 });

export const DEFAULT_RETRIEVER_WEIGHT = 0.5;

export type TypesConfigStatus =
  | { state: "absent"; path: string }
  | { state: "loaded"; path: string; types: number; relations: number }
  | { state: "invalid"; path: string; error: string };

/** The YAML of a types note: its first ```yaml or ```types block; null when it has none. */
export function typesBlock(text: string): string | null {
  const fence = /^(`{3,}|~{3,})[ \t]*(yaml|yml|types)[ \t]*\r?\n/im.exec(text);
  if (!fence) return null;
  const start = fence.index + fence[0].length;
  const marker = fence[1]!;
  const rest = text.slice(start);
  const close = new RegExp(`^${marker[0] === "`" ? "`" : "~"}{${marker.length},}[ \\t]*$`, "m").exec(rest);
  return close ? rest.slice(0, close.index) : rest;
}

/** Thrown with every problem found, one per line, each naming the key to fix. */
export class TypesConfigError extends Error {}

const CHUNK_PROFILES: readonly ChunkProfile[] = ["short", "medium", "long"];
const TOP_KEYS = new Set(["version", "types", "retrieval", "relation_weights", "time_decay", "graph", "defaults", "visibility_defaults"]);

/** Parses and validates a types note's text; throws TypesConfigError naming what is wrong. */
export function parseTypesConfig(text: string): TypesConfig {
  const yaml = typesBlock(text);
  if (yaml === null) throw new TypesConfigError(`${TYPES_NOTE} has no \`\`\`yaml code block; put the types configuration in one.`);
  let data: unknown;
  try {
    data = parseYaml(yaml, { maxAliasCount: 50 });
  } catch (error) {
    const message = error instanceof Error ? error.message.split("\n")[0]! : String(error);
    throw new TypesConfigError(`The yaml block does not parse: ${message}`);
  }
  const problems: string[] = [];
  const root = asMap(data, "the yaml block", problems);
  for (const key of Object.keys(root)) if (!TOP_KEYS.has(key)) problems.push(`Unknown key "${key}" (known: ${[...TOP_KEYS].join(", ")}).`);

  const types = new Map<string, TypeProfile>();
  for (const [name, value] of Object.entries(asMap(root.types ?? {}, "types", problems))) {
    const entry = asMap(value, `types.${name}`, problems);
    const retrieverWeight = unit(entry.retriever_weight ?? DEFAULT_RETRIEVER_WEIGHT, `types.${name}.retriever_weight`, problems);
    const profile = entry.chunk_profile ?? "medium";
    if (typeof profile !== "string" || !CHUNK_PROFILES.includes(profile as ChunkProfile)) problems.push(`types.${name}.chunk_profile must be short, medium or long.`);
    const edgeDefaults = strings(entry.edge_defaults ?? [], `types.${name}.edge_defaults`, problems);
    types.set(name, { retrieverWeight, chunkProfile: CHUNK_PROFILES.includes(profile as ChunkProfile) ? (profile as ChunkProfile) : "medium", edgeDefaults });
  }

  const relationWeights = new Map<string, number>(Object.entries(DEFAULT_RELATION_WEIGHTS));
  for (const [relation, value] of Object.entries(asMap(root.relation_weights ?? {}, "relation_weights", problems))) {
    relationWeights.set(relation, between(value, -2, 2, `relation_weights.${relation}`, problems));
  }

  const decay = asMap(root.time_decay ?? {}, "time_decay", problems);
  const lambda = between(decay.lambda ?? DEFAULT_LAMBDA, 0, 1, "time_decay.lambda", problems);

  const retrieval = asMap(root.retrieval ?? {}, "retrieval", problems);
  const weights: FusionWeights = {
    similarity: between(retrieval.alpha ?? DEFAULT_FUSION_WEIGHTS.similarity, 0, 10, "retrieval.alpha", problems),
    keyword: between(retrieval.beta ?? DEFAULT_FUSION_WEIGHTS.keyword, 0, 10, "retrieval.beta", problems),
    graph: between(retrieval.gamma ?? DEFAULT_FUSION_WEIGHTS.graph, 0, 10, "retrieval.gamma", problems),
    time: between(retrieval.delta ?? DEFAULT_FUSION_WEIGHTS.time, 0, 10, "retrieval.delta", problems),
    type: between(retrieval.epsilon ?? DEFAULT_FUSION_WEIGHTS.type, 0, 10, "retrieval.epsilon", problems),
  };

  const graphData = asMap(root.graph ?? {}, "graph", problems);
  const hops = graphData.hops ?? DEFAULT_GRAPH.hops;
  if (hops !== 0 && hops !== 1 && hops !== 2) problems.push("graph.hops must be 0, 1 or 2.");
  const seeds = graphData.seeds ?? DEFAULT_GRAPH.seeds;
  if (typeof seeds !== "number" || !Number.isInteger(seeds) || seeds < 1 || seeds > 100) problems.push("graph.seeds must be a whole number from 1 to 100.");
  const graph: GraphSettings = {
    hops: hops === 0 || hops === 1 || hops === 2 ? hops : DEFAULT_GRAPH.hops,
    hopDecay: unit(graphData.hop_decay ?? DEFAULT_GRAPH.hopDecay, "graph.hop_decay", problems),
    seeds: typeof seeds === "number" && Number.isInteger(seeds) && seeds >= 1 && seeds <= 100 ? seeds : DEFAULT_GRAPH.seeds,
    defaultRelationWeight: between(graphData.default_relation_weight ?? DEFAULT_GRAPH.defaultRelationWeight, -2, 2, "graph.default_relation_weight", problems),
  };

  const defaults = asMap(root.defaults ?? {}, "defaults", problems);
  const defaultRetrieverWeight = unit(defaults.retriever_weight ?? DEFAULT_RETRIEVER_WEIGHT, "defaults.retriever_weight", problems);

  if (problems.length > 0) throw new TypesConfigError(problems.join(" "));
  return { types, relationWeights, lambda, weights, graph, defaultRetrieverWeight };
}

function asMap(value: unknown, where: string, problems: string[]): Record<string, unknown> {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  problems.push(`${where} must be a map of \`key: value\` entries.`);
  return {};
}

function between(value: unknown, low: number, high: number, where: string, problems: string[]): number {
  if (typeof value === "number" && Number.isFinite(value) && value >= low && value <= high) return value;
  problems.push(`${where} must be a number from ${low} to ${high}.`);
  return 0;
}

function unit(value: unknown, where: string, problems: string[]): number {
  return between(value, 0, 1, where, problems);
}

function strings(value: unknown, where: string, problems: string[]): string[] {
  if (Array.isArray(value) && value.every((item) => typeof item === "string" && item !== "")) return value as string[];
  problems.push(`${where} must be a list of relation names.`);
  return [];
}
