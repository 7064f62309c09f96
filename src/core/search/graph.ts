// Typed edges between notes and the walk over them that gives hybrid retrieval its graph component
// (fusion.ts). An edge is declared by a link in the body (`links_to`, or the note type's
// edge_defaults: rule edges) or by a frontmatter property holding links (`depends_on: "[[X]]"`,
// `related: ["[[A]]", "[[B]]"]`), the property's name being the relation. Edges are read from the
// metadata the index already keeps, on demand: only the neighbourhood of a query's best hits.
import type { CachedMetadata } from "../notes/metadata";
import { stripSubpath } from "../notes/paths";
import { walkContribution, type GraphPart, type WalkedEdge } from "./fusion";
import type { TypesConfig } from "./types-config";

export interface TypedEdge {
  from: string;
  to: string;
  relation: string;
  /** "declared" by a link or property, "rule" from the type's edge_defaults. */
  source: "declared" | "rule";
}

/** What the walk reads of the vault. */
export interface GraphSource {
  cache(path: string): CachedMetadata | null;
  /** A linkpath's destination from `source`, or null when broken. */
  resolve: (linkpath: string, source: string) => string | null;
  /** Notes linking to `path`. */
  incoming(path: string): ReadonlyMap<string, number>;
  /** Notes the walk must not enter (hidden by visibility). */
  skip(path: string): boolean;
}

/** Edges a note's links are followed along per note and direction: a hub note linked from thousands weighs little each. */
export const MAX_FANOUT = 200;

/** Notes a walk goes on from, per seed and hop. */
export const MAX_FRONTIER = 50;

/** The `type` frontmatter of a note, or null. */
export function noteType(cache: CachedMetadata | null): string | null {
  const type = cache?.frontmatter?.type;
  return typeof type === "string" && type.trim() !== "" ? type.trim() : null;
}

/** The typed edges leaving `path`, each (relation, target) once, self-links left out. */
export function typedEdges(path: string, cache: CachedMetadata | null, config: TypesConfig, resolve: (linkpath: string, source: string) => string | null): TypedEdge[] {
  if (!cache) return [];
  const edges: TypedEdge[] = [];
  const seen = new Set<string>();
  const add = (linkpath: string, relation: string, source: TypedEdge["source"]): void => {
    const to = resolve(stripSubpath(linkpath), path);
    if (to === null || to === path) return;
    const key = `${relation}\u0000${to}`;
    if (seen.has(key)) return;
    seen.add(key);
    edges.push({ from: path, to, relation, source });
  };
  const type = noteType(cache);
  const defaults = type === null ? [] : (config.types.get(type)?.edgeDefaults ?? []);
  for (const list of [cache.links, cache.embeds]) {
    for (const reference of list ?? []) {
      if (defaults.length === 0) add(reference.link, "links_to", "declared");
      else for (const relation of defaults) add(reference.link, relation, "rule");
    }
  }
  for (const reference of cache.frontmatterLinks ?? []) add(reference.link, relationOf(reference.key), "declared");
  // `depends_on: [[X]]` unquoted is YAML for a list holding the list ["X"]: Obsidian sees no link
  // there, but the writer meant one.
  for (const [key, value] of Object.entries(cache.frontmatter ?? {})) {
    for (const linkpath of bareLinks(value)) add(linkpath, key, "declared");
  }
  return edges;
}

/** `related.0` → `related`. */
function relationOf(key: string): string {
  const dot = key.indexOf(".");
  return dot < 0 ? key : key.slice(0, dot);
}

function bareLinks(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) => (Array.isArray(item) && item.length === 1 && typeof item[0] === "string" && item[0] !== "" ? [item[0]] : []));
}

export function relationWeight(config: TypesConfig, relation: string): number {
  return config.relationWeights.get(relation) ?? config.graph.defaultRelationWeight;
}

interface Reached {
  value: number;
  weights: number[];
  edges: WalkedEdge[];
}

/**
 * Walks config.graph.hops hops from each seed (path → base in [0, 1]) along typed edges both ways,
 * and returns the graph part of every note reached: per seed its strongest walk (fusion.ts's
 * walkContribution), summed over seeds by graphValue.
 */
export function walkGraph(seeds: ReadonlyMap<string, number>, source: GraphSource, config: TypesConfig): Map<string, GraphPart> {
  const edgesOf = new Map<string, TypedEdge[]>();
  const outgoing = (path: string): TypedEdge[] => {
    let edges = edgesOf.get(path);
    if (!edges) edgesOf.set(path, (edges = typedEdges(path, source.cache(path), config, source.resolve)));
    return edges;
  };
  const neighbours = (path: string): Array<{ edge: TypedEdge; next: string; direction: "out" | "in" }> => {
    const found: Array<{ edge: TypedEdge; next: string; direction: "out" | "in" }> = [];
    for (const edge of outgoing(path).slice(0, MAX_FANOUT)) if (!source.skip(edge.to)) found.push({ edge, next: edge.to, direction: "out" });
    const sources = [...source.incoming(path).keys()].filter((from) => from !== path && !source.skip(from)).sort();
    for (const from of sources.slice(0, MAX_FANOUT)) {
      for (const edge of outgoing(from)) if (edge.to === path) found.push({ edge, next: from, direction: "in" });
    }
    return found;
  };
  const parts = new Map<string, GraphPart>();
  for (const [seed, base] of seeds) {
    if (base <= 0) continue;
    const best = new Map<string, Reached>();
    let frontier: Array<{ path: string; reached: Reached }> = [{ path: seed, reached: { value: base, weights: [], edges: [] } }];
    for (let hop = 1; hop <= config.graph.hops && frontier.length > 0; hop++) {
      const reachedNow: string[] = [];
      for (const at of frontier) {
        for (const { edge, next: to, direction } of neighbours(at.path)) {
          if (to === seed) continue;
          const known = best.get(to);
          // A note reached at an earlier hop keeps that walk: the next hop only decays it more.
          if (known && known.edges.length < hop) continue;
          const weight = relationWeight(config, edge.relation);
          const weights = [...at.reached.weights, weight];
          const value = walkContribution(base, weights, config.graph.hopDecay);
          if (known && value <= known.value) continue;
          if (!known) reachedNow.push(to);
          best.set(to, { value, weights, edges: [...at.reached.edges, { from: edge.from, relation: edge.relation, to: edge.to, hop, weight, direction }] });
        }
      }
      // The walk goes on from the strongest only: a hub's thousand neighbours would each be read.
      const next = reachedNow.map((path) => ({ path, reached: best.get(path)! }));
      frontier = next.sort((a, b) => b.reached.value - a.reached.value).slice(0, MAX_FRONTIER);
    }
    for (const [path, reached] of best) {
      let part = parts.get(path);
      if (!part) parts.set(path, (part = { value: 0, walks: [] }));
      part.walks.push({ seed, contribution: Math.round(reached.value * 1000) / 1000, edges: reached.edges });
      part.value += reached.value;
    }
  }
  for (const part of parts.values()) part.value = Math.max(-1, Math.min(1, part.value));
  return parts;
}
