// Semantic search at bench scale with the deterministic embedder served over HTTP by a child
// process: the background embedding pass (its longest event-loop stall, wall time, RSS), the vector
// file's size, a restart's requests (none), and hybrid and semantic query latency against lexical.
import { spawn, type ChildProcess } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { embeddingProvider, NodeVaultHost, vaultDataDir, type EmbeddingSettings } from "../src/hosts/node/host";
import { JsonLineLogger } from "../src/hosts/node/services";
import { VECTORS_KEY } from "../src/core/search/semantic/semantic-index";
import type { SearchMode } from "../src/core/search/semantic/hybrid";
import { PhaseProbe, round, type LatencySummary, type PhaseStats } from "./measure";
import { timeQueries } from "./latency";
import type { BenchQuery } from "./queries";

const VAULT = "bench";
const MODEL = "trigram-128";

export interface SemanticResult {
  model: string;
  notes: number;
  chunks: number;
  texts_sent: number;
  /** The background pass from enabling the provider to every note embedded. */
  embedding_pass: PhaseStats;
  vector_file_bytes: number;
  rss_after_bytes: number;
  /** Requests a restart sent to the provider (0: the stored vectors were reused). */
  restart_requests: number;
  search: Record<SearchMode, LatencySummary>;
  hybrid_p95_over_lexical: number;
  semantic_p95_over_lexical: number;
}

async function startEmbedder(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [path.join(__dirname, "embed-server.js")], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the embedding server exited (${code})`)));
    child.stdout.once("data", (data: Buffer) => resolve(data.toString("utf8").trim()));
  });
  return { url, child };
}

async function stats(url: string): Promise<{ requests: number; texts: number }> {
  const response = await fetch(url.replace(/\/v1$/, "/stats"));
  return (await response.json()) as { requests: number; texts: number };
}

function settings(url: string): EmbeddingSettings {
  return { url, model: MODEL, batchSize: 64, requestsPerMinute: 1_000_000 };
}

function host(root: string, dataDir: string, url: string | null): NodeVaultHost {
  return new NodeVaultHost({
    name: VAULT,
    root,
    dataDir,
    logger: new JsonLineLogger({ level: "info", write: () => undefined }),
    watch: false,
    history: false,
    ...(url ? { embeddings: settings(url) } : {}),
  });
}

export async function benchSemantic(root: string, dataDir: string, queries: readonly BenchQuery[], repeat: number): Promise<SemanticResult> {
  const embedder = await startEmbedder();
  try {
    // The index is built first: the probe watches the embedding pass alone.
    const first = host(root, dataDir, null);
    await first.start();
    const probe = PhaseProbe.start();
    first.engine.setEmbeddingProvider(embeddingProvider(settings(embedder.url)));
    await first.engine.semanticIdle();
    const pass = probe.stop();
    const status = first.engine.semanticStatus();
    if (status.state !== "ready") throw new Error(`embedding ended ${status.state}: ${status.error ?? ""}`);
    const counts = first.engine.semanticCounts();
    await first.stop();
    const vectorFile = path.join(vaultDataDir(dataDir, VAULT, root), `${VECTORS_KEY}.snapshot`);
    const vectorBytes = (await fs.stat(vectorFile)).size;

    const before = await stats(embedder.url);
    const second = host(root, dataDir, embedder.url);
    await second.start();
    await second.engine.semanticIdle();
    const restartRequests = (await stats(embedder.url)).requests - before.requests;
    const engine = second.engine;
    const search: Partial<Record<SearchMode, LatencySummary>> = {};
    for (const mode of ["lexical", "hybrid", "semantic"] as const) {
      const timings = await timeQueries(queries, repeat, async (query) => (await engine.search(query.ours, { limit: 10, offset: 0, mode })).total);
      search[mode] = timings.overall;
    }
    const rss = process.memoryUsage().rss;
    await second.stop();
    const lexical = search.lexical!;
    return {
      model: MODEL,
      notes: status.done,
      chunks: counts.chunks,
      texts_sent: counts.textsSent,
      embedding_pass: pass,
      vector_file_bytes: vectorBytes,
      rss_after_bytes: rss,
      restart_requests: restartRequests,
      search: search as Record<SearchMode, LatencySummary>,
      hybrid_p95_over_lexical: round(search.hybrid!.p95_ms / lexical.p95_ms),
      semantic_p95_over_lexical: round(search.semantic!.p95_ms / lexical.p95_ms),
    };
  } finally {
    embedder.child.kill();
  }
}
