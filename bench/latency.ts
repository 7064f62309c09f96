// Runs the query mix through one search path and summarises latency per kind and overall. Every
// path gets the same list in the same order: one untimed warm-up pass, then `repeat` timed passes.
import { performance } from "node:perf_hooks";
import { QUERY_KINDS, type BenchQuery, type QueryKind } from "./queries";
import { round, summarize, type LatencySummary } from "./measure";

export interface QueryTimings {
  per_kind: Record<QueryKind, LatencySummary>;
  overall: LatencySummary;
  /** Hits per query id as the path reports them (total matches, not the page). */
  hits: Record<string, number>;
  /** The slowest queries of the timed passes, slowest first. */
  slowest: Array<{ id: string; ms: number }>;
}

const SLOWEST_KEPT = 5;

/** One search; resolves to the number of matching notes it reports. */
export type SearchRun = (query: BenchQuery) => Promise<number>;

export async function timeQueries(queries: readonly BenchQuery[], repeat: number, run: SearchRun): Promise<QueryTimings> {
  const hits: Record<string, number> = {};
  for (const query of queries) hits[query.id] = await run(query);
  const samples = new Map<QueryKind, number[]>(QUERY_KINDS.map((kind) => [kind, []]));
  const all: number[] = [];
  const worst = new Map<string, number>();
  for (let pass = 0; pass < repeat; pass++) {
    for (const query of queries) {
      const started = performance.now();
      await run(query);
      const ms = performance.now() - started;
      samples.get(query.kind)!.push(ms);
      all.push(ms);
      worst.set(query.id, Math.max(worst.get(query.id) ?? 0, ms));
    }
  }
  const slowest = [...worst.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, SLOWEST_KEPT)
    .map(([id, ms]) => ({ id, ms: round(ms) }));
  const perKind = Object.fromEntries(QUERY_KINDS.map((kind) => [kind, summarize(samples.get(kind) ?? [])])) as Record<QueryKind, LatencySummary>;
  return { per_kind: perKind, overall: summarize(all), hits, slowest };
}

/** Latency of a call repeated over a list of inputs (note_read over paths, ping). */
export async function timeCalls<T>(inputs: readonly T[], repeat: number, call: (input: T) => Promise<unknown>): Promise<LatencySummary> {
  for (const input of inputs) await call(input);
  const samples: number[] = [];
  for (let pass = 0; pass < repeat; pass++) {
    for (const input of inputs) {
      const started = performance.now();
      await call(input);
      samples.push(performance.now() - started);
    }
  }
  return summarize(samples);
}
