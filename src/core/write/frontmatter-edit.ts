// Frontmatter edits that touch only the keys they change (SPEC §5): the YAML is parsed to find each
// key's byte range, and just that range is rewritten. Untouched keys, their order, comments and
// quoting stay byte-identical, which re-serialising the whole block would not guarantee.
import { isMap, isScalar, isSeq, stringify, type Node, type Pair } from "yaml";
import { ToolError } from "../errors";
import { FRONTMATTER_LIMIT_BYTES, FRONTMATTER_LIMIT_TEXT, parseFrontmatter, type FrontmatterParses } from "../notes/frontmatter";

export type FrontmatterChange = { key: string; value: unknown } | { key: string; remove: true };

export interface Splice {
  start: number;
  end: number;
  text: string;
}

function scalarText(value: unknown): string {
  if (value === null || value === undefined) return "";
  return stringify(value, { lineWidth: 0 }).replace(/\n$/, "");
}

/** `[a, b]` as Obsidian users write it, not the library's `[ a, b ]`. */
function flowText(value: unknown): string {
  const text = stringify(value, { collectionStyle: "flow", lineWidth: 0 }).replace(/\n$/, "");
  return text.replace(/^\[ (.*) \]$/s, "[$1]").replace(/^\{ (.*) \}$/s, "{$1}");
}

function isCollection(value: unknown): boolean {
  return Array.isArray(value) || (typeof value === "object" && value !== null);
}

function keyText(key: string): string {
  return /^[A-Za-z0-9_][A-Za-z0-9_ .-]*$/.test(key) && !/ $/.test(key) ? key : scalarText(key);
}

function lineStartOf(text: string, offset: number): number {
  return text.lastIndexOf("\n", offset - 1) + 1;
}

function lineEndAfter(text: string, offset: number): number {
  if (offset > 0 && text[offset - 1] === "\n") return offset;
  const newline = text.indexOf("\n", offset);
  return newline < 0 ? text.length : newline + 1;
}

/** A block list keeps its block layout and indentation; anything else is written inline. */
function replacementFor(yaml: string, node: Node, value: unknown, eol: string): { start: number; end: number; text: string } {
  const [start, valueEnd] = node.range ?? [0, 0, 0];
  if (isSeq(node) && !node.flow && Array.isArray(value) && value.length > 0 && value.every((item) => !isCollection(item))) {
    const indent = " ".repeat(start - lineStartOf(yaml, start));
    const lines = value.map((item, index) => `${index === 0 ? "" : indent}- ${scalarText(item)}`);
    const endsWithNewline = yaml.slice(start, valueEnd).endsWith("\n");
    return { start, end: valueEnd, text: lines.join(eol) + (endsWithNewline ? eol : "") };
  }
  const replaced = yaml.slice(start, valueEnd);
  const trailing = /(\r?\n)$/.exec(replaced)?.[1] ?? "";
  const multiline = isCollection(value) ? flowText(value) : scalarText(value);
  if (replaced.includes("\n") && !isScalar(node)) {
    // A block collection becomes an inline value: it moves up onto the key's line.
    const colon = yaml.lastIndexOf(":", start);
    return { start: colon + 1, end: valueEnd, text: ` ${multiline}${trailing}` };
  }
  return { start, end: valueEnd, text: multiline + trailing };
}

/** Each key's first pair, so that a change finds its key without a scan of the whole map. */
function pairsByKey(items: readonly Pair[]): Map<string, Pair> {
  const pairs = new Map<string, Pair>();
  for (const pair of items) {
    if (!isScalar(pair.key)) continue;
    const key = String(pair.key.value);
    if (!pairs.has(key)) pairs.set(key, pair);
  }
  return pairs;
}

/** The text with the splices (which do not overlap) applied, built in one pass. */
export function applySplices(text: string, splices: readonly Splice[]): string {
  if (splices.length === 0) return text;
  const ordered = [...splices].sort((a, b) => a.start - b.start);
  const pieces: string[] = [];
  let at = 0;
  for (const splice of ordered) {
    const start = Math.max(splice.start, at);
    pieces.push(text.slice(at, start), splice.text);
    at = Math.max(at, splice.end);
  }
  pieces.push(text.slice(at));
  return pieces.join("");
}

/**
 * The refusal of a change to frontmatter over FRONTMATTER_LIMIT_BYTES, which is never parsed. `would`:
 * the frontmatter the write would leave, rather than the note's own.
 */
