// JSON and HAR: the value at a JSON pointer (RFC 6901). A value that fits the window comes whole; a
// larger object or array comes as a window of its children, small children inline and large ones
// summarised (type, size, keys, and the pointer that reads them), with a cursor to the next children.
import { ToolError } from "../errors";
import { utf8Length } from "../notes/window";
import { largestFitting, lineColumn, type FormatReader, type FormatRequest, type FormatResult } from "./registry";

const decoder = new TextDecoder("utf-8");
const MAX_SHOWN_KEYS = 12;
const PREVIEW_CHARS = 160;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function kind(value: Json): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** RFC 6901 reference tokens; a URI fragment (`#/a%20b`) is accepted too. */
export function parsePointer(pointer: string): string[] {
  let text = pointer;
  if (text.startsWith("#")) {
    try {
      text = decodeURIComponent(text.slice(1));
    } catch {
      throw badPointer(pointer, "its percent-escapes do not decode");
    }
  }
  if (text === "") return [];
  if (!text.startsWith("/")) throw badPointer(pointer, "it must be empty or start with `/`");
  return text
    .slice(1)
    .split("/")
    .map((token) => {
      if (/~(?![01])/.test(token)) throw badPointer(pointer, "`~` must be followed by 0 (for `~`) or 1 (for `/`)");
      return token.replace(/~1/g, "/").replace(/~0/g, "~");
    });
}

export function pointerOf(tokens: readonly string[]): string {
  return tokens.map((token) => `/${token.replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

function badPointer(pointer: string, why: string): ToolError {
  return new ToolError(
    "invalid_argument",
    `pointer ${JSON.stringify(pointer.length > 200 ? `${pointer.slice(0, 200)}…` : pointer)} is not a JSON pointer: ${why}. Examples: "" (the whole document), "/items/0", "/a~1b" for the key "a/b".`,
    { details: { argument: "pointer" } },
  );
}

function missing(path: string, tokens: readonly string[], depth: number, parent: Json): ToolError {
  const found = pointerOf(tokens.slice(0, depth));
  const here = parent !== null && typeof parent === "object" && !Array.isArray(parent) ? Object.keys(parent) : [];
  const what = Array.isArray(parent)
    ? `an array of ${parent.length} (indexes 0 to ${parent.length - 1})`
    : here.length > 0
      ? `an object with the keys ${here.slice(0, MAX_SHOWN_KEYS).map((key) => JSON.stringify(key)).join(", ")}${here.length > MAX_SHOWN_KEYS ? ", …" : ""}`
      : `a ${kind(parent)}`;
  return new ToolError(
    "not_found",
    `"${path}" has nothing at ${pointerOf(tokens.slice(0, depth + 1))}: ${found === "" ? "the document" : found} is ${what}. Read ${found === "" ? 'pointer ""' : found} to see what is there.`,
    { details: { path, pointer: found } },
  );
}

export function resolvePointer(path: string, root: Json, tokens: readonly string[]): Json {
  let value = root;
  for (let depth = 0; depth < tokens.length; depth++) {
    const token = tokens[depth]!;
    if (Array.isArray(value)) {
      if (!/^(0|[1-9]\d*)$/.test(token) || Number(token) >= value.length) throw missing(path, tokens, depth, value);
      value = value[Number(token)]!;
    } else if (value !== null && typeof value === "object" && Object.prototype.hasOwnProperty.call(value, token)) {
      value = value[token]!;
    } else throw missing(path, tokens, depth, value);
  }
  return value;
}

export function parseJson(path: string, text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    // The engine's message names no position for some faults and quotes the document for others, so
    // the first fault is found by a scan of our own.
    const fault = jsonFault(text) ?? { offset: text.length, reason: "the document is not valid JSON" };
    const { line, column } = lineColumn(text, fault.offset);
    throw new ToolError(
      "invalid_argument",
      `"${path}" is not valid JSON: ${fault.reason} at line ${line}, column ${column}. Read it as text with raw: true (byte_offset near that line) to see the spot, or fix the file.`,
      { details: { path, line, column } },
    );
  }
}

interface Fault {
  offset: number;
  reason: string;
}

class JsonFault extends Error {
  constructor(readonly fault: Fault) {
    super(fault.reason);
  }
}

/** Where a JSON text first breaks the grammar (RFC 8259), and how; null when it does not. */
export function jsonFault(text: string): Fault | null {
  let i = 0;
  const fail = (reason: string, at = i): never => {
    throw new JsonFault({ offset: at, reason });
  };
  const shown = (): string => (i >= text.length ? "the end of the document" : `\`${text[i]}\``);
  const space = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else fail(`expected a value, found ${shown()}`);
  };
  const string = () => {
    i++;
    for (;;) {
      if (i >= text.length) fail("a string is not closed");
      const code = text.charCodeAt(i);
      if (code === 34) {
        i++;
        return;
      }
      if (code < 0x20) fail("a control character (such as a line break) inside a string must be escaped");
      if (code === 92) {
        const next = text[i + 1];
        if (next === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail("`\\u` must be followed by four hex digits");
          i += 6;
        } else if (next !== undefined && '"\\/bfnrt'.includes(next)) i += 2;
        else fail("an unknown escape in a string");
      } else i++;
    }
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!match) fail(`expected a value, found ${shown()}`);
    i += match![0].length;
  };
  const value = (depth: number): void => {
    if (depth > 2000) fail("the document nests too deep");
    space();
    const char = text[i];
    if (char === "{") {
      i++;
      space();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        space();
        if (text[i] !== '"') fail(text[i] === "}" ? "a comma before `}` (trailing commas are not allowed)" : `expected a double-quoted property name, found ${shown()}`);
        string();
        space();
        if (text[i] !== ":") fail(`expected \`:\` after a property name, found ${shown()}`);
        i++;
        value(depth + 1);
        space();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return;
        }
        fail(`expected \`,\` or \`}\` after a property value, found ${shown()}`);
      }
    }
    if (char === "[") {
      i++;
      space();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (;;) {
        space();
        if (text[i] === "]") fail("a comma before `]` (trailing commas are not allowed)");
        value(depth + 1);
        space();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return;
        }
        fail(`expected \`,\` or \`]\` after an array element, found ${shown()}`);
      }
    }
    if (char === '"') return string();
    if (char === "t") return literal("true");
    if (char === "f") return literal("false");
    if (char === "n") return literal("null");
    number();
  };
  try {
    value(0);
    space();
    if (i < text.length) fail(`unexpected ${shown()} after the end of the document`);
    return null;
  } catch (caught) {
    if (caught instanceof JsonFault) return caught.fault;
    throw caught;
  }
}

