// Every measurement of one corpus, ours and FTS5's, in an order that keeps them independent: cold
// builds on fresh data folders in child processes, warm starts in child processes, then latency
// in this process against a server on the persisted index, then the 1% edit.
import { promises as fs } from "node:fs";
import path from "node:path";
import type { ReconcileReport } from "../src/core/vault/engine";
import { hasAllTags } from "../src/tools/common";
import type { ColdBuildInput, ColdBuildResult } from "./cold-build";
import { runChild } from "./child";
import type { Fts5BuildResult, Fts5ChildInput, Fts5OpenResult } from "./fts5-child";
import { Fts5Searcher, type Fts5Ranking } from "./fts5";
import { startBenchServer } from "./http";
import { timeCalls, timeQueries, type QueryTimings } from "./latency";
import { PhaseProbe, type LatencySummary, type PhaseStats } from "./measure";
import { inProcessTools, searchTotal } from "./ours";
import type { BenchOptions } from "./options";
import { buildQueryMix, type BenchQuery, type QueryMix } from "./queries";
import { copyVault, listNotes, touchOne, touchOnePercent, type CorpusSource } from "./vaults";
import { benchSemantic, type SemanticResult } from "./semantic";
import type { WarmStartInput, WarmStartResult } from "./warm-start";

const PAGE = 10;

export interface TouchReconcile {
  touched: number;
  report: ReconcileReport;
  reconcile: PhaseStats;
  /** The snapshot rewrite that follows (the host's quiet-period persist). */
  persist: PhaseStats;
  /** Then one more note edited: its re-ingest (as the watcher or write path reports it) and the persist. */
  one_note?: { apply: PhaseStats; persist: PhaseStats };
}

export interface CorpusResult {
  corpus: { id: string; kind: CorpusSource["kind"]; notes: number; bytes: number };
  queries: {
    sampled_notes: number;
    per_kind: Record<string, number>;
    list: Array<BenchQuery & { hits_ours: number | null; hits_fts5: number | null }>;
  };
  ours: {
    cold_build: ColdBuildResult | null;
    warm_start: WarmStartResult | null;
    touch_reconcile: TouchReconcile | null;
    restart_after_touch: WarmStartResult | null;
    search: { engine: QueryTimings | null; tool: QueryTimings | null; http: QueryTimings | null };
    note_read: { tool: LatencySummary | null; http: LatencySummary | null };
    ping_http: LatencySummary | null;
    /** Semantic search with the deterministic embedder (bench/semantic.ts). */
    semantic: SemanticResult | null;
  };
  fts5: {
    build: Fts5BuildResult | null;
    open: Fts5OpenResult | null;
    search: Record<Fts5Ranking, QueryTimings | null>;
  };
  errors: string[];
  duration_s: number;
}

