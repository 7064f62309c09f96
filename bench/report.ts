// The markdown report: per corpus a table ours | FTS5 | ratio, the per-kind latency detail, and
// how each query kind was written for each engine.
import type { CorpusResult } from "./corpus";
import type { QueryTimings } from "./latency";
import type { MachineInfo } from "./machine";
import type { LatencySummary } from "./measure";
import { QUERY_KINDS, type QueryKind } from "./queries";
import type { BenchOptions } from "./options";

export interface BenchResults {
  machine: MachineInfo;
  options: Omit<BenchOptions, "childTimeoutMs">;
  started_at: string;
  duration_s: number;
  corpora: CorpusResult[];
}

type Cell = number | null | undefined;

const MB = 1024 * 1024;

function num(value: Cell, unit = ""): string {
  if (value === null || value === undefined || Number.isNaN(value)) return "—";
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })}${unit}`;
}

function ratio(ours: Cell, theirs: Cell): string {
  if (ours === null || ours === undefined || theirs === null || theirs === undefined || theirs === 0) return "—";
  if (Number.isNaN(ours) || Number.isNaN(theirs)) return "—";
  const value = ours / theirs;
  return `${value >= 10 ? value.toFixed(0) : value >= 1 ? value.toFixed(1) : value.toFixed(2)}×`;
}

function mb(bytes: Cell): Cell {
  return bytes === null || bytes === undefined ? bytes : bytes / MB;
}

function pair(summary: LatencySummary | null | undefined): string {
  return summary ? `${num(summary.p50_ms)} / ${num(summary.p95_ms)}` : "—";
}

function pairRatio(ours: LatencySummary | null | undefined, theirs: LatencySummary | null | undefined): string {
  if (!ours || !theirs) return "—";
  return `${ratio(ours.p50_ms, theirs.p50_ms)} / ${ratio(ours.p95_ms, theirs.p95_ms)}`;
}

function kindOf(timings: QueryTimings | null | undefined, kind: QueryKind | "overall"): LatencySummary | null {
  if (!timings) return null;
  return kind === "overall" ? timings.overall : timings.per_kind[kind];
}

function row(cells: readonly string[]): string {
  return `| ${cells.join(" | ")} |`;
}

function mainTable(result: CorpusResult): string[] {
  const { ours, fts5 } = result;
  const cold = ours.cold_build;
  const warm = ours.warm_start;
  const open = fts5.open;
  const build = fts5.build;
  const touch = ours.touch_reconcile;
  const restart = ours.restart_after_touch;
  const intended = fts5.search.intended;
  const lines = [row(["metric", "ours", "FTS5", "ours/FTS5"]), row(["---", "---:", "---:", "---:"])];
  const add = (metric: string, a: Cell, b: Cell, unit = ""): void => {
    lines.push(row([metric, num(a, unit), num(b, unit), ratio(a, b)]));
  };
  const addOurs = (metric: string, a: Cell): void => {
    lines.push(row([metric, num(a), "n/a", "—"]));
  };
  const addLatency = (metric: string, a: LatencySummary | null | undefined, b: LatencySummary | null | undefined): void => {
    lines.push(row([metric, pair(a), b === undefined ? "n/a" : pair(b), pairRatio(a, b)]));
  };
  const warmStall = warm ? Math.max(warm.total.max_stall_ms, warm.first_query.max_stall_ms) : null;
  add("files ingested (ours: every file; FTS5: .md notes)", cold?.report.reingested, build?.notes);
  add("cold build, wall ms (ours: host.start incl. first persist; FTS5: list + insert + commit)", cold?.total.wall_ms, build?.total.wall_ms);
  add("  index build ms (ours: read + parse + index; FTS5: list + read + parse + insert)", cold?.index.wall_ms, build ? build.list_ms + build.insert_ms : null);
  add("  persist ms (ours: snapshot write in start; FTS5: COMMIT)", cold?.persist?.wall_ms, build?.commit_ms);
  add("peak RSS during cold build, MB", mb(cold?.total.peak_rss_bytes), mb(build?.total.peak_rss_bytes));
  add("longest event-loop stall during cold build, ms", cold?.total.max_stall_ms, build?.total.max_stall_ms);
  add("  of which during the persist, ms", cold?.persist?.max_stall_ms, null);
  add("persisted index size, MB (ours: data folder; FTS5: db file)", mb(cold?.data_bytes), mb(build?.db_bytes));
  add("warm start: load + reconcile / open + prepare, ms", warm?.index.wall_ms, open?.open_ms);
  add("warm start: time to first answered query, ms", warm?.time_to_first_answer_ms, open ? open.open_ms + open.first_query_ms : null);
  add("warm start: process uptime at first answer, ms", warm?.process_uptime_at_answer_ms, open?.process_uptime_at_answer_ms);
  add("RSS after warm start + first query, MB", mb(warm?.rss_after_bytes), mb(open?.rss_after_bytes));
  add("  the same after a full GC, MB", mb(warm?.rss_after_gc_bytes), mb(open?.rss_after_gc_bytes));
  add("  process RSS before start (Node + the bundle's code), MB", mb(warm?.rss_before_bytes), mb(open?.rss_before_bytes));
  add("longest event-loop stall, warm start + first query, ms", warmStall, open?.total.max_stall_ms);
  addOurs(`reconcile after touching 1% (${touch?.touched ?? "?"} notes), in-process, ms`, touch?.reconcile.wall_ms);
  addOurs("  longest stall during that reconcile, ms", touch?.reconcile.max_stall_ms);
  addOurs("  snapshot persist after it, ms", touch?.persist.wall_ms);
  addOurs("  longest stall during that persist, ms", touch?.persist.max_stall_ms);
  addOurs("then one more note changed: re-ingest (applyChanges), ms", touch?.one_note?.apply.wall_ms);
  addOurs("  snapshot persist after that one note, ms", touch?.one_note?.persist.wall_ms);
  addOurs("  longest stall during that one-note persist, ms", touch?.one_note?.persist.max_stall_ms);
  addOurs(`restart with another 1% touched: load + reconcile (${restart?.report.reingested ?? "?"} re-read), ms`, restart?.index.wall_ms);
  addOurs("  then persist, ms", restart?.persist?.wall_ms);
  addOurs("  longest stall during the restart, ms", restart?.total.max_stall_ms);
  addLatency("note_search p50 / p95 ms, all kinds (ours: in-process tool path; FTS5: bm25 0,8,1 + snippet)", kindOf(ours.search.tool, "overall"), kindOf(intended, "overall"));
  for (const kind of QUERY_KINDS) addLatency(`  ${kind}`, kindOf(ours.search.tool, kind), kindOf(intended, kind));
  addLatency("engine.search p50 / p95 ms, all kinds (no snippets)", kindOf(ours.search.engine, "overall"), kindOf(intended, "overall"));
  addLatency("note_search over MCP HTTP p50 / p95 ms, all kinds (FTS5: in-process)", kindOf(ours.search.http, "overall"), kindOf(intended, "overall"));
  addLatency("note_read p50 / p95 ms, in-process tool path", ours.note_read.tool, undefined);
  addLatency("note_read over MCP HTTP p50 / p95 ms", ours.note_read.http, undefined);
  addLatency("ping round trip over MCP HTTP p50 / p95 ms", ours.ping_http, undefined);
  return lines;
}

function meanHits(result: CorpusResult, kind: QueryKind, field: "hits_ours" | "hits_fts5"): number | null {
  const values = result.queries.list.filter((query) => query.kind === kind).map((query) => query[field]);
  if (values.length === 0 || values.some((value) => value === null)) return null;
  return (values as number[]).reduce((sum, value) => sum + value, 0) / values.length;
}

function kindTable(result: CorpusResult): string[] {
  const { ours, fts5 } = result;
  const lines = [
    row(["kind", "queries", "engine.search", "note_search in-process", "note_search MCP HTTP", "FTS5 bm25(8,1) ref.", "FTS5 bm25(0,8,1)", "mean hits ours", "mean hits FTS5"]),
    row(["---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:"]),
  ];
  for (const kind of [...QUERY_KINDS, "overall"] as const) {
    lines.push(
      row([
        kind,
        String(kind === "overall" ? result.queries.list.length : (result.queries.per_kind[kind] ?? 0)),
        pair(kindOf(ours.search.engine, kind)),
        pair(kindOf(ours.search.tool, kind)),
        pair(kindOf(ours.search.http, kind)),
        pair(kindOf(fts5.search.reference, kind)),
        pair(kindOf(fts5.search.intended, kind)),
        kind === "overall" ? "" : num(meanHits(result, kind, "hits_ours")),
        kind === "overall" ? "" : num(meanHits(result, kind, "hits_fts5")),
      ]),
    );
  }
  return lines;
}

const TRANSLATION: Record<QueryKind, { ours: string; fts5: string }> = {
  single: { ours: "`word` (plain word: its inflections by stem; longer words and near spellings only when the vault lacks it)", fts5: "`word`" },
  two_terms: { ours: "`word1 word2` (alternatives, BM25 sum; notes with both rank first)", fts5: "`word1 AND word2` (reference rule: terms joined by AND)" },
  prefix: { ours: "`abcd*`", fts5: "`abcd*`" },
  phrase: { ours: '`"word1 word2"` (verified on candidate notes read from disk)', fts5: '`"word1 word2"`' },
  rare: { ours: "`word` (df = 1 in the sample)", fts5: "`word`" },
  frequent: { ours: "`word` (top document frequency in the sample)", fts5: "`word`" },
  tag_filter: {
    ours: "`word` + `tags: [tag]`",
    fts5: "`word` AND rowid IN (SELECT note FROM note_tags WHERE tag = ? OR tag under `tag/`)",
  },
};

function translationTable(result: CorpusResult): string[] {
  const lines = [row(["kind", "note_search", "FTS5 MATCH", "example (ours → FTS5)"]), row(["---", "---", "---", "---"])];
  for (const kind of QUERY_KINDS) {
    const example = result.queries.list.find((query) => query.kind === kind);
    const sample = example
      ? `${"`"}${example.ours}${"`"}${example.tags ? ` tags ${JSON.stringify(example.tags)}` : ""} → ${"`"}${example.fts5}${"`"}`
      : "—";
    lines.push(row([kind, TRANSLATION[kind].ours, TRANSLATION[kind].fts5, sample]));
  }
  return lines;
}

function slowestLines(result: CorpusResult): string[] {
  const byId = new Map(result.queries.list.map((query) => [query.id, query]));
  const describe = (label: string, timings: QueryTimings | null): string => {
    const entries = (timings?.slowest ?? []).slice(0, 3).map(({ id, ms }) => {
      const query = byId.get(id);
      return `${id} \`${query?.ours ?? "?"}\` ${num(ms)} ms (${query?.hits_ours ?? "?"} hits ours / ${query?.hits_fts5 ?? "?"} FTS5)`;
    });
    return `- ${label}: ${entries.join("; ") || "—"}`;
  };
  return [
    "Slowest queries:",
    "",
    describe("note_search in-process", result.ours.search.tool),
    describe("FTS5 bm25(0,8,1)", result.fts5.search.intended),
  ];
}

