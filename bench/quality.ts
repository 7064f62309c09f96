// Search quality on obsidian-help-en: note_search's ranking against the SQLite FTS5 baseline, scored
// as MRR@10 and recall@5 over a hand-judged query set (bench/quality/help-queries.json). Tunings of
// our ranking (field boosts, BM25, prefix/fuzzy expansion) are measured by overriding the live
// index's MiniSearch options and rewriting parsed queries from here, so they need no edit in src/.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type FIELD_BOOSTS, NoteIndex, type NoteSearchOptions, type SearchPage } from "../src/core/search/note-index";
import { parseQuery, type ParsedQuery, type QueryTerm } from "../src/core/search/query";
import { NodeVaultHost } from "../src/hosts/node/host";
import { JsonLineLogger } from "../src/hosts/node/services";
import { buildFts5, Fts5Searcher, FTS5_RANKINGS, type Fts5Ranking } from "./fts5";
import { round } from "./measure";
import { copyVault, listNotes } from "./vaults";

const REPO_ROOT = path.resolve(__dirname, "..");
const HELP_VAULT = path.resolve(REPO_ROOT, "../shared/fixtures/obsidian-help-en");
const QUERY_FILE = path.join(__dirname, "quality", "help-queries.json");
const OUT_DIR = path.join(__dirname, "out");
const PAGE = 10;
const RECALL_DEPTH = 5;

interface JudgedQuery {
  query: string;
  /** Best first. */
  relevant: string[];
}

/** Ranked paths for one query; at most PAGE of them. */
type Ranker = (query: string) => Promise<string[]>;

interface QueryScore {
  query: string;
  /** 1-based rank of the first relevant note in the top PAGE, or null. */
  first_relevant_rank: number | null;
  reciprocal_rank: number;
  recall_at_5: number;
  hits: number;
  top: string[];
}

interface EngineScore {
  id: string;
  label: string;
  mrr_at_10: number;
  recall_at_5: number;
  zero_result_share: number;
  queries: QueryScore[];
}

function loadQueries(file: string): JudgedQuery[] {
  const parsed = JSON.parse(readFileSync(file, "utf8")) as { queries?: unknown };
  if (!Array.isArray(parsed.queries)) throw new Error(`${file} has no "queries" array`);
  return parsed.queries.map((entry: unknown, index) => {
    const candidate = entry as { query?: unknown; relevant?: unknown };
    const relevant = candidate.relevant;
    if (typeof candidate.query !== "string" || !Array.isArray(relevant) || relevant.length === 0 || !relevant.every((p) => typeof p === "string")) {
      throw new Error(`${file}: query #${index} needs a "query" string and a non-empty "relevant" list of paths`);
    }
    return { query: candidate.query, relevant };
  });
}

/** Words for FTS5, each quoted so no query character is read as FTS5 syntax. */
export function fts5Match(query: string, joiner: "AND" | "OR"): string | null {
  const words = query.split(/[^\p{L}\p{N}]+/u).filter((word) => word !== "");
  return words.length === 0 ? null : words.map((word) => `"${word}"`).join(` ${joiner} `);
}

function scoreQuery(judged: JudgedQuery, ranked: readonly string[]): QueryScore {
  const relevant = new Set(judged.relevant);
  const top = ranked.slice(0, PAGE);
  const index = top.findIndex((p) => relevant.has(p));
  const found = top.slice(0, RECALL_DEPTH).filter((p) => relevant.has(p)).length;
  return {
    query: judged.query,
    first_relevant_rank: index < 0 ? null : index + 1,
    reciprocal_rank: index < 0 ? 0 : 1 / (index + 1),
    recall_at_5: found / relevant.size,
    hits: ranked.length,
    top: top.slice(0, 3),
  };
}

async function scoreEngine(id: string, label: string, queries: readonly JudgedQuery[], rank: Ranker): Promise<EngineScore> {
  const scores: QueryScore[] = [];
  for (const judged of queries) scores.push(scoreQuery(judged, await rank(judged.query)));
  const mean = (pick: (score: QueryScore) => number): number => round(scores.reduce((sum, s) => sum + pick(s), 0) / scores.length, 3);
  return {
    id,
    label,
    mrr_at_10: mean((s) => s.reciprocal_rank),
    recall_at_5: mean((s) => s.recall_at_5),
    zero_result_share: mean((s) => (s.hits === 0 ? 1 : 0)),
    queries: scores,
  };
}

