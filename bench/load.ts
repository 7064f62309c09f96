// `npm run load`: concurrent MCP SDK clients against the real headless server for a fixed time,
// then a replay of every append against the final files. Writes bench/out/load.json, prints the
// markdown summary on stdout (progress on stderr), exits 1 on any error, lost or doubled update.
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { generateToken } from "../src/auth/tokens";
import { runClient, type AppendRecord } from "./load/client";
import { LOAD_USAGE, parseLoadOptions, type LoadOptions } from "./load/options";
import { corpusQueries, pickTargets } from "./load/plan";
import { combineClients, renderLoadMarkdown, type LoadResults } from "./load/report";
import { startLoadServer, writeLoadConfig } from "./load/server";
import { verifyAppends } from "./load/verify";
import { round } from "./measure";
import { copyVault, ensureSyntheticVault, listNotes } from "./vaults";

const SERVER_START_TIMEOUT_MS = 600_000;
const SERVER_STOP_TIMEOUT_MS = 60_000;
/** Past the load itself, the longest a run may take (start, drain, stop, verify) before it is killed. */
const OVERRUN_MS = 900_000;

function progress(text: string): void {
  process.stderr.write(`[load] ${text}\n`);
}

async function runLoad(options: LoadOptions, scratch: string): Promise<LoadResults> {
  const startedAt = new Date().toISOString();
  progress(`vault of ${options.notes} notes (cached under ${options.vaultCache})`);
  const source = ensureSyntheticVault(options.vaultCache, options.generator, options.notes, options.seed);
  const vaultDir = path.join(scratch, "vault");
  const dataDir = path.join(scratch, "data");
  const configFile = path.join(scratch, "config.yaml");
  await copyVault(source.dir, vaultDir);
  await fs.mkdir(dataDir, { recursive: true });
  const notes = await listNotes(vaultDir);
  const targets = pickTargets(notes, options.clients, options.ownNotes, options.hotNotes, options.seed);
  const queries = await corpusQueries(vaultDir, notes, options.seed);

  const token = generateToken();
  await writeLoadConfig(configFile, token);
  progress("starting the server (first start builds the index)");
  const serverStarted = performance.now();
  const server = await startLoadServer({ vaultDir, dataDir, configFile, token, startTimeoutMs: SERVER_START_TIMEOUT_MS, ...(options.cpuProfileDir ? { cpuProfileDir: options.cpuProfileDir } : {}) });
  const serverStartMs = performance.now() - serverStarted;
  progress(`serving at ${server.url} after ${(serverStartMs / 1000).toFixed(1)} s; waiting for the history's first snapshot`);
  const historyStarted = performance.now();
  await server.historyReady(SERVER_START_TIMEOUT_MS);
  const historyReadyMs = performance.now() - historyStarted;
  progress(`history ready after ${(historyReadyMs / 1000).toFixed(1)} s; ${options.clients} clients for ${options.seconds} s`);

  let serverExit: number | null;
  let clients;
  let wallMs: number;
  try {
    const loadStarted = performance.now();
    const deadline = Date.now() + options.seconds * 1000;
    clients = await Promise.all(
      Array.from({ length: options.clients }, (_, id) =>
        runClient({
          id,
          url: server.url,
          token,
          seed: options.seed * 1000 + id,
          deadline,
          queries,
          readable: notes,
          ownNotes: targets.own[id]!,
          hotNotes: targets.hot,
        }),
      ),
    );
    wallMs = performance.now() - loadStarted;
  } finally {
    progress("stopping the server");
    serverExit = await server.stop(SERVER_STOP_TIMEOUT_MS);
  }

  const appends: AppendRecord[] = clients.flatMap((client) => client.appends);
  progress(`verifying ${appends.length} appends`);
  const verify = await verifyAppends(vaultDir, appends);
  const combined = combineClients(clients);
  const errors = combined.errors.reduce((sum, group) => sum + group.count, 0);
  const cpus = os.cpus();
  return {
    started_at: startedAt,
    config: { notes: options.notes, clients: options.clients, seconds: options.seconds, seed: options.seed, own_notes: options.ownNotes, hot_notes: options.hotNotes },
    machine: { cpu_model: cpus[0]?.model.trim() ?? "unknown", cores: cpus.length, node: process.version },
    server_start_ms: round(serverStartMs),
    history_ready_ms: round(historyReadyMs),
    wall_s: round(wallMs / 1000),
    calls: combined.calls,
    throughput_calls_per_s: round(combined.calls / (wallMs / 1000), 1),
    operations: combined.operations,
    throughput_operations_per_s: round(combined.operations / (wallMs / 1000), 1),
    latency: combined.latency,
    appends: appends.length,
    conflicts: combined.conflicts,
    errors,
    error_groups: combined.errors,
    verify,
    server_exit_code: serverExit,
    passed: errors === 0 && verify.lost === 0 && verify.doubled === 0 && verify.phantom === 0 && serverExit === 0,
  };
}

async function main(): Promise<void> {
  const parsed = parseLoadOptions(process.argv.slice(2));
  if (parsed === "help") {
    process.stdout.write(LOAD_USAGE);
    return;
  }
  const watchdog = setTimeout(() => {
    progress("the run overran its time bound; giving up");
    process.exit(1);
  }, parsed.seconds * 1000 + OVERRUN_MS);
  watchdog.unref();
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), "secondbrain-load-"));
  try {
    const results = await runLoad(parsed, scratch);
    await fs.mkdir(parsed.outDir, { recursive: true });
    const jsonFile = path.join(parsed.outDir, "load.json");
    await fs.writeFile(jsonFile, JSON.stringify(results, null, 2) + "\n");
    process.stdout.write(renderLoadMarkdown(results));
    progress(`wrote ${jsonFile}`);
    process.exitCode = results.passed ? 0 : 1;
  } finally {
    if (parsed.keep) progress(`kept ${scratch}`);
    else await fs.rm(scratch, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