function progress(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

export async function benchCorpus(source: CorpusSource, options: BenchOptions, scratch: string): Promise<CorpusResult> {
  const started = Date.now();
  const errors: string[] = [];
  const attempt = async <T>(phase: string, work: () => Promise<T>): Promise<T | null> => {
    progress(`${source.id}: ${phase}`);
    try {
      return await work();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      errors.push(`${phase}: ${message}`);
      progress(`${source.id}: ${phase} FAILED: ${message.slice(0, 300)}`);
      return null;
    }
  };

  const root = path.join(scratch, source.id, "vault");
  const oursData = path.join(scratch, source.id, "data-ours");
  const dbFile = path.join(scratch, source.id, "fts5.db");
  progress(`${source.id}: copying the vault to ${root}`);
  await copyVault(source.dir, root);
  const notes = await listNotes(root);
  const bytes = (await Promise.all(notes.map(async (note) => (await fs.stat(path.join(root, note))).size))).reduce((a, b) => a + b, 0);
  const mix: QueryMix = await buildQueryMix(root, notes, options.perKind, options.seed);
  const first = mix.queries[0];
  if (!first) throw new Error(`${source.id}: no query could be derived from the corpus`);
  const timeout = options.childTimeoutMs;
  const firstQuery = { query: first.ours, ...(first.tags ? { tags: first.tags } : {}) };

  const coldBuild = await attempt("ours: cold build (child process)", () =>
    runChild<ColdBuildResult>("cold-build.ts", { root, dataDir: oursData } satisfies ColdBuildInput, timeout),
  );
  const warmStart = await attempt("ours: warm start (child process)", () =>
    runChild<WarmStartResult>("warm-start.ts", { root, dataDir: oursData, firstQuery } satisfies WarmStartInput, timeout),
  );
  const ftsBuild = await attempt("fts5: cold build (child process)", () =>
    runChild<Fts5BuildResult>("fts5-child.ts", { mode: "build", root, dbFile } satisfies Fts5ChildInput, timeout),
  );
  const ftsOpen = ftsBuild
    ? await attempt("fts5: open + first query (child process)", () =>
        runChild<Fts5OpenResult>(
          "fts5-child.ts",
          { mode: "open", dbFile, firstQuery: { match: first.fts5, ...(first.tags ? { tags: first.tags } : {}) } } satisfies Fts5ChildInput,
          timeout,
        ),
      )
    : null;

  const search: CorpusResult["ours"]["search"] = { engine: null, tool: null, http: null };
  const noteRead: CorpusResult["ours"]["note_read"] = { tool: null, http: null };
  let pingHttp: LatencySummary | null = null;
  let touchReconcile: TouchReconcile | null = null;
  const ftsSearch: CorpusResult["fts5"]["search"] = { reference: null, intended: null };
  let ftsHits: Record<string, number> = {};

  if (ftsBuild) {
    await attempt("fts5: query latency", async () => {
      const searcher = new Fts5Searcher(dbFile);
      try {
        for (const ranking of ["reference", "intended"] as const) {
          ftsSearch[ranking] = await timeQueries(mix.queries, options.repeat, async (query) => {
            searcher.search(query.fts5, query.tags, ranking, PAGE);
            return 0;
          });
        }
        ftsHits = Object.fromEntries(mix.queries.map((query) => [query.id, searcher.count(query.fts5, query.tags)]));
      } finally {
        searcher.close();
      }
    });
  }

  if (coldBuild) {
    const bench = await attempt("ours: server start on the persisted index", () => startBenchServer(root, oursData));
    if (bench) {
      const engine = bench.server.hosts[0]!.engine;
      const call = inProcessTools(bench.server.registry);
      const toolArgs = (query: BenchQuery): Record<string, unknown> => ({
        query: query.ours,
        limit: PAGE,
        ...(query.tags ? { tags: query.tags } : {}),
      });
      search.engine = await attempt("ours: engine.search latency", () =>
        timeQueries(mix.queries, options.repeat, async (query) => {
          const wanted = query.tags;
          const filter = wanted ? (notePath: string) => hasAllTags(engine.summary(notePath)?.tags ?? [], wanted) : undefined;
          const outcome = await engine.search(query.ours, { limit: PAGE, offset: 0, ...(filter ? { filter } : {}) });
          return outcome.total;
        }),
      );
      search.tool = await attempt("ours: note_search latency (in-process tool path)", () =>
        timeQueries(mix.queries, options.repeat, async (query) => searchTotal(await call("note_search", toolArgs(query)), query.ours)),
      );
      noteRead.tool = await attempt("ours: note_read latency (in-process tool path)", () =>
        timeCalls(mix.readPaths, options.repeat, async (notePath) => readOk(await call("note_read", { path: notePath }), notePath)),
      );
      if (options.http) {
        search.http = await attempt("ours: note_search latency (MCP HTTP)", () =>
          timeQueries(mix.queries, options.repeat, async (query) => searchTotal(await bench.call("note_search", toolArgs(query)), query.ours)),
        );
        noteRead.http = await attempt("ours: note_read latency (MCP HTTP)", () =>
          timeCalls(mix.readPaths, options.repeat, async (notePath) => readOk(await bench.call("note_read", { path: notePath }), notePath)),
        );
        pingHttp = await attempt("ours: ping round trip (MCP HTTP)", () =>
          timeCalls(Array.from({ length: Math.max(20, options.perKind) }, (_, i) => i), options.repeat, () => bench.ping()),
        );
      }
      touchReconcile = await attempt("ours: reconcile after touching 1% (in-process)", async () => {
        const touched = await touchOnePercent(root, notes, 0);
        const probe = PhaseProbe.start();
        const report = await engine.reconcile();
        const reconcile = probe.mark();
        await engine.persist();
        const persist = probe.mark();
        const [edited] = await touchOne(root, notes);
        await engine.applyChanges([edited!]);
        const apply = probe.mark();
        await engine.persist();
        const onePersist = probe.stop();
        return { touched: touched.length, report, reconcile, persist, one_note: { apply, persist: onePersist } };
      });
      await attempt("ours: server stop", () => bench.stop());
    }
  }

  const semantic = coldBuild
    ? await attempt("ours: semantic search (deterministic embedder over HTTP)", () => benchSemantic(root, path.join(scratch, source.id, "data-semantic"), mix.queries, options.repeat))
    : null;

  const restartAfterTouch = coldBuild
    ? await attempt("ours: restart after touching another 1% (child process)", async () => {
        await touchOnePercent(root, notes, 1);
        return runChild<WarmStartResult>("warm-start.ts", { root, dataDir: oursData, firstQuery } satisfies WarmStartInput, timeout);
      })
    : null;

  const oursHits = search.engine?.hits ?? {};
  const perKind: Record<string, number> = {};
  for (const query of mix.queries) perKind[query.kind] = (perKind[query.kind] ?? 0) + 1;
  return {
    corpus: { id: source.id, kind: source.kind, notes: notes.length, bytes },
    queries: {
      sampled_notes: mix.sampled,
      per_kind: perKind,
      list: mix.queries.map((query) => ({ ...query, hits_ours: oursHits[query.id] ?? null, hits_fts5: ftsHits[query.id] ?? null })),
    },
    ours: {
      cold_build: coldBuild,
      warm_start: warmStart,
      touch_reconcile: touchReconcile,
      restart_after_touch: restartAfterTouch,
      search,
      note_read: noteRead,
      ping_http: pingHttp,
      semantic,
    },
    fts5: { build: ftsBuild, open: ftsOpen, search: ftsSearch },
    errors,
    duration_s: Math.round((Date.now() - started) / 1000),
  };
}

function readOk(result: { isError?: boolean; content: unknown }, notePath: string): void {
  if (result.isError === true) throw new Error(`note_read failed for ${notePath}: ${JSON.stringify(result.content).slice(0, 300)}`);
}