const silentLogger = (): JsonLineLogger => new JsonLineLogger({ level: "error", write: () => undefined });

/** Builds our index on `root` in a fresh data folder, as the server does. */
async function startOurs(root: string, scratch: string): Promise<NodeVaultHost> {
  const dataDir = mkdtempSync(path.join(scratch, "data-"));
  const host = new NodeVaultHost({ name: "quality", root, dataDir, logger: silentLogger(), watch: false, history: false });
  await host.start();
  return host;
}

/** note_search's ranking: the engine call the tool handler makes. */
function scoreOurs(host: NodeVaultHost, queries: readonly JudgedQuery[]): Promise<EngineScore> {
  return scoreEngine("ours", "ours (note_search)", queries, async (query) => {
    const outcome = await host.engine.search(query, { limit: PAGE, offset: 0 });
    return outcome.hits.map((hit) => hit.path);
  });
}

type BoostTable = Record<keyof typeof FIELD_BOOSTS, number>;

interface Bm25Params {
  k: number;
  b: number;
  d: number;
}

/** A ranking change measured on the live index; every field left out keeps the engine's setting. */
interface Tuning {
  id: string;
  boosts?: BoostTable;
  bm25?: Bm25Params;
  /** MiniSearch's weights for a prefix or fuzzy expansion, against 1 for the exact term. */
  weights?: { prefix: number; fuzzy: number };
  /** Rewrites the parsed query's loose terms (a stand-in for query.ts's fuzzy and prefix rules). */
  rewrite?: { label: string; apply: (terms: readonly QueryTerm[], vocabulary: Vocabulary) => QueryTerm[] };
}

/** Whether the index holds a term exactly. */
type Vocabulary = (term: string) => boolean;

const noFuzzy = (terms: readonly QueryTerm[]): QueryTerm[] => terms.map((term) => ({ ...term, fuzzy: 0 }));
const exactOnly = (terms: readonly QueryTerm[]): QueryTerm[] => terms.map((term) => ({ ...term, fuzzy: 0, prefix: false }));
const prefixLastOnly = (terms: readonly QueryTerm[]): QueryTerm[] =>
  terms.map((term, index) => ({ ...term, prefix: term.prefix && index === terms.length - 1 }));

/** Fuzzy only for words the vault does not contain: "heading" no longer matches "reading". */
const fuzzyOnlyUnknown = (terms: readonly QueryTerm[], known: Vocabulary): QueryTerm[] =>
  terms.map((term) => (known(term.term) ? { ...term, fuzzy: 0 } : term));
/** A crude plural fold: the word with an "s" counts as the word itself (an exact term of equal weight). */
const withPlural = (terms: readonly QueryTerm[], known: Vocabulary): QueryTerm[] =>
  terms.flatMap((term) =>
    term.weight === 1 && !term.term.endsWith("s") && known(`${term.term}s`) ? [term, { ...term, term: `${term.term}s`, prefix: false, fuzzy: 0 }] : [term],
  );

const TUNINGS: readonly Tuning[] = [
  // No change: must score as "ours" does, or the override path no longer matches the tool's.
  { id: "control" },
  // "Before": MiniSearch as it comes, every field weighted alike and every word matched exactly.
  {
    id: "untuned",
    boosts: { title: 1, aliases: 1, headings: 1, tags: 1, body: 1 },
    rewrite: { label: "untuned: no prefix, no fuzzy", apply: exactOnly },
  },
  { id: "title8", boosts: { title: 8, aliases: 3, headings: 2, tags: 2, body: 1 } },
  { id: "title6_headings3", boosts: { title: 6, aliases: 4, headings: 3, tags: 2, body: 1 } },
  { id: "title2_headings1.5", boosts: { title: 2, aliases: 2, headings: 1.5, tags: 1.5, body: 1 } },
  { id: "no_fuzzy", rewrite: { label: "no fuzzy", apply: noFuzzy } },
  { id: "fuzzy_only_unknown", rewrite: { label: "fuzzy only for words missing from the vault", apply: fuzzyOnlyUnknown } },
  { id: "prefix_last_only", rewrite: { label: "prefix on the last word only", apply: prefixLastOnly } },
  { id: "no_fuzzy_prefix_last_only", rewrite: { label: "no fuzzy, prefix on the last word only", apply: (terms) => prefixLastOnly(noFuzzy(terms)) } },
  { id: "plural_fold", rewrite: { label: "word+s as an exact alternative", apply: withPlural } },
  {
    id: "plural_fold_fuzzy_only_unknown",
    rewrite: { label: "word+s exact, fuzzy only for missing words", apply: (terms, known) => withPlural(fuzzyOnlyUnknown(terms, known), known) },
  },
  { id: "weights_prefix0.2_fuzzy0.2", weights: { prefix: 0.2, fuzzy: 0.2 } },
  { id: "bm25_b0.9", bm25: { k: 1.2, b: 0.9, d: 0.5 } },
  { id: "weights_prefix0.1_fuzzy0.1", weights: { prefix: 0.1, fuzzy: 0.1 } },
  { id: "bm25_k0.9", bm25: { k: 0.9, b: 0.7, d: 0.5 } },
  { id: "bm25_b0.9_weights0.2", bm25: { k: 1.2, b: 0.9, d: 0.5 }, weights: { prefix: 0.2, fuzzy: 0.2 } },
];

