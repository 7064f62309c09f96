// One load client: an official SDK client over Streamable HTTP with the bearer token, looping over
// a seeded mix of searches, reads and hash-checked appends until the deadline.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { performance } from "node:perf_hooks";
import { LOAD_VAULT } from "./server";

export type LoadTool = "note_search" | "note_read" | "note_section_edit";

/** What became of one intended append, whatever number of attempts it took. */
export type AppendOutcome = "acknowledged" | "uncertain" | "refused";

export interface AppendRecord {
  note: string;
  line: string;
  outcome: AppendOutcome;
  attempts: number;
}

export interface LoadError {
  tool: LoadTool;
  code: string;
  message: string;
}

export interface ClientResult {
  latencies: Record<LoadTool, number[]>;
  appends: AppendRecord[];
  conflicts: number;
  /**
   * What the client got done: each search and read that answered, and each append once acknowledged,
   * however many lost hash races it took; the calls of the lost races are not counted again.
   */
  operations: number;
  errors: LoadError[];
}

export interface ClientPlan {
  id: number;
  url: string;
  token: string;
  seed: number;
  deadline: number;
  queries: readonly string[];
  readable: readonly string[];
  ownNotes: readonly string[];
  hotNotes: readonly string[];
}

const CALL_TIMEOUT_MS = 30_000;
/** An append that loses the race this often is reported as an error rather than retried forever. */
const MAX_APPEND_ATTEMPTS = 200;
const SEARCH_SHARE = 0.4;
const READ_SHARE = 0.3;
const HOT_SHARE = 0.5;

/** mulberry32: small, seeded, good enough to pick operations reproducibly. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function appendLine(client: number, seq: number): string {
  return `- load c${client} ${seq}`;
}

export const APPEND_LINE = /^- load c\d+ \d+$/;

interface ToolFailure {
  code: string;
  message: string;
}

function failureOf(result: CallToolResult): ToolFailure | undefined {
  if (result.isError !== true) return undefined;
  const structured = result.structuredContent as { error?: { code?: unknown; message?: unknown } } | undefined;
  const first = result.content[0];
  const text = first && first.type === "text" ? first.text : "";
  const code = typeof structured?.error?.code === "string" ? structured.error.code : "unknown";
  const message = typeof structured?.error?.message === "string" ? structured.error.message : text;
  return { code, message: message.slice(0, 300) };
}

export async function runClient(plan: ClientPlan): Promise<ClientResult> {
  const random = seededRandom(plan.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const result: ClientResult = {
    latencies: { note_search: [], note_read: [], note_section_edit: [] },
    appends: [],
    conflicts: 0,
    operations: 0,
    errors: [],
  };
  const client = new Client({ name: `secondbrain-load-${plan.id}`, version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(plan.url), {
    requestInit: { headers: { Authorization: `Bearer ${plan.token}` } },
  });
  await client.connect(transport);

  /** A tool result, or a thrown transport/protocol failure recorded as an error. */
  const call = async (tool: LoadTool, args: Record<string, unknown>): Promise<CallToolResult | "transport_error"> => {
    const started = performance.now();
    try {
      const response = (await client.callTool({ name: tool, arguments: { vault: LOAD_VAULT, ...args } }, undefined, { timeout: CALL_TIMEOUT_MS })) as CallToolResult;
      result.latencies[tool].push(performance.now() - started);
      return response;
    } catch (error) {
      result.errors.push({ tool, code: "transport", message: (error instanceof Error ? error.message : String(error)).slice(0, 300) });
      return "transport_error";
    }
  };

  const simple = async (tool: LoadTool, args: Record<string, unknown>): Promise<void> => {
    const response = await call(tool, args);
    if (response === "transport_error") return;
    const failure = failureOf(response);
    if (failure) result.errors.push({ tool, ...failure });
    else result.operations++;
  };

  const append = async (note: string, line: string): Promise<void> => {
    const record: AppendRecord = { note, line, outcome: "refused", attempts: 0 };
    result.appends.push(record);
    while (record.attempts < MAX_APPEND_ATTEMPTS) {
      const read = await call("note_read", { path: note });
      if (read === "transport_error") return;
      const readFailure = failureOf(read);
      if (readFailure) {
        result.errors.push({ tool: "note_read", ...readFailure });
        return;
      }
      const hash = (read.structuredContent as { content_hash?: unknown } | undefined)?.content_hash;
      if (typeof hash !== "string") {
        result.errors.push({ tool: "note_read", code: "no_content_hash", message: `note_read of an append target returned no content_hash` });
        return;
      }
      record.attempts++;
      const edit = await call("note_section_edit", { path: note, mode: "append_to_note", content: line, content_hash: hash });
      if (edit === "transport_error") {
        // The write may or may not have landed before the response was lost.
        record.outcome = "uncertain";
        return;
      }
      const failure = failureOf(edit);
      if (!failure) {
        record.outcome = "acknowledged";
        result.operations++;
        return;
      }
      if (failure.code !== "conflict") {
        result.errors.push({ tool: "note_section_edit", ...failure });
        return;
      }
      result.conflicts++;
    }
    result.errors.push({ tool: "note_section_edit", code: "conflict_retries_exhausted", message: `an append lost ${MAX_APPEND_ATTEMPTS} hash races in a row` });
  };

  let seq = 0;
  try {
    while (Date.now() < plan.deadline) {
      const roll = random();
      if (roll < SEARCH_SHARE) await simple("note_search", { query: pick(plan.queries), limit: 10 });
      else if (roll < SEARCH_SHARE + READ_SHARE) await simple("note_read", { path: pick(plan.readable) });
      else await append(random() < HOT_SHARE ? pick(plan.hotNotes) : pick(plan.ownNotes), appendLine(plan.id, seq++));
    }
  } finally {
    await client.close().catch(() => undefined);
  }
  return result;
}
