// A fast path for the frontmatter most notes have: flat `key: value` lines, `[a, b]` lists and `- item`
// lists of plain or simply quoted scalars. Building a full YAML Document costs more than the rest of
// parsing a note, and startup parses every note. Anything outside this narrow subset (comments, nesting,
// escapes, anchors, multi-line values, duplicate keys…) returns undefined, and the caller uses the
// `yaml` package; plain scalars are resolved with that package's own core-schema tags so both agree.
import { Schema, isScalar, type ScalarTag } from "yaml";

const coreScalarTags: ScalarTag[] = new Schema({ schema: "core" }).tags.filter(
  (tag): tag is ScalarTag => tag.default === true && "test" in tag && tag.test instanceof RegExp,
);

// The core-schema scalars other than strings are the empty value, these words, and text starting with
// a digit, `+`, `-`, `.` or `~` (numbers, `.inf`, `.nan`, `~`). Anything else is a string and need not
// go through the tags' regexes: most values and every common key (`title`, `tags`, …) are.
const NON_STRING_WORDS = new Set(["null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE"]);

function mayResolveToNonString(value: string): boolean {
  if (value === "") return true;
  const first = value.charCodeAt(0);
  if ((first >= 0x30 && first <= 0x39) || first === 0x2b || first === 0x2d || first === 0x2e || first === 0x7e) return true;
  return NON_STRING_WORDS.has(value);
}

function resolvePlain(value: string): unknown {
  if (!mayResolveToNonString(value)) return value;
  for (const tag of coreScalarTags) {
    if (tag.test?.test(value)) {
      let failed = false;
      const resolved = tag.resolve(value, () => (failed = true), {});
      if (failed) return undefined;
      return isScalar(resolved) ? resolved.value : resolved;
    }
  }
  return value;
}

const MAX_KEY = 1024;
const SPACE = 0x20;
const CR = 0x0d;
const LF = 0x0a;
const DASH = 0x2d;
const COLON = 0x3a;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const SINGLE_QUOTE = 0x27;
const DOUBLE_QUOTE = 0x22;

// Characters that start something other than a plain scalar, or that the subset leaves to the full parser.
const RISKY_START = new Set(["-", "?", ":", ",", "[", "]", "{", "}", "#", "&", "*", "!", "|", ">", "'", '"', "%", "@", "`", " "]);

