// Counters for the optional Prometheus endpoint (SPEC §11), kept in memory and rendered in the text
// exposition format 0.0.4. Every label value comes from a fixed set chosen here or by the host (tool
// names from the registry, vault labels from the configuration order): never a path, note, tag,
// user, client or message. Whoever may invent a label value may invent time series, and a name that
// reached a dashboard outlives the note it named.
import type { ErrorCode } from "./errors";

/** What became of a tool call; error codes are grouped so a dashboard needs no list of them. */
export const TOOL_OUTCOMES = ["ok", "invalid", "not_found", "conflict", "refused", "too_large", "unavailable", "internal"] as const;
export type ToolOutcome = (typeof TOOL_OUTCOMES)[number];

const OUTCOME_OF: Record<ErrorCode, ToolOutcome> = {
  invalid_argument: "invalid",
  invalid_path: "invalid",
  invalid_query: "invalid",
  unsupported: "invalid",
  not_found: "not_found",
  unknown_vault: "not_found",
  conflict: "conflict",
  forbidden: "refused",
  read_only: "refused",
  too_large: "too_large",
  unavailable: "unavailable",
  internal: "internal",
};

export function toolOutcome(code: ErrorCode | undefined): ToolOutcome {
  return code === undefined ? "ok" : OUTCOME_OF[code];
}

/** A call of a tool no registry knows is counted under this name, not under what the caller sent. */
export const UNKNOWN_TOOL = "unknown";

export const ROUTE_CLASSES = ["mcp", "oauth", "health", "metrics", "well_known", "other"] as const;
export type RouteClass = (typeof ROUTE_CLASSES)[number];

/** The status codes the server sends; any other is counted by its class (`5xx`). */
export const STATUS_CODES: readonly number[] = [200, 201, 202, 204, 302, 303, 304, 400, 401, 403, 404, 405, 406, 409, 413, 415, 429, 500, 503];

export function statusLabel(status: number): string {
  if (STATUS_CODES.includes(status)) return String(status);
  const family = Math.floor(status / 100);
  return family >= 1 && family <= 5 ? `${family}xx` : "other";
}

/** What the index keeps per vault, read at scrape time (vault_stats' definitions). */
export interface VaultGauges {
  notes: number;
  attachments: number;
  words: number;
  links: number;
  broken_links: number;
  orphans: number;
  open_tasks: number;
  tags: number;
}

export const VAULT_GAUGES: ReadonlyArray<{ key: keyof VaultGauges; help: string }> = [
  { key: "notes", help: "Markdown notes in the vault." },
  { key: "attachments", help: "Files other than notes in the vault." },
  { key: "words", help: "Words in the vault's notes." },
  { key: "links", help: "Links in the vault's notes, broken ones included." },
  { key: "broken_links", help: "Links that resolve to no file." },
  { key: "orphans", help: "Notes with no link in or out." },
  { key: "open_tasks", help: "Unchecked tasks." },
  { key: "tags", help: "Distinct tags (counted, never named)." },
];

/** One vault at scrape time: `label` is its position in the configuration, `gauges` absent when unreadable. */
export interface VaultSample {
  label: string;
  available: boolean;
  gauges?: VaultGauges;
}

export interface ScrapeInput {
  version: string;
  vaults: readonly VaultSample[];
  /** OAuth tokens issued since start and access tokens valid now; zeros when OAuth is off. */
  oauth: { issued: number; active: number };
  /** How long reading the vault gauges took, in seconds. */
  vaultSeconds: number;
}

export interface ToolCallSample {
  tool: string;
  outcome: ToolOutcome;
  seconds: number;
  /** The call changed the vault (a mutating tool, not a dry run, not "no change"). */
  wrote: boolean;
  /** max_response_bytes cut the result. */
  truncated: boolean;
}

type Labels = ReadonlyArray<readonly [string, string]>;

interface Series {
  labels: Labels;
  value: number;
}

interface Family {
  name: string;
  help: string;
  type: "counter" | "gauge" | "summary";
  series: Series[];
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

function labelText(labels: Labels): string {
  return labels.length === 0 ? "" : `{${labels.map(([name, value]) => `${name}="${escapeLabel(value)}"`).join(",")}}`;
}

function numberText(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "+Inf" : "-Inf";
  return String(value);
}

/** Label tuples to numbers, in first-seen order. */
class Counter {
  private readonly values = new Map<string, Series>();

  add(labels: Labels, amount = 1): void {
    const key = labels.map(([, value]) => value).join("\u0000");
    const series = this.values.get(key);
    if (series) series.value += amount;
    else this.values.set(key, { labels, value: amount });
  }

  series(): Series[] {
    return [...this.values.values()].map((series) => ({ ...series }));
  }
}

export class Metrics {
  private readonly toolNames: ReadonlySet<string>;
  private readonly calls = new Counter();
  private readonly seconds = new Counter();
  private readonly writes = new Counter();
  private readonly conflicts = new Counter();
  private readonly truncated = new Counter();
  private readonly requests = new Counter();