export function machineLine(machine: MachineInfo): string {
  return (
    `${machine.cpu_model}, ${machine.cores} cores, ${num(machine.total_memory_bytes / 1024 ** 3)} GiB RAM, ${machine.platform} (${machine.kernel}), ` +
    `Node ${machine.node}, SQLite ${machine.sqlite}, ${Object.entries(machine.packages).map(([name, version]) => `${name} ${version}`).join(", ")}`
  );
}

function semanticLines(result: CorpusResult): string[] {
  const semantic = result.ours.semantic;
  if (!semantic) return [];
  const pass = semantic.embedding_pass;
  return [
    `Semantic search (${semantic.model}, the deterministic trigram embedder over HTTP in another process; exact search over int8 vectors):`,
    "",
    row(["metric", "value"]),
    row(["---", "---"]),
    row(["notes / chunks embedded", `${semantic.notes} / ${semantic.chunks}`]),
    row(["embedding pass wall (s)", num(pass.wall_ms / 1000)]),
    row(["embedding pass max stall (ms; CPU-attributed)", `${num(pass.max_stall_ms)} (${num(pass.max_stall_cpu_ms ?? null)})`]),
    row(["vector file (MB)", num(mb(semantic.vector_file_bytes))]),
    row(["peak RSS during the pass (MB)", num(mb(pass.peak_rss_bytes))]),
    row(["provider requests after a restart", String(semantic.restart_requests)]),
    row(["lexical p50 / p95 (ms)", pair(semantic.search.lexical)]),
    row(["hybrid p50 / p95 (ms)", `${pair(semantic.search.hybrid)} (p95 ×${semantic.hybrid_p95_over_lexical})`]),
    row(["semantic p50 / p95 (ms)", `${pair(semantic.search.semantic)} (p95 ×${semantic.semantic_p95_over_lexical})`]),
  ];
}

