// A fast path for the frontmatter most notes have: flat `key: value` lines, `[a, b]` lists and `- item`
// lists of plain or simply quoted scalars. Building a full YAML Document costs more than the rest of
// parsing a note, and startup parses every note. Anything outside this narrow subset (comments, nesting,
// escapes, anchors, multi-line values, duplicate keys…) returns undefined, and the caller uses the
// `yaml` package; plain scalars are resolved with that package's own core-schema tags so both agree.
import { Schema, isScalar, type ScalarTag } from "yaml";

const coreScalarTags: ScalarTag[] = new Schema({ schema: "core" }).tags.filter(
  (tag): tag is ScalarTag => tag.default === true && "test" in tag && tag.test instanceof RegExp,
);

function resolvePlain(value: string): unknown {
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
const KEY = /^[A-Za-z0-9_][A-Za-z0-9_ -]*$/;
// Characters that start something other than a plain scalar, or that the subset leaves to the full parser.
const RISKY_START = new Set(["-", "?", ":", ",", "[", "]", "{", "}", "#", "&", "*", "!", "|", ">", "'", '"', "%", "@", "`", " "]);

// Tabs, comments, escapes and control characters (other than CR and LF) are left to the full parser.
function hasUnsupportedCharacter(yaml: string): boolean {
  for (let k = 0; k < yaml.length; k++) {
    const code = yaml.charCodeAt(k);
    if (code === 0x09 || code === 0x23 || code === 0x5c || code === 0x7f || code === 0xfeff || code === 0xfffe || code === 0xffff) return true;
    if (code < 0x20 && code !== 0x0a && code !== 0x0d) return true;
  }
  return false;
}

const NOT_SIMPLE = Symbol("not simple");

// YAML separates with spaces only (tabs are refused above); other Unicode spaces are content.
function trimSpaces(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) === 0x20) start++;
  while (end > start && text.charCodeAt(end - 1) === 0x20) end--;
  return text.slice(start, end);
}

/** The scalar's value, or NOT_SIMPLE. */
function scalar(raw: string, inFlow: boolean): unknown {
  const value = trimSpaces(raw);
  if (value === "") return inFlow ? NOT_SIMPLE : null;
  const first = value[0] ?? "";
  if (first === '"' || first === "'") {
    if (value.length < 2 || !value.endsWith(first)) return NOT_SIMPLE;
    const inner = value.slice(1, -1);
    return inner.includes(first) ? NOT_SIMPLE : inner;
  }
  if (RISKY_START.has(first) || value.includes(": ") || value.endsWith(":")) return NOT_SIMPLE;
  if (inFlow && /[[\]{},:]/.test(value)) return NOT_SIMPLE;
  const resolved = resolvePlain(value);
  return resolved === undefined ? NOT_SIMPLE : resolved;
}

function flowList(raw: string): unknown[] | typeof NOT_SIMPLE {
  const value = trimSpaces(raw);
  if (!value.endsWith("]")) return NOT_SIMPLE;
  const inner = value.slice(1, -1);
  if (trimSpaces(inner) === "") return [];
  const items: unknown[] = [];
  for (const part of inner.split(",")) {
    const item = scalar(part, true);
    if (item === NOT_SIMPLE) return NOT_SIMPLE;
    items.push(item);
  }
  return items;
}

/** The frontmatter as plain data, or undefined when the YAML is outside the simple subset. */
export function parseSimpleYamlMap(yaml: string): Record<string, unknown> | undefined {
  if (hasUnsupportedCharacter(yaml)) return undefined;
  const data: Record<string, unknown> = {};
  const lines = yaml.split("\n");
  let listKey: string | null = null;
  let listIndent = -1;

  for (let index = 0; index < lines.length; index++) {
    let line = lines[index] ?? "";
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (line.includes("\r")) return undefined;
    const body = trimSpaces(line);
    if (body === "") continue;
    if (line.startsWith("---") || line.startsWith("...")) return undefined;
    const indent = line.indexOf(body);
    if (/^\s/.test(body)) return undefined;
    if (listKey !== null && (body === "-" || body.startsWith("- "))) {
      if (listIndent < 0) listIndent = indent;
      if (indent !== listIndent) return undefined;
      const item = scalar(body.slice(1), false);
      if (item === NOT_SIMPLE) return undefined;
      (data[listKey] as unknown[]).push(item);
      continue;
    }
    if (listKey !== null && (data[listKey] as unknown[]).length === 0) data[listKey] = null;
    listKey = null;
    if (indent !== 0) return undefined;

    const colon = line.indexOf(":");
    if (colon <= 0) return undefined;
    const key = line.slice(0, colon);
    const rest = line.slice(colon + 1);
    if (key.length > MAX_KEY || !KEY.test(key) || key.endsWith(" ") || key === "__proto__" || Object.hasOwn(data, key)) return undefined;
    if (typeof resolvePlain(key) !== "string") return undefined;
    if (rest !== "" && !rest.startsWith(" ")) return undefined;

    const valueText = trimSpaces(rest);
    if (valueText === "") {
      data[key] = [];
      listKey = key;
      listIndent = -1;
      continue;
    }
    if (valueText.startsWith("[")) {
      const list = flowList(valueText);
      if (list === NOT_SIMPLE) return undefined;
      data[key] = list;
      continue;
    }
    const value = scalar(valueText, false);
    if (value === NOT_SIMPLE) return undefined;
    data[key] = value;
  }
  if (listKey !== null && (data[listKey] as unknown[]).length === 0) data[listKey] = null;
  return data;
}