/** What a large child is, without its content: enough to decide whether to read it. */
function summary(value: Json, bytes: number): Record<string, unknown> {
  const out: Record<string, unknown> = { type: kind(value), bytes };
  if (Array.isArray(value)) out.items = value.length;
  else if (typeof value === "string") {
    out.chars = value.length;
    out.preview = `${value.slice(0, PREVIEW_CHARS)}…`;
  } else if (value !== null && typeof value === "object") {
    const keys = Object.keys(value);
    out.keys = keys.length;
    out.first_keys = keys.slice(0, MAX_SHOWN_KEYS);
    const label = harLabel(value);
    if (label !== undefined) out.label = label;
  }
  return out;
}

/** A HAR entry as a line of a network panel: method, URL, status. */
function harLabel(value: { [key: string]: Json }): string | undefined {
  const request = value.request;
  const response = value.response;
  if (request === null || typeof request !== "object" || Array.isArray(request)) return undefined;
  const method = request.method;
  const url = request.url;
  if (typeof method !== "string" || typeof url !== "string") return undefined;
  const status = response !== null && typeof response === "object" && !Array.isArray(response) ? response.status : undefined;
  const shown = url.length > 200 ? `${url.slice(0, 200)}…` : url;
  return `${method} ${shown}${typeof status === "number" ? ` → ${status}` : ""}`;
}