export function renderMarkdown(results: BenchResults): string {
  const out: string[] = [
    "# Second Brain MCP benchmark: ours vs SQLite FTS5",
    "",
    `Machine: ${machineLine(results.machine)}.`,
    `Run: ${results.started_at}, ${results.duration_s} s; ${results.options.perKind} queries per kind, 1 warm-up pass + ${results.options.repeat} timed pass(es); seed ${results.options.seed}.`,
    "",
  ];
  for (const result of results.corpora) {
    out.push(
      `## ${result.corpus.id} — ${result.corpus.notes.toLocaleString("en-US")} notes, ${num(result.corpus.bytes / MB)} MB of Markdown (${result.duration_s} s)`,
      "",
      ...mainTable(result),
      "",
      "Latency per query kind, p50 / p95 ms (all paths page 10 hits; FTS5 with snippet):",
      "",
      ...kindTable(result),
      "",
      "How each kind was written:",
      "",
      ...translationTable(result),
      "",
    );
    out.push(...slowestLines(result), "");
    out.push(...semanticLines(result), "");
    if (result.errors.length > 0) out.push("Failed phases:", "", ...result.errors.map((error) => `- ${error.slice(0, 400)}`), "");
  }
  out.push(
    "Notes: ours runs each phase that reports RSS in a fresh child process, as does FTS5 (better-sqlite3); both sides run as esbuild bundles (bench/build.mjs), as the product ships. " +
      "Stalls: the longest gap between the ticks of a 10 ms setInterval drift probe, minus 10 ms (a gap still open when a phase ends counts towards that phase); RSS is sampled every 50 ms and at phase edges. " +
      "The FTS5 build reads files synchronously inside one transaction, as the reference server does, so its whole build is one stall. " +
      "FTS5 tags: frontmatter tags plus inline #tags (regex), in a side table `note_tags(note, tag)` indexed on tag, applied as a post-filter `rowid IN (…)` on the MATCH; a tag also matches nested tags under it, as in note_search. " +
      "Hit counts differ by design: our plain words are alternatives that also reach their inflections, FTS5 terms are exact and ANDed.",
  );
  return out.join("\n") + "\n";
}