export function oversizeFrontmatterError(bytes: number, options: { path?: string; would?: boolean } = {}): ToolError {
  const note = options.path === undefined ? "the note" : `"${options.path}"`;
  const limit = `the limit of ${FRONTMATTER_LIMIT_BYTES} bytes (${FRONTMATTER_LIMIT_TEXT})`;
  const details = { ...(options.path === undefined ? {} : { path: options.path }), bytes, limit: FRONTMATTER_LIMIT_BYTES };
  if (options.would) {
    return new ToolError(
      "too_large",
      `The frontmatter of ${note} would be ${bytes} bytes, over ${limit}; nothing was written. Keep the frontmatter to short properties and put long text in the body, below the closing --- line. A note whose frontmatter is already over the limit can still be read, and its body changed with note_edit or note_section_edit as long as the frontmatter stays exactly as it is.`,
      { details },
    );
  }
  return new ToolError(
    "too_large",
    `The frontmatter of ${note} is ${bytes} bytes, over ${limit}, so it is not parsed: its properties cannot be changed, and its tags, aliases and properties are not indexed. The note can still be read with note_read and is found by its body. Change the body with note_edit or note_section_edit (leaving the frontmatter exactly as it is), or replace the frontmatter with a smaller one using note_write.`,
    { details },
  );
}

/**
 * Applies the changes to the note's frontmatter. A note without frontmatter gets a block only when
 * `createIfMissing` is set and a key is being set; invalid YAML is refused rather than guessed at.
 */
export function editFrontmatter(
  text: string,
  requested: readonly FrontmatterChange[],
  options: { createIfMissing: boolean; parses?: FrontmatterParses | undefined },
): string {
  // A key named twice is changed once, as the last naming says: two splices of one key would overlap.
  const changes = [...new Map(requested.map((change) => [change.key, change])).values()];
  const { split, document, oversize } = parseFrontmatter(text, options.parses);
  const eol = split.eol;
  if (!split.exists) {
    const sets = changes.filter((change): change is { key: string; value: unknown } => !("remove" in change));
    if (!options.createIfMissing || sets.length === 0) return text;
    const lines = sets.map((change) => `${keyText(change.key)}: ${isCollection(change.value) ? flowText(change.value) : scalarText(change.value)}`);
    const bom = split.bom ? "\uFEFF" : "";
    return `${bom}---${eol}${lines.join(eol)}${eol}---${eol}${text.slice(split.bom ? 1 : 0)}`;
  }
  if (oversize !== null) throw oversizeFrontmatterError(oversize);
  let yaml = text.slice(split.yamlStart, split.yamlEnd);
  if (document === null || document.errors.length > 0 || (document.contents !== null && !isMap(document.contents))) {
    throw new ToolError(
      "invalid_argument",
      "The note's frontmatter is not a valid YAML map, so its keys cannot be edited safely. Read the note, fix the frontmatter with note_write (or note_edit), then try again.",
    );
  }
  const pairs = pairsByKey(isMap(document.contents) ? document.contents.items : []);
  const splices: Splice[] = [];
  const appended: string[] = [];
  for (const change of changes) {
    const pair = pairs.get(change.key);
    if ("remove" in change) {
      if (!pair || !isScalar(pair.key) || !pair.key.range) continue;
      const start = lineStartOf(yaml, pair.key.range[0]);
      const valueNode = pair.value as Node | null;
      const end = lineEndAfter(yaml, valueNode?.range?.[2] ?? pair.key.range[2]);
      splices.push({ start, end, text: "" });
      continue;
    }
    if (!pair) {
      appended.push(`${keyText(change.key)}: ${isCollection(change.value) ? flowText(change.value) : scalarText(change.value)}`);
      continue;
    }
    const valueNode = pair.value as Node | null;
    if (!valueNode || !valueNode.range || (isScalar(valueNode) && valueNode.value === null && valueNode.range[0] === valueNode.range[1])) {
      const keyEnd = isScalar(pair.key) && pair.key.range ? pair.key.range[1] : 0;
      const colon = yaml.indexOf(":", keyEnd);
      const lineEnd = yaml.indexOf("\n", colon);
      const end = lineEnd < 0 ? yaml.length : yaml[lineEnd - 1] === "\r" ? lineEnd - 1 : lineEnd;
      splices.push({ start: colon + 1, end, text: ` ${isCollection(change.value) ? flowText(change.value) : scalarText(change.value)}` });
      continue;
    }
    splices.push(replacementFor(yaml, valueNode, change.value, eol));
  }
  yaml = applySplices(yaml, splices);
  if (appended.length > 0) {
    if (yaml.length > 0 && !yaml.endsWith("\n")) yaml += eol;
    yaml += appended.join(eol) + eol;
  }
  return text.slice(0, split.yamlStart) + yaml + text.slice(split.yamlEnd);
}