/** A key character: `[A-Za-z0-9_]`, and after the first also space and `-`. */
function isKeyCharacter(code: number, first: boolean): boolean {
  if ((code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f) return true;
  return !first && (code === SPACE || code === DASH);
}

// Tabs, comments, escapes and control characters (other than LF, and CR ending a line) are left to the
// full parser.
function hasUnsupportedCharacter(yaml: string): boolean {
  for (let k = 0; k < yaml.length; k++) {
    const code = yaml.charCodeAt(k);
    // Printable ASCII first: nearly every character is one.
    if (code >= 0x20 && code < 0x7f) {
      if (code === 0x23 || code === 0x5c) return true;
    } else if (code === CR) {
      if (k + 1 < yaml.length && yaml.charCodeAt(k + 1) !== LF) return true;
    } else if (code < 0x20) {
      if (code !== LF) return true;
    } else if (code === 0x7f || code === 0xfeff || code === 0xfffe || code === 0xffff) return true;
  }
  return false;
}

const NOT_SIMPLE = Symbol("not simple");
const WHITESPACE = /\s/;
const FLOW_INDICATOR = /[[\]{},:]/;

// The parser works on offsets into the YAML and slices only the values it keeps: it runs on every
// note's frontmatter at startup. YAML separates with spaces only (tabs are refused above); other
// Unicode spaces are content.
function skipSpaces(yaml: string, start: number, end: number): number {
  while (start < end && yaml.charCodeAt(start) === SPACE) start++;
  return start;
}

function trimEndSpaces(yaml: string, start: number, end: number): number {
  while (end > start && yaml.charCodeAt(end - 1) === SPACE) end--;
  return end;
}

/** The scalar in `yaml[start, end)`, or NOT_SIMPLE. */
function scalar(yaml: string, start: number, end: number, inFlow: boolean): unknown {
  start = skipSpaces(yaml, start, end);
  end = trimEndSpaces(yaml, start, end);
  if (start === end) return inFlow ? NOT_SIMPLE : null;
  const first = yaml.charCodeAt(start);
  if (first === DOUBLE_QUOTE || first === SINGLE_QUOTE) {
    if (end - start < 2 || yaml.charCodeAt(end - 1) !== first) return NOT_SIMPLE;
    const inner = yaml.slice(start + 1, end - 1);
    return inner.includes(first === DOUBLE_QUOTE ? '"' : "'") ? NOT_SIMPLE : inner;
  }
  if (RISKY_START.has(yaml.charAt(start))) return NOT_SIMPLE;
  let colon = false;
  for (let k = start; k < end; k++) {
    if (yaml.charCodeAt(k) !== COLON) continue;
    // `: ` inside the value or `:` ending it would make it a map.
    if (k + 1 === end || yaml.charCodeAt(k + 1) === SPACE) return NOT_SIMPLE;
    colon = true;
  }
  const value = yaml.slice(start, end);
  if (inFlow && FLOW_INDICATOR.test(value)) return NOT_SIMPLE;
  // No core-schema scalar other than a string contains a colon: a timestamp (the common case) needs no regex.
  if (colon) return value;
  const resolved = resolvePlain(value);
  return resolved === undefined ? NOT_SIMPLE : resolved;
}

/** The flow list `yaml[start, end)`, trimmed and starting with `[`, or NOT_SIMPLE. */
function flowList(yaml: string, start: number, end: number): unknown[] | typeof NOT_SIMPLE {
  if (end - start < 2 || yaml.charCodeAt(end - 1) !== CLOSE_BRACKET) return NOT_SIMPLE;
  const innerStart = start + 1;
  const innerEnd = end - 1;
  if (skipSpaces(yaml, innerStart, innerEnd) === innerEnd) return [];
  const items: unknown[] = [];
  let partStart = innerStart;
  while (true) {
    let partEnd = partStart;
    while (partEnd < innerEnd && yaml.charCodeAt(partEnd) !== COMMA) partEnd++;
    const item = scalar(yaml, partStart, partEnd, true);
    if (item === NOT_SIMPLE) return NOT_SIMPLE;
    items.push(item);
    if (partEnd === innerEnd) return items;
    partStart = partEnd + 1;
  }
}

function closeList(data: Record<string, unknown>, listKey: string | null): void {
  if (listKey !== null && (data[listKey] as unknown[]).length === 0) data[listKey] = null;
}

/** The frontmatter as plain data, or undefined when the YAML is outside the simple subset. */
export function parseSimpleYamlMap(yaml: string): Record<string, unknown> | undefined {
  if (hasUnsupportedCharacter(yaml)) return undefined;
  const data: Record<string, unknown> = {};
  let listKey: string | null = null;
  let listIndent = -1;

  for (let lineStart = 0, next = 0; lineStart <= yaml.length; lineStart = next) {
    const newline = yaml.indexOf("\n", lineStart);
    next = newline < 0 ? yaml.length + 1 : newline + 1;
    let lineEnd = newline < 0 ? yaml.length : newline;
    if (lineEnd > lineStart && yaml.charCodeAt(lineEnd - 1) === CR) lineEnd--;
    const bodyStart = skipSpaces(yaml, lineStart, lineEnd);
    const bodyEnd = trimEndSpaces(yaml, bodyStart, lineEnd);
    if (bodyStart === bodyEnd) continue;
    if (yaml.startsWith("---", lineStart) || yaml.startsWith("...", lineStart)) return undefined;
    const indent = bodyStart - lineStart;
    const first = yaml.charCodeAt(bodyStart);
    // Below U+0080 the only whitespace besides the space is control characters, refused above.
    if (first >= 0x80 && WHITESPACE.test(yaml.charAt(bodyStart))) return undefined;
    if (listKey !== null && first === DASH && (bodyEnd - bodyStart === 1 || yaml.charCodeAt(bodyStart + 1) === SPACE)) {
      if (listIndent < 0) listIndent = indent;
      if (indent !== listIndent) return undefined;
      const item = scalar(yaml, bodyStart + 1, bodyEnd, false);
      if (item === NOT_SIMPLE) return undefined;
      (data[listKey] as unknown[]).push(item);
      continue;
    }
    closeList(data, listKey);
    listKey = null;
    if (indent !== 0) return undefined;

    let colon = lineStart;
    while (colon < lineEnd && isKeyCharacter(yaml.charCodeAt(colon), colon === lineStart)) colon++;
    if (colon === lineStart || colon >= lineEnd || yaml.charCodeAt(colon) !== COLON) return undefined;
    if (colon - lineStart > MAX_KEY || yaml.charCodeAt(colon - 1) === SPACE) return undefined;
    const key = yaml.slice(lineStart, colon);
    if (key === "__proto__" || Object.hasOwn(data, key)) return undefined;
    if (typeof resolvePlain(key) !== "string") return undefined;
    if (colon + 1 < lineEnd && yaml.charCodeAt(colon + 1) !== SPACE) return undefined;

    const valueStart = skipSpaces(yaml, colon + 1, lineEnd);
    const valueEnd = trimEndSpaces(yaml, valueStart, lineEnd);
    if (valueStart === valueEnd) {
      data[key] = [];
      listKey = key;
      listIndent = -1;
      continue;
    }
    if (yaml.charCodeAt(valueStart) === OPEN_BRACKET) {
      const list = flowList(yaml, valueStart, valueEnd);
      if (list === NOT_SIMPLE) return undefined;
      data[key] = list;
      continue;
    }
    const value = scalar(yaml, valueStart, valueEnd, false);
    if (value === NOT_SIMPLE) return undefined;
    data[key] = value;
  }
  closeList(data, listKey);
  return data;
}
