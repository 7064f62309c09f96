// Child: the FTS5 baseline's cold build on a fresh database file, or its open + first query, each in
// a process of its own like our engine's phases (started by bench/run.ts).
import { promises as fs } from "node:fs";
import { performance } from "node:perf_hooks";
import { childMain } from "./child";
import { buildFts5, Fts5Searcher } from "./fts5";
import { collectGarbage, PhaseProbe, round, type PhaseStats } from "./measure";
import { listNotes } from "./vaults";

export type Fts5ChildInput =
  | { mode: "build"; root: string; dbFile: string }
  | { mode: "open"; dbFile: string; firstQuery: { match: string; tags?: string[] } };

export interface Fts5BuildResult {
  mode: "build";
  notes: number;
  list_ms: number;
  insert_ms: number;
  commit_ms: number;
  total: PhaseStats;
  db_bytes: number;
  rss_before_bytes: number;
}

export interface Fts5OpenResult {
  mode: "open";
  open_ms: number;
  first_query_ms: number;
  /** Open, prepare and the first query: what a restarted server does before its first answer. */
  total: PhaseStats;
  process_uptime_at_answer_ms: number;
  first_query_hits: number;
  rss_before_bytes: number;
  rss_after_bytes: number;
  rss_after_gc_bytes: number | null;
}

async function fts5Phase(input: Fts5ChildInput): Promise<Fts5BuildResult | Fts5OpenResult> {
  const rssBefore = process.memoryUsage().rss;
  if (input.mode === "build") {
    const exists = await fs.stat(input.dbFile).then(() => true, () => false);
    if (exists) throw new Error(`${input.dbFile} exists: a cold build needs a fresh database file`);
    const probe = PhaseProbe.start();
    const listStarted = performance.now();
    const notes = await listNotes(input.root);
    const listMs = performance.now() - listStarted;
    const timing = buildFts5(input.root, notes, input.dbFile);
    const total = probe.stop();
    return {
      mode: "build",
      notes: timing.notes,
      list_ms: round(listMs),
      insert_ms: round(timing.insert_ms),
      commit_ms: round(timing.commit_ms),
      total,
      db_bytes: (await fs.stat(input.dbFile)).size,
      rss_before_bytes: rssBefore,
    };
  }
  const probe = PhaseProbe.start();
  const opened = performance.now();
  const searcher = new Fts5Searcher(input.dbFile);
  const queried = performance.now();
  const hits = searcher.search(input.firstQuery.match, input.firstQuery.tags, "intended", 10);
  const answered = performance.now();
  const total = probe.stop();
  const rssAfter = process.memoryUsage().rss;
  let rssAfterGc: number | null = null;
  if (collectGarbage()) {
    rssAfterGc = process.memoryUsage().rss;
  }
  searcher.close();
  return {
    mode: "open",
    open_ms: round(queried - opened),
    first_query_ms: round(answered - queried),
    total,
    process_uptime_at_answer_ms: round(answered),
    first_query_hits: hits.length,
    rss_before_bytes: rssBefore,
    rss_after_bytes: rssAfter,
    rss_after_gc_bytes: rssAfterGc,
  };
}

if (require.main === module) childMain(fts5Phase);