interface LiveIndex {
  search(query: ParsedQuery, options: NoteSearchOptions): Promise<SearchPage>;
  /** MiniSearch's own search options, read on every query. */
  searchOptions: Record<string, unknown>;
  vocabulary: Vocabulary;
}

/**
 * The engine's private NoteIndex and its MiniSearch options, so tunings are measured without an
 * edit in src/; null when the engine no longer has that shape (the index engine is being rewritten).
 */
function liveIndex(host: NodeVaultHost): LiveIndex | null {
  const index = (host.engine as unknown as { index?: unknown }).index;
  if (!(index instanceof NoteIndex)) return null;
  const miniSearch = (index as unknown as { engine?: { _options?: { searchOptions?: unknown }; _index?: { has?: unknown } } }).engine;
  const searchOptions = miniSearch?._options?.searchOptions;
  const terms = miniSearch?._index;
  if (searchOptions === null || typeof searchOptions !== "object" || typeof terms?.has !== "function") return null;
  const has = terms.has as (term: string) => boolean;
  return {
    search: (query, options) => index.search(query, options),
    searchOptions: searchOptions as Record<string, unknown>,
    vocabulary: (term) => has.call(terms, term),
  };
}

function tuningLabel(tuning: Tuning): string {
  const parts: string[] = [];
  if (tuning.boosts) parts.push(`boosts ${Object.entries(tuning.boosts).map(([field, weight]) => `${field} ${weight}`).join(", ")}`);
  if (tuning.bm25) parts.push(`bm25 k ${tuning.bm25.k} b ${tuning.bm25.b} d ${tuning.bm25.d}`);
  if (tuning.weights) parts.push(`expansion weights prefix ${tuning.weights.prefix} fuzzy ${tuning.weights.fuzzy}`);
  if (tuning.rewrite) parts.push(tuning.rewrite.label);
  return `ours, ${parts.length === 0 ? "control (override path, no change)" : parts.join("; ")}`;
}

function restore(target: Record<string, unknown>, original: Readonly<Record<string, unknown>>): void {
  for (const key of Object.keys(target)) delete target[key];
  Object.assign(target, original);
}

async function scoreTunings(host: NodeVaultHost, queries: readonly JudgedQuery[]): Promise<EngineScore[]> {
  const live = liveIndex(host);
  if (!live) return [];
  const original = { ...live.searchOptions };
  const results: EngineScore[] = [];
  try {
    for (const tuning of TUNINGS) {
      restore(live.searchOptions, original);
      if (tuning.boosts) live.searchOptions.boost = { ...tuning.boosts };
      if (tuning.bm25) live.searchOptions.bm25 = { ...tuning.bm25 };
      if (tuning.weights) live.searchOptions.weights = { ...tuning.weights };
      results.push(
        await scoreEngine(`ours_${tuning.id}`, tuningLabel(tuning), queries, async (query) => {
          const parsed = parseQuery(query);
          const rewritten = tuning.rewrite ? { ...parsed, terms: tuning.rewrite.apply(parsed.terms, live.vocabulary) } : parsed;
          const page = await live.search(rewritten, { limit: PAGE, offset: 0, loadText: (note) => host.engine.bodyText(note) });
          return page.hits.map((hit) => hit.path);
        }),
      );
    }
  } finally {
    restore(live.searchOptions, original);
  }
  return results;
}

