// The load run's result as JSON and as the markdown summary printed on stdout.
import { summarize, type LatencySummary } from "../measure";
import type { ClientResult, LoadError, LoadTool } from "./client";
import type { VerifyResult } from "./verify";

export interface ErrorGroup extends LoadError {
  count: number;
}

export interface LoadResults {
  started_at: string;
  config: { notes: number; clients: number; seconds: number; seed: number; own_notes: number; hot_notes: number };
  machine: { cpu_model: string; cores: number; node: string };
  server_start_ms: number;
  /** From serving to the history's first snapshot on disk; the load starts after it. */
  history_ready_ms: number;
  wall_s: number;
  calls: number;
  throughput_calls_per_s: number;
  /** Operations done (ClientResult.operations): a lost hash race costs calls but adds no operation. */
  operations: number;
  throughput_operations_per_s: number;
  latency: Record<LoadTool, LatencySummary>;
  appends: number;
  conflicts: number;
  errors: number;
  error_groups: ErrorGroup[];
  verify: VerifyResult;
  server_exit_code: number | null;
  passed: boolean;
}

const TOOLS: readonly LoadTool[] = ["note_search", "note_read", "note_section_edit"];

export function combineClients(clients: readonly ClientResult[]): {
  latency: Record<LoadTool, LatencySummary>;
  calls: number;
  operations: number;
  conflicts: number;
  errors: ErrorGroup[];
} {
  const latency = {} as Record<LoadTool, LatencySummary>;
  let calls = 0;
  for (const tool of TOOLS) {
    const samples = clients.flatMap((client) => client.latencies[tool]);
    latency[tool] = summarize(samples);
    calls += samples.length;
  }
  const groups = new Map<string, ErrorGroup>();
  for (const error of clients.flatMap((client) => client.errors)) {
    calls += error.code === "transport" ? 1 : 0;
    const key = `${error.tool}\u0000${error.code}\u0000${error.message}`;
    const group = groups.get(key);
    if (group) group.count++;
    else groups.set(key, { ...error, count: 1 });
  }
  return {
    latency,
    calls,
    operations: clients.reduce((sum, client) => sum + client.operations, 0),
    conflicts: clients.reduce((sum, client) => sum + client.conflicts, 0),
    errors: [...groups.values()].sort((a, b) => b.count - a.count),
  };
}

export function renderLoadMarkdown(results: LoadResults): string {
  const { config, verify } = results;
  const lines = [
    `## Load test: ${config.clients} clients for ${config.seconds} s on ${config.notes} notes`,
    "",
    `${results.machine.cpu_model}, ${results.machine.cores} cores, Node ${results.machine.node}; server start ${(results.server_start_ms / 1000).toFixed(1)} s, history's first snapshot ${(results.history_ready_ms / 1000).toFixed(1)} s more (the load starts after it).`,
    "",
    "| tool | calls | p50 ms | p95 ms | max ms |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...TOOLS.map((tool) => {
      const stats = results.latency[tool];
      return `| ${tool} | ${stats.n} | ${stats.p50_ms} | ${stats.p95_ms} | ${stats.max_ms} |`;
    }),
    "",
    "| figure | value |",
    "| --- | ---: |",
    `| calls | ${results.calls} |`,
    `| throughput (calls/s) | ${results.throughput_calls_per_s} |`,
    `| operations (searches, reads, acknowledged appends) | ${results.operations} |`,
    `| throughput (operations/s; lost hash races not counted) | ${results.throughput_operations_per_s} |`,
    `| appends (acknowledged / uncertain / refused) | ${results.appends} (${verify.acknowledged} / ${verify.uncertain} / ${verify.refused}) |`,
    `| conflicts (retried) | ${results.conflicts} |`,
    `| errors (must be 0) | ${results.errors} |`,
    `| lost updates (must be 0) | ${verify.lost} |`,
    `| doubled (must be 0) | ${verify.doubled} |`,
    `| phantom lines (must be 0) | ${verify.phantom} |`,
    `| notes checked | ${verify.notes_checked} |`,
    "",
    `Result: **${results.passed ? "PASS" : "FAIL"}**`,
  ];
  if (results.error_groups.length > 0) {
    lines.push("", "Errors:", ...results.error_groups.slice(0, 10).map((group) => `- ${group.count}× ${group.tool} ${group.code}: ${group.message}`));
  }
  if (verify.examples.length > 0) lines.push("", "Verification failures:", ...verify.examples.map((text) => `- ${text}`));
  return lines.join("\n") + "\n";
}