  /** `toolNames`: every tool the host's registry defines; only these appear as `tool` labels. */
  constructor(toolNames: Iterable<string>) {
    this.toolNames = new Set(toolNames);
  }

  /** The `tool` label a call is counted under. */
  toolLabel(name: string): string {
    return this.toolNames.has(name) ? name : UNKNOWN_TOOL;
  }

  /** Every value the `tool` label can take. */
  toolLabels(): string[] {
    return [...this.toolNames, UNKNOWN_TOOL];
  }

  recordToolCall(sample: ToolCallSample): void {
    const tool = this.toolLabel(sample.tool);
    const labels: Labels = [
      ["tool", tool],
      ["outcome", sample.outcome],
    ];
    this.calls.add(labels);
    this.seconds.add(labels, Math.max(0, sample.seconds));
    if (sample.wrote) this.writes.add([["tool", tool]]);
    if (sample.outcome === "conflict") this.conflicts.add([["tool", tool]]);
    if (sample.truncated) this.truncated.add([["tool", tool]]);
  }

  recordHttpRequest(route: RouteClass, status: number): void {
    this.requests.add([
      ["route", route],
      ["code", statusLabel(status)],
    ]);
  }

  /** The exposition text; a family without series is left out, HELP and TYPE included. */
  render(input: ScrapeInput): string {
    const calls = this.calls.series();
    const seconds = this.seconds.series();
    const families: Family[] = [
      { name: "secondbrain_build_info", help: "Always 1; the version is a label.", type: "gauge", series: [{ labels: [["version", input.version]], value: 1 }] },
      { name: "secondbrain_tool_calls_total", help: "Tool calls by tool and outcome.", type: "counter", series: calls },
      { name: "secondbrain_writes_total", help: "Tool calls that changed the vault (not dry runs, not unchanged notes), by tool.", type: "counter", series: this.writes.series() },
      { name: "secondbrain_conflicts_total", help: "Tool calls refused because a note changed since it was read, by tool.", type: "counter", series: this.conflicts.series() },
      { name: "secondbrain_truncated_results_total", help: "Tool results cut to max_response_bytes, by tool.", type: "counter", series: this.truncated.series() },
      { name: "secondbrain_http_requests_total", help: "HTTP requests by route class and status code.", type: "counter", series: this.requests.series() },
      { name: "secondbrain_oauth_tokens_issued_total", help: "OAuth access tokens issued since start (0 with OAuth off).", type: "counter", series: [{ labels: [], value: input.oauth.issued }] },
      { name: "secondbrain_oauth_tokens_active", help: "OAuth access tokens valid now (0 with OAuth off).", type: "gauge", series: [{ labels: [], value: input.oauth.active }] },
      { name: "secondbrain_vault_up", help: "1 when the vault's folder is there and served, else 0.", type: "gauge", series: input.vaults.map((vault) => ({ labels: [["vault", vault.label]], value: vault.available ? 1 : 0 })) },
      ...VAULT_GAUGES.map(({ key, help }): Family => ({
        name: `secondbrain_vault_${key}`,
        help,
        type: "gauge",
        series: input.vaults.flatMap((vault) => (vault.gauges ? [{ labels: [["vault", vault.label]] as Labels, value: vault.gauges[key] }] : [])),
      })),
      { name: "secondbrain_vault_scrape_seconds", help: "Time this scrape took to read the vault gauges.", type: "gauge", series: [{ labels: [], value: input.vaultSeconds }] },
    ];
    const lines: string[] = [];
    for (const family of families) {
      if (family.series.length === 0) continue;
      lines.push(`# HELP ${family.name} ${family.help}`, `# TYPE ${family.name} ${family.type}`);
      for (const series of family.series) lines.push(`${family.name}${labelText(series.labels)} ${numberText(series.value)}`);
      if (family.name === "secondbrain_tool_calls_total") lines.push(...durationLines(seconds, calls));
    }
    return lines.join("\n") + "\n";
  }
}

const DURATION = "secondbrain_tool_call_duration_seconds";

/** A summary without quantiles: sum and count by tool and outcome, for a mean over any window. */
function durationLines(seconds: readonly Series[], calls: readonly Series[]): string[] {
  const lines = [`# HELP ${DURATION} Time spent in tool calls by tool and outcome (sum and count; no quantiles).`, `# TYPE ${DURATION} summary`];
  for (const [index, sum] of seconds.entries()) {
    const labels = labelText(sum.labels);
    lines.push(`${DURATION}_sum${labels} ${numberText(sum.value)}`, `${DURATION}_count${labels} ${numberText(calls[index]?.value ?? 0)}`);
  }
  return lines;
}