function scoreFts5(dbFile: string, queries: readonly JudgedQuery[]): Promise<EngineScore[]> {
  const searcher = new Fts5Searcher(dbFile);
  const variants: ReadonlyArray<{ joiner: "AND" | "OR"; ranking: Fts5Ranking }> = [
    { joiner: "AND", ranking: "intended" },
    { joiner: "AND", ranking: "reference" },
    { joiner: "OR", ranking: "intended" },
    { joiner: "OR", ranking: "reference" },
  ];
  const run = async (): Promise<EngineScore[]> => {
    const results: EngineScore[] = [];
    for (const { joiner, ranking } of variants) {
      const id = `fts5_${joiner.toLowerCase()}_${ranking}`;
      const label = `FTS5 ${joiner}, ${FTS5_RANKINGS[ranking]}`;
      results.push(
        await scoreEngine(id, label, queries, (query) => {
          const match = fts5Match(query, joiner);
          return Promise.resolve(match === null ? [] : searcher.search(match, undefined, ranking, PAGE).map((hit) => hit.path));
        }),
      );
    }
    return results;
  };
  return run().finally(() => searcher.close());
}

function rankCell(score: QueryScore | undefined): string {
  if (!score) return "";
  if (score.hits === 0) return "∅";
  return score.first_relevant_rank === null ? "–" : String(score.first_relevant_rank);
}

function markdown(engines: readonly EngineScore[], queries: readonly JudgedQuery[]): string {
  const lines = [
    `## Search quality: obsidian-help-en (${queries.length} queries)`,
    "",
    "| engine | MRR@10 | recall@5 | zero results |",
    "|---|---:|---:|---:|",
    ...engines.map((e) => `| ${e.label} | ${e.mrr_at_10.toFixed(3)} | ${e.recall_at_5.toFixed(3)} | ${(e.zero_result_share * 100).toFixed(1)}% |`),
    "",
    "Rank of the first relevant note in the top 10 (– none in the top 10, ∅ no results at all):",
    "",
  ];
  const shown = engines.filter((e) => !e.id.startsWith("ours_"));
  lines.push(`| query | ${shown.map((e) => e.id).join(" | ")} |`, `|---|${shown.map(() => "---:").join("|")}|`);
  queries.forEach((judged, index) => {
    lines.push(`| ${judged.query} | ${shown.map((e) => rankCell(e.queries[index])).join(" | ")} |`);
  });
  const ours = engines.find((e) => e.id === "ours");
  const baselines = engines.filter((e) => e.id === "fts5_and_intended" || e.id === "fts5_or_intended");
  if (ours) {
    const losses = queries.flatMap((judged, index) => {
      const mine = ours.queries[index]?.reciprocal_rank ?? 0;
      const beaten = baselines.filter((e) => (e.queries[index]?.reciprocal_rank ?? 0) > mine).map((e) => e.id);
      return beaten.length === 0 ? [] : [`- ${judged.query}: ours ${rankCell(ours.queries[index])}, beaten by ${beaten.join(", ")}; our top 3: ${ours.queries[index]?.top.join(" · ") ?? ""}`];
    });
    lines.push("", `Queries where an FTS5 baseline ranks a relevant note higher than note_search (${losses.length}):`, "", ...losses);
  }
  return `${lines.join("\n")}\n`;
}

async function main(): Promise<void> {
  const queries = loadQueries(QUERY_FILE);
  const scratch = mkdtempSync(path.join(os.tmpdir(), "sb-quality-"));
  try {
    const root = path.join(scratch, "vault");
    await copyVault(HELP_VAULT, root);
    const notes = await listNotes(root);
    const known = new Set(notes);
    for (const judged of queries) {
      const missing = judged.relevant.filter((p) => !known.has(p));
      if (missing.length > 0) throw new Error(`query ${JSON.stringify(judged.query)} names notes that are not in the vault: ${missing.join(", ")}`);
    }
    const dbFile = path.join(scratch, "fts5.db");
    buildFts5(root, notes, dbFile);
    const host = await startOurs(root, scratch);
    let engines: EngineScore[];
    try {
      engines = [await scoreOurs(host, queries), ...(await scoreFts5(dbFile, queries)), ...(await scoreTunings(host, queries))];
    } finally {
      await host.stop();
    }
    const report = markdown(engines, queries);
    mkdirSync(OUT_DIR, { recursive: true });
    const result = { vault: "obsidian-help-en", notes: notes.length, queries: queries.length, page: PAGE, recall_depth: RECALL_DEPTH, engines };
    writeFileSync(path.join(OUT_DIR, "quality.json"), `${JSON.stringify(result, null, 2)}\n`);
    writeFileSync(path.join(OUT_DIR, "quality.md"), report);
    process.stdout.write(report);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
