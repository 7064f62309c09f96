// Results over max_response_bytes are cut where it costs least: the largest list loses items from
// its end, or the longest text loses its tail, until the encoded result fits. The result then says
// what was cut and how to page, so nothing is dropped silently (SPEC §4, §5).
import type { ToolResult } from "../tools/types";

export const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024;
export const PAGING_HINT =
  "The result was cut to fit the response limit; pass limit/offset (or byte_offset for note_read) to page.";

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
  actual_bytes: number;
  allowed_bytes: number;
  hint: string;
  cut: CutRecord[];
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

function cut(result: ToolResult, candidate: Candidate, note: TruncationNote, budget: number): void {
  const record: CutRecord = {
    field: candidate.field,
    kept: 0,
    of: candidate.value.length,
    unit: typeof candidate.value === "string" ? "chars" : "items",
  };
  note.cut.push(record);
  const apply = (kept: number): void => {
    record.kept = kept;
    put(candidate.parent, candidate.key, shortened(candidate.value, kept));
  };
  const kept = largestFitting(candidate.value.length, (length) => {
    apply(length);
    return utf8Bytes(encodeResult(result)) <= budget;
  });
  apply(kept);
  record.kept = shortened(candidate.value, kept).length;
  const parent = candidate.parent as Record<string, unknown>;
  // A list's own count follows the cut, so offset + returned still pages correctly.
  if (record.unit === "items" && !Array.isArray(parent) && parent.returned === record.of) parent.returned = record.kept;
}

/** The result unchanged when it fits in `maxBytes` encoded, else a cut copy carrying `truncated`. */
export function fitResult(result: ToolResult, maxBytes: number): ToolResult {
  const actual = utf8Bytes(encodeResult(result));
  if (actual <= maxBytes) return result;
  const note: TruncationNote = { actual_bytes: actual, allowed_bytes: maxBytes, hint: PAGING_HINT, cut: [] };
  const copy: ToolResult = { ...(JSON.parse(encodeResult(result)) as ToolResult), [NOTE_KEY]: note };
  const done = new Set<string>();
  for (let round = 0; round < MAX_CUTS && utf8Bytes(encodeResult(copy)) > maxBytes; round += 1) {
    const candidate = largestCandidate(copy, done);
    if (!candidate) break;
    done.add(candidate.field);
    cut(copy, candidate, note, maxBytes);
  }
  return copy;
}
