// Results over max_response_bytes are cut where it costs least: the largest list loses items from
// its end, or the longest text loses its tail, until the encoded result fits. The result then says
// what was cut and how to get the rest, so nothing is dropped silently (SPEC §4, §5). That note comes
// first: clients that keep only the head of a long result (a preview) still show it.
import type { ToolResult } from "../tools/types";

/**
 * Below what every client measured hands its model whole (Gemini CLI keeps 40,000 characters, the
 * first 8,000 and the last 32,000 of anything longer), with room for the client's own wrapping. A
 * UTF-8 byte is at most one character, so the limit in bytes holds in characters too.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 36_000;

/** What a tool takes for paging, and the offset this call used. */
export interface Paging {
  tool: string;
  /** Present when the tool pages by `offset`: the offset of this call. */
  offset?: number;
  takesLimit: boolean;
}

// Shorter strings are never worth cutting: ids, hashes, paths.
const MIN_CUTTABLE_TEXT = 1024;
const MAX_CUTS = 8;
// Distinct from tools' own `truncated` flags (vault_grep), which keep their meaning.
const NOTE_KEY = "response_truncated";

type Container = Record<string, unknown> | unknown[];

interface Candidate {
  parent: Container;
  key: string | number;
  field: string;
  value: unknown[] | string;
  size: number;
}

export interface CutRecord {
  field: string;
  kept: number;
  of: number;
  unit: "items" | "chars";
}

export interface TruncationNote {
  hint: string;
  actual_bytes: number;
  allowed_bytes: number;
  cut: CutRecord[];
}

/** The note under construction, and which cut list was the page (its `returned` followed the cut). */
interface CutState {
  note: TruncationNote;
  paged?: CutRecord;
  paging: Paging | undefined;
}

const encoder = new TextEncoder();

export function encodeResult(result: unknown): string {
  return JSON.stringify(result, null, 2);
}

export function utf8Bytes(text: string): number {
  return encoder.encode(text).length;
}

function isContainer(value: unknown): value is Container {
  return typeof value === "object" && value !== null;
}

function childField(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  return parent ? `${parent}.${key}` : key;
}

function collect(container: Container, field: string, out: Candidate[]): void {
  const entries: [string | number, unknown][] = Array.isArray(container)
    ? container.map((value, index) => [index, value])
    : Object.entries(container);
  for (const [key, value] of entries) {
    const path = childField(field, key);
    if ((Array.isArray(value) && value.length > 0) || (typeof value === "string" && value.length >= MIN_CUTTABLE_TEXT)) {
      out.push({ parent: container, key, field: path, value, size: JSON.stringify(value).length });
    }
    if (isContainer(value)) collect(value, path, out);
  }
}

function isNoteField(field: string): boolean {
  return field === NOTE_KEY || field.startsWith(`${NOTE_KEY}.`);
}

function largestCandidate(result: ToolResult, done: ReadonlySet<string>): Candidate | undefined {
  const candidates: Candidate[] = [];
  collect(result, "", candidates);
  return candidates
    .filter((candidate) => !done.has(candidate.field) && !isNoteField(candidate.field))
    .sort((a, b) => b.size - a.size)[0];
}

function put(parent: Container, key: string | number, value: unknown): void {
  (parent as Record<string | number, unknown>)[key] = value;
}

/** Keeps a prefix that does not end inside a surrogate pair. */
function textPrefix(text: string, length: number): string {
  const code = text.charCodeAt(length - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length);
}

function shortened(value: unknown[] | string, kept: number): unknown[] | string {
  return typeof value === "string" ? textPrefix(value, kept) : value.slice(0, kept);
}

/** The largest kept length in [0, full) for which `fits` holds, or 0. */
function largestFitting(full: number, fits: (kept: number) => boolean): number {
  let low = 0;
  let high = full - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  return low;
}

function cut(result: ToolResult, candidate: Candidate, state: CutState, budget: number): void {
  const record: CutRecord = {
    field: candidate.field,
    kept: 0,
    of: candidate.value.length,
    unit: typeof candidate.value === "string" ? "chars" : "items",
  };
  state.note.cut.push(record);
  const parent = candidate.parent as Record<string, unknown>;
  // A list's own count follows the cut, so offset + returned still pages correctly.
  const counted = record.unit === "items" && !Array.isArray(parent) && parent.returned === record.of;
  if (counted && parent === result) state.paged ??= record;
  const apply = (kept: number): void => {
    const value = shortened(candidate.value, kept);
    put(candidate.parent, candidate.key, value);
    record.kept = value.length;
    if (counted) parent.returned = record.kept;
    state.note.hint = truncationHint(state);
  };
  const kept = largestFitting(candidate.value.length, (length) => {
    apply(length);
    return utf8Bytes(encodeResult(result)) <= budget;
  });
  apply(kept);
}

function plural(count: number, unit: CutRecord["unit"]): string {
  if (unit === "chars") return count === 1 ? "character" : "characters";
  return count === 1 ? "item" : "items";
}

/** What was cut and the call that gets the rest, in words an agent can act on. */
export function truncationHint(state: Pick<CutState, "note" | "paged" | "paging">): string {
  const { note, paged, paging } = state;
  const over = `The result was cut to fit the response limit of ${note.allowed_bytes} bytes (it was ${note.actual_bytes})`;
  if (note.cut.length === 0) return `${over}, but nothing in it could be cut. Ask for less: narrow the call or pass a smaller limit.`;
  const kept = note.cut.map((record) => `${record.field}: ${record.kept} of ${record.of} ${plural(record.of, record.unit)}`).join("; ");
  const list = paged ?? note.cut.find((record) => record.unit === "items");
  const fits = list && paging?.takesLimit ? ` (limit: ${Math.max(1, list.kept)} or less fits whole)` : "";
  let next: string;
  if (paged && paging?.offset !== undefined) {
    next = `For the rest, call ${paging.tool} again with offset: ${paging.offset + paged.kept} and the same other arguments${fits}.`;
  } else if (list) {
    next = `The rest is not in this result: narrow the call (prefix, glob, a more specific pattern or query) to reach it${fits}.`;
  } else {
    next = "The rest is not in this result: narrow the call (a shorter range, prefix or glob) or ask for less.";
  }
  return `${over}, keeping ${kept}. ${next}`;
}

/**
 * The result unchanged when it fits in `maxBytes` encoded, else a cut copy whose first key is
 * `response_truncated`, the hint its first field.
 */
export function fitResult(result: ToolResult, maxBytes: number, paging?: Paging): ToolResult {
  const actual = utf8Bytes(encodeResult(result));
  if (actual <= maxBytes) return result;
  const note: TruncationNote = { hint: "", actual_bytes: actual, allowed_bytes: maxBytes, cut: [] };
  const state: CutState = { note, paging };
  note.hint = truncationHint(state);
  const copy: ToolResult = { [NOTE_KEY]: note, ...(JSON.parse(encodeResult(result)) as ToolResult) };
  const done = new Set<string>();
  for (let round = 0; round < MAX_CUTS && utf8Bytes(encodeResult(copy)) > maxBytes; round += 1) {
    const candidate = largestCandidate(copy, done);
    if (!candidate) break;
    done.add(candidate.field);
    cut(copy, candidate, state, maxBytes);
  }
  return copy;
}
