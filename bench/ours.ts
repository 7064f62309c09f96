// Our engine as the bench drives it: a Node host started under a probe that splits the start where
// the engine's own log says the index was reconciled and the snapshot written, and the in-process
// tool path (the same ToolCatalog the MCP server calls, without HTTP).
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { ReconcileReport } from "../src/core/vault/engine";
import type { VaultRegistry } from "../src/core/vault/directory";
import { NodeVaultHost } from "../src/hosts/node/host";
import { JsonLineLogger } from "../src/hosts/node/services";
import { DEFAULT_MAX_RESPONSE_BYTES } from "../src/mcp/truncate";
import { ToolCatalog } from "../src/mcp/tools";
import { ALL_TOOLS } from "../src/tools/registry";
import type { UserInfo } from "../src/tools/types";
import { combinePhases, PhaseProbe, type PhaseStats } from "./measure";

export const BENCH_VAULT = "bench";

export interface StartMeasurement {
  report: ReconcileReport;
  /** Snapshot load and reconcile, up to the `index_reconciled` log line. */
  index: PhaseStats;
  /** The snapshot write that start() does when the index changed; null when it did not. */
  persist: PhaseStats | null;
  /** The whole `host.start()`. */
  total: PhaseStats;
  snapshot_bytes: number | null;
}

/** A logger that drops every line (none is written anywhere) but lets the probe see two events. */
function markingLogger(onEvent: (event: "reconciled" | "persisted", line: string) => void): JsonLineLogger {
  return new JsonLineLogger({
    level: "debug",
    write: (line) => {
      if (line.includes('"event":"index_reconciled"')) onEvent("reconciled", line);
      else if (line.includes('"event":"index_persisted"')) onEvent("persisted", line);
    },
  });
}

export async function startMeasured(root: string, dataDir: string): Promise<{ host: NodeVaultHost; measurement: StartMeasurement }> {
  let probe: PhaseProbe | null = null;
  const phases: { index?: PhaseStats; persist?: PhaseStats; bytes?: number } = {};
  const logger = markingLogger((event, line) => {
    if (!probe) return;
    if (event === "reconciled" && !phases.index) phases.index = probe.mark();
    else if (event === "persisted" && phases.index && !phases.persist) {
      phases.persist = probe.mark();
      const bytes = (JSON.parse(line) as { bytes?: unknown }).bytes;
      if (typeof bytes === "number") phases.bytes = bytes;
    }
  });
  // The history is measured by its own tests; its first-start baseline would blur the index figures.
  const host = new NodeVaultHost({ name: BENCH_VAULT, root, dataDir, logger, watch: false, history: false });
  probe = PhaseProbe.start();
  const report = await host.start();
  const tail = probe.stop();
  const index = phases.index ?? tail;
  const parts = [index, ...(phases.persist ? [phases.persist] : []), ...(phases.index ? [tail] : [])];
  return {
    host,
    measurement: {
      report,
      index,
      persist: phases.persist ?? null,
      total: combinePhases(parts),
      snapshot_bytes: phases.bytes ?? null,
    },
  };
}

export const BENCH_USER: UserInfo = { name: "default", readOnly: false, vaults: [] };

export type ToolCaller = (name: string, args: Record<string, unknown>) => Promise<CallToolResult>;

/** Calls tools as the MCP server does (argument parsing, handler, result encoding, audit line). */
export function inProcessTools(registry: VaultRegistry): ToolCaller {
  const catalog = new ToolCatalog({
    user: BENCH_USER,
    tools: ALL_TOOLS,
    directory: registry.forUser(BENCH_USER),
    logger: new JsonLineLogger({ level: "info", write: () => undefined }),
    maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
    now: () => Date.now(),
  });
  return (name, args) => catalog.call(name, args);
}

/** note_search's `total`, or an error naming the query when the call failed. */
export function searchTotal(result: CallToolResult, query: string): number {
  if (result.isError === true) throw new Error(`note_search failed for ${JSON.stringify(query)}: ${JSON.stringify(result.content).slice(0, 300)}`);
  const total = (result.structuredContent as { total?: unknown } | undefined)?.total;
  if (typeof total !== "number") throw new Error(`note_search returned no total for ${JSON.stringify(query)}`);
  return total;
}
