// The scripted model's part: which tool calls it makes, in order, each computed from what the client
// showed it of the earlier results, the way a model would work from them. Every model client runs the
// same script, so the matrix compares like with like.

/** What the client handed the model for one tool call. */
export interface Seen {
  /** The text the model reads (the client's own wrapping included). */
  text: string;
  /** Whether the client flagged the result as an error, where its API has such a flag. */
  isError: boolean | undefined;
}

export type StepId = "search" | "read" | "edit" | "conflict" | "missing" | "union" | "limit" | "large";

export interface ScriptedCall {
  step: string;
  tool: string;
  args: Record<string, unknown>;
}

export interface ScriptEntry<Step extends string = string> {
  step: Step;
  call(seen: readonly Seen[], client: string): Omit<ScriptedCall, "step">;
}

export type Script<Step extends string = string> = ReadonlyArray<ScriptEntry<Step>>;

export const NOTE = "Plugins/Word count.md";
export const EDITED_FROM = "displays the number of words";
export const STALE_FROM = "On mobile";

/** The first JSON object in a text, where clients wrap results in text of their own. */
export function parseSeen(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  for (const candidate of [text, text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1)]) {
    try {
      const value: unknown = JSON.parse(candidate);
      if (typeof value === "object" && value !== null) return unwrap(value as Record<string, unknown>);
    } catch {
      // Not JSON as a whole; try the braces inside.
    }
  }
  return undefined;
}

/** Gemini CLI nests the tool's text as a string inside its own JSON. */
function unwrap(value: Record<string, unknown>): Record<string, unknown> {
  for (const key of ["output", "content"]) {
    const inner = value[key];
    if (typeof inner === "string") {
      const parsed = parseSeen(inner);
      if (parsed) return parsed;
    }
  }
  return value;
}

function field(seen: Seen | undefined, key: string): unknown {
  return parseSeen(seen?.text)?.[key];
}

function firstHitPath(seen: Seen | undefined): string {
  const hits = field(seen, "hits");
  const first: unknown = Array.isArray(hits) ? hits[0] : undefined;
  const path = typeof first === "object" && first !== null ? (first as Record<string, unknown>).path : undefined;
  return typeof path === "string" ? path : "search-result-unreadable.md";
}

function readHash(seen: Seen | undefined): string {
  const hash = field(seen, "content_hash");
  return typeof hash === "string" ? hash : "hash-unreadable";
}

/** search → read → hash-checked edit → stale-hash conflict → missing note → list arguments → limit 500 → a large result. */
export const MAIN_SCRIPT: Script<StepId> = [
  { step: "search", call: () => ({ tool: "note_search", args: { query: "word count", limit: 3 } }) },
  { step: "read", call: (seen) => ({ tool: "note_read", args: { path: firstHitPath(seen[0]) } }) },
  {
    step: "edit",
    call: (seen, client) => ({
      tool: "note_edit",
      args: { path: NOTE, old_string: EDITED_FROM, new_string: `${EDITED_FROM} (checked by ${client})`, content_hash: readHash(seen[1]), reason: "client matrix" },
    }),
  },
  { step: "conflict", call: (seen) => ({ tool: "note_edit", args: { path: NOTE, old_string: STALE_FROM, new_string: "On phones", content_hash: readHash(seen[1]) } }) },
  { step: "missing", call: () => ({ tool: "note_read", args: { path: "nope/missing.md" } }) },
  { step: "union", call: () => ({ tool: "note_query", args: { where: { permalink: "plugins/word-count" }, fields: ["description", "permalink"] } }) },
  { step: "limit", call: () => ({ tool: "note_search", args: { query: "word count", limit: 500 } }) },
  { step: "large", call: () => ({ tool: "vault_grep", args: { pattern: "the", context: 5, limit: 1000 } }) },
];

export const BULK_FOLDER = "bulk";
export const BULK_NOTES = 1200;

/**
 * Large results against a server whose response limit is raised to 300,000 bytes: how much of each
 * the client hands its model. vault_grep and note_read declare anthropic/maxResultSizeChars, note_list
 * declares nothing; note_read of the vault's largest note (32.7 KB) is one whole window.
 */
export const KEEPS_SCRIPT: Script = [
  { step: "vault_grep, 300 KB, declares its size", call: () => ({ tool: "vault_grep", args: { pattern: "the", context: 5, limit: 1000 } }) },
  { step: "note_list, 170 KB, declares nothing", call: () => ({ tool: "note_list", args: { prefix: `${BULK_FOLDER}/`, limit: 1000 } }) },
  { step: "note_list, 34 KB, declares nothing", call: () => ({ tool: "note_list", args: { prefix: `${BULK_FOLDER}/`, limit: 200 } }) },
  { step: "note_read, 34 KB, declares its size", call: () => ({ tool: "note_read", args: { path: "Extending Obsidian/Obsidian CLI.md", max_bytes: 1048576 } }) },
];