function harOverview(root: Json): Record<string, unknown> | undefined {
  if (root === null || typeof root !== "object" || Array.isArray(root)) return undefined;
  const log = root.log;
  if (log === null || typeof log !== "object" || Array.isArray(log)) return undefined;
  const entries = Array.isArray(log.entries) ? log.entries.length : 0;
  const pages = Array.isArray(log.pages) ? log.pages.length : 0;
  const creator = log.creator !== null && typeof log.creator === "object" && !Array.isArray(log.creator) ? log.creator : undefined;
  return {
    version: typeof log.version === "string" ? log.version : null,
    creator: creator ? [creator.name, creator.version].filter((part) => typeof part === "string").join(" ") : null,
    pages,
    entries,
    hint: "Requests are at /log/entries (summarised one per line there); read /log/entries/<n> for one request and its response.",
  };
}

/** JSON.parse holds the event loop for the whole document; larger files are read as text windows. */
export const MAX_JSON_BYTES = 16 * 1024 * 1024;

function readJson(request: FormatRequest, format: "json" | "har"): FormatResult {
  const { args } = request;
  if (request.bytes.length > MAX_JSON_BYTES) {
    throw new ToolError(
      "too_large",
      `"${request.path}" is ${request.bytes.length} bytes; JSON over ${MAX_JSON_BYTES} bytes is not parsed. Read it as text with raw: true, or find lines in it with vault_grep.`,
      { details: { path: request.path, bytes: request.bytes.length, limit: MAX_JSON_BYTES } },
    );
  }
  const text = decoder.decode(request.bytes);
  const root = parseJson(request.path, text);
  const tokens = parsePointer(args.pointer);
  const value = resolvePointer(request.path, root, tokens);
  const pointer = pointerOf(tokens);
  const head: Record<string, unknown> = { format, pointer, type: kind(value) };
  if (format === "har" && tokens.length === 0) {
    const overview = harOverview(root);
    if (overview) head.har = overview;
  }
  const isContainer = value !== null && typeof value === "object";
  // Whole, when small enough: the common case of a config file or one record.
  const wholeBytes = tokens.length === 0 && request.bytes.length > args.max_bytes * 4 ? Infinity : utf8Length(JSON.stringify(value));
  if (!isContainer || (wholeBytes <= args.max_bytes && args.offset === 0)) {
    if (typeof value === "string" && wholeBytes > args.max_bytes) {
      const body = { ...head, chars: value.length, value: value.slice(0, Math.floor(args.max_bytes / 2)), value_truncated: "This string is longer than max_bytes; only its start is shown. Read the file with raw: true for all of it." };
      return { body };
    }
    const body = { ...head, value };
    if (request.fits(body) || !isContainer) return { body };
  }
  const entries: Array<[string, Json]> = Array.isArray(value) ? value.map((item, index) => [String(index), item]) : Object.entries(value);
  const inline = Math.max(256, Math.floor(args.max_bytes / 16));
  const children: Array<Record<string, unknown>> = [];
  let used = 0;
  const end = Math.min(entries.length, args.offset + args.limit);
  for (let index = args.offset; index < end; index++) {
    const [key, child] = entries[index]!;
    const encoded = JSON.stringify(child);
    const bytes = utf8Length(encoded);
    const entry: Record<string, unknown> = { key, pointer: pointerOf([...tokens, key]) };
    if (bytes <= inline) entry.value = child;
    else Object.assign(entry, summary(child, bytes));
    const size = utf8Length(JSON.stringify(entry));
    if (children.length > 0 && used + size > args.max_bytes) break;
    children.push(entry);
    used += size;
  }
  const build = (count: number): FormatResult => {
    const next = args.offset + count;
    const body: Record<string, unknown> = {
      ...head,
      size: entries.length,
      offset: args.offset,
      returned: count,
      ...(count < children.length ? { window_shortened: `${children.length} children do not fit the response limit, so ${count} are returned; continue with the cursor.` } : {}),
      children: children.slice(0, count),
    };
    return next < entries.length ? { body, next: { offset: next, pointer } } : { body };
  };
  const full = build(children.length);
  if (request.fits(full.body)) return full;
  return largestFitting(request, children.length, (middle) => build(middle), () => build(Math.min(1, children.length)));
}

export const jsonReader: FormatReader = {
  format: "json",
  extensions: ["json", "geojson", "webmanifest"],
  read: (request) => readJson(request, "json"),
};

export const harReader: FormatReader = {
  format: "har",
  extensions: ["har"],
  read: (request) => readJson(request, "har"),
};
