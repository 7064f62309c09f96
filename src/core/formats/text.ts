// Logs and other text attachments: byte windows that start and end at line starts, so a log line is
// never split between two reads unless it alone is longer than the window (then it is cut at a UTF-8
// character boundary and the next window carries on inside it).
import { ToolError } from "../errors";
import { readWindow } from "../notes/window";
import { largestFitting, type FormatReader, type FormatRequest, type FormatResult } from "./registry";

const NEWLINE = 0x0a;
/** How far back a byte_offset is moved to reach its line's start; a longer line is entered mid-way. */
const MAX_ALIGN_BACK = 64 * 1024;
/** Bytes checked for NUL to tell a binary file from text. */
const SNIFF_BYTES = 8192;

export const TEXT_EXTENSIONS: readonly string[] = [
  "txt", "log", "text", "out", "err", "md", "markdown", "xml", "html", "htm", "css", "js", "mjs", "ts", "py", "sh",
  "yaml", "yml", "toml", "ini", "cfg", "conf", "env", "sql", "srt", "vtt", "ndjson", "jsonl", "svg",
];

/** A NUL in the first bytes: no text file has one, almost every binary format does. */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, SNIFF_BYTES);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/** The start of the line holding `offset`, or the nearest character start when that line is very long. */
export function lineStart(bytes: Uint8Array, offset: number): number {
  const floor = Math.max(0, offset - MAX_ALIGN_BACK);
  for (let i = offset; i > floor; i--) if (bytes[i - 1] === NEWLINE) return i;
  if (floor === 0) return 0;
  let start = offset;
  while (start > 0 && isContinuation(bytes[start])) start--;
  return start;
}

function lineNumber(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (bytes[i] === NEWLINE) line++;
  return line;
}

export interface LineWindow {
  text: string;
  byte_offset: number;
  byte_count: number;
  total_bytes: number;
  next_byte_offset?: number;
  /** The window ends inside a line longer than the window. */
  line_cut: boolean;
}

/** At most `maxBytes` from `start` (a line start), ending after the last whole line that fits. */
export function lineWindow(bytes: Uint8Array, start: number, maxBytes: number): LineWindow {
  const total = bytes.length;
  let end = Math.min(total, start + maxBytes);
  let cut = false;
  if (end < total) {
    let lastBreak = -1;
    for (let i = end - 1; i >= start; i--) {
      if (bytes[i] === NEWLINE) {
        lastBreak = i;
        break;
      }
    }
    if (lastBreak >= 0) end = lastBreak + 1;
    else {
      const window = readWindow(bytes, start, maxBytes);
      end = start + window.byte_count;
      cut = true;
    }
  }
  const window = readWindow(bytes, start, end - start || 1);
  const result: LineWindow = {
    text: end === start ? "" : window.text,
    byte_offset: start,
    byte_count: end - start,
    total_bytes: total,
    line_cut: cut,
  };
  if (end < total) result.next_byte_offset = end;
  return result;
}

/** The window as a result body; the same shape for every text-like read (raw mode included). */
export function textWindowResult(request: FormatRequest, format: string): FormatResult {
  const { bytes, args } = request;
  if (args.byte_offset > bytes.length) {
    throw new ToolError(
      "invalid_argument",
      `byte_offset ${args.byte_offset} is past the end of "${request.path}" (${bytes.length} bytes); start at 0 or pass the cursor from the previous read.`,
      { details: { argument: "byte_offset" } },
    );
  }
  // A cursor may point inside a line longer than a window: that is where the previous window stopped.
  const start = args.continued ? args.byte_offset : lineStart(bytes, args.byte_offset);
  const firstLine = lineNumber(bytes, start);
  const build = (window: LineWindow, shortened: boolean): FormatResult => {
    const body: Record<string, unknown> = {
      format,
      byte_offset: window.byte_offset,
      byte_count: window.byte_count,
      total_bytes: window.total_bytes,
      first_line: firstLine,
    };
    if (start !== args.byte_offset) body.aligned = `byte_offset ${args.byte_offset} was inside a line; the window starts at that line's start.`;
    if (shortened) body.window_shortened = `max_bytes ${args.max_bytes} does not fit the response limit, so this window ends early; continue with the cursor.`;
    if (window.line_cut) body.line_cut = "The window ends inside a line longer than max_bytes; the next window continues that line.";
    body.content = window.text;
    return window.next_byte_offset !== undefined ? { body, next: { byte_offset: window.next_byte_offset } } : { body };
  };
  const full = build(lineWindow(bytes, start, args.max_bytes), false);
  if (request.fits(full.body)) return full;
  // The longest window under max_bytes whose answer fits.
  return largestFitting(
    request,
    Math.min(args.max_bytes, bytes.length - start),
    (middle) => build(lineWindow(bytes, start, Math.max(4, middle)), true),
    () => build(lineWindow(bytes, start, 4), true),
  );
}

export const textReader: FormatReader = {
  format: "text",
  extensions: TEXT_EXTENSIONS,
  read: (request) => textWindowResult(request, "text"),
};
