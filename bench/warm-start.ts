// Child: a warm start of our engine in a new process (snapshot load + reconcile), then the first
// note_search answered through the tool path, so RSS and timings are those of a fresh server.
import { performance } from "node:perf_hooks";
import { VaultRegistry } from "../src/core/vault/directory";
import { childMain } from "./child";
import { collectGarbage, PhaseProbe, round, type PhaseStats } from "./measure";
import { inProcessTools, searchTotal, startMeasured, type StartMeasurement } from "./ours";

export interface WarmStartInput {
  root: string;
  dataDir: string;
  firstQuery: { query: string; tags?: string[] };
}

export interface WarmStartResult extends StartMeasurement {
  first_query: PhaseStats;
  /** From calling start() to the first note_search result. */
  time_to_first_answer_ms: number;
  /** Since the process started (Node's boot and loading the bundle included). */
  process_uptime_at_answer_ms: number;
  first_query_total: number;
  rss_before_bytes: number;
  rss_after_bytes: number;
  /** After a full GC: what the process keeps once start-up garbage is gone. */
  rss_after_gc_bytes: number | null;
  heap_used_after_gc_bytes: number | null;
}

async function warmStart(input: WarmStartInput): Promise<WarmStartResult> {
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const { host, measurement } = await startMeasured(input.root, input.dataDir);
  const probe = PhaseProbe.start();
  const call = inProcessTools(new VaultRegistry([host.engine]));
  const result = await call("note_search", { query: input.firstQuery.query, ...(input.firstQuery.tags ? { tags: input.firstQuery.tags } : {}) });
  const total = searchTotal(result, input.firstQuery.query);
  const answered = performance.now();
  const firstQuery = probe.stop();
  const rssAfter = process.memoryUsage().rss;
  let rssAfterGc: number | null = null;
  let heapAfterGc: number | null = null;
  if (collectGarbage()) {
    const usage = process.memoryUsage();
    rssAfterGc = usage.rss;
    heapAfterGc = usage.heapUsed;
  }
  await host.stop();
  return {
    ...measurement,
    first_query: firstQuery,
    time_to_first_answer_ms: round(answered - started),
    process_uptime_at_answer_ms: round(answered),
    first_query_total: total,
    rss_before_bytes: rssBefore,
    rss_after_bytes: rssAfter,
    rss_after_gc_bytes: rssAfterGc,
    heap_used_after_gc_bytes: heapAfterGc,
  };
}

if (require.main === module) childMain(warmStart);
