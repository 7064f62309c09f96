// Frontmatter as Obsidian sees it (SPEC §5): `---` on the first line, closed by the next line that is
// exactly `---`. Anything else (`...`, an unterminated block, a later rule) means no frontmatter: the
// write path must never guess where YAML ends. The YAML is kept as a Document so edits preserve comments
// and key order.
import { isAlias, isMap, isPair, isScalar, isSeq, parseDocument, YAMLParseError, type Document, type ErrorCode, type YAMLError } from "yaml";
import { parseSimpleYamlMap } from "./simple-yaml";

/**
 * Frontmatter over this many bytes of YAML is never parsed: not when a note is indexed (it keeps no
 * properties, its body is indexed as usual) and not by a write (edits that would change it are refused).
 * Parsing YAML costs far more per byte than anything else done to a note, and runs on the thread that
 * answers every request.
 */
export const FRONTMATTER_LIMIT_BYTES = 64 * 1024;
/** The limit as people read it, for messages and descriptions. */
export const FRONTMATTER_LIMIT_TEXT = `${FRONTMATTER_LIMIT_BYTES / 1024} KiB`;
/**
 * Aliases (`*name`) beyond this many make the YAML unreadable: the yaml package looks each one up by a
 * scan of the document's anchors, so their cost grows with the square of their number.
 */
export const MAX_FRONTMATTER_ALIASES = 100;
/**
 * What aliases may expand the properties to: no more values, and no deeper nesting, than frontmatter of
 * the size limit can hold without them (a value takes at least a byte; the yaml package gives up
 * nesting long before this depth).
 */
const MAX_PROPERTY_VALUES = FRONTMATTER_LIMIT_BYTES;
const MAX_PROPERTY_DEPTH = 1000;

export interface FrontmatterSplit {
  exists: boolean;
  /** The text starts with U+FEFF; every offset below already counts it. */
  bom: boolean;
  /** The line ending of the first line, used when new lines are written. */
  eol: "\n" | "\r\n";
  /** Offset of the first YAML character (after the opening fence line). */
  yamlStart: number;
  /** Offset of the closing fence line; `text.slice(yamlStart, yamlEnd)` is the YAML. */
  yamlEnd: number;
  /** Offset just after the closing fence line and its line ending: where the body begins. */
  contentStart: number;
}

export interface ParsedFrontmatter {
  split: FrontmatterSplit;
  document: Document | null;
  data: Record<string, unknown> | null;
  error: string | null;
  /** The YAML's size in UTF-8 bytes when it is over FRONTMATTER_LIMIT_BYTES, so it was not parsed; else null. */
  oversize: number | null;
  /**
   * The YAML is valid but uses more aliases than properties are read with (a guard against alias
   * bombs); writes that leave the aliases as they were need not be refused for it.
   */
  tooManyAliases?: boolean;
}

type ParsedYaml = Omit<ParsedFrontmatter, "split" | "oversize">;

let yamlParses = 0;

/** How many YAML documents have been parsed so far: a seam for tests that count parses per operation. */
export function frontmatterParseCount(): number {
  return yamlParses;
}

/**
 * The parses of one operation (a write, a rename), by YAML text: a write reads the same frontmatter in
 * its transform, its guards, its touch of created/updated and its link check, and each is parsed once.
 * The parsed Documents are shared, so callers only read them.
 */
export class FrontmatterParses {
  private readonly parsed = new Map<string, ParsedYaml>();

  yaml(yaml: string): ParsedYaml {
    let found = this.parsed.get(yaml);
    if (found === undefined) {
      found = parseYaml(yaml);
      this.parsed.set(yaml, found);
    }
    return found;
  }

  /** The data of a YAML text parsed earlier in this operation, or undefined. */
  known(yaml: string): Record<string, unknown> | null | undefined {
    return this.parsed.get(yaml)?.data;
  }
}

const BOM = "\uFEFF";
const FENCE = "---";

function absent(bom: boolean, eol: "\n" | "\r\n", base: number): FrontmatterSplit {
  return { exists: false, bom, eol, yamlStart: base, yamlEnd: base, contentStart: base };
}

export function splitFrontmatter(text: string): FrontmatterSplit {
  const bom = text.startsWith(BOM);
  const base = bom ? 1 : 0;
  const firstNewline = text.indexOf("\n", base);
  const eol: "\n" | "\r\n" = firstNewline > 0 && text.charCodeAt(firstNewline - 1) === 13 ? "\r\n" : "\n";

  if (!text.startsWith(FENCE, base)) return absent(bom, eol, base);
  let yamlStart: number;
  if (text.startsWith("\n", base + 3)) yamlStart = base + 4;
  else if (text.startsWith("\r\n", base + 3)) yamlStart = base + 5;
  else return absent(bom, eol, base);

  let lineStart = yamlStart;
  while (lineStart <= text.length) {
    const newline = text.indexOf("\n", lineStart);
    const lineEnd = newline < 0 ? text.length : newline;
    const contentEnd = lineEnd > lineStart && text.charCodeAt(lineEnd - 1) === 13 ? lineEnd - 1 : lineEnd;
    if (contentEnd - lineStart === 3 && text.startsWith(FENCE, lineStart)) {
      return { exists: true, bom, eol, yamlStart, yamlEnd: lineStart, contentStart: newline < 0 ? text.length : newline + 1 };
    }
    if (newline < 0) break;
    lineStart = newline + 1;
  }
  return absent(bom, eol, base);
}

function utf8Length(text: string, start: number, end: number): number {
  let bytes = 0;
  for (let k = start; k < end; k++) {
    const code = text.charCodeAt(k);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && k + 1 < end && (text.charCodeAt(k + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      k++;
    } else bytes += 3;
  }
  return bytes;
}

/** The frontmatter's size in UTF-8 bytes when it is over FRONTMATTER_LIMIT_BYTES; null when it is not (or there is none). */
export function oversizeFrontmatter(text: string, split: FrontmatterSplit = splitFrontmatter(text)): number | null {
  if (!split.exists) return null;
  // A UTF-16 unit is at most three bytes: most frontmatter is too short to need counting.
  if ((split.yamlEnd - split.yamlStart) * 3 <= FRONTMATTER_LIMIT_BYTES) return null;
  const bytes = utf8Length(text, split.yamlStart, split.yamlEnd);
  return bytes > FRONTMATTER_LIMIT_BYTES ? bytes : null;
}

/** `parses`: the operation's earlier parses, so that a YAML text already parsed is not parsed again. */
export function parseFrontmatter(text: string, parses?: FrontmatterParses): ParsedFrontmatter {
  const split = splitFrontmatter(text);
  if (!split.exists) return { split, document: null, data: null, error: null, oversize: null };
  const oversize = oversizeFrontmatter(text, split);
  if (oversize !== null) {
    const error = `The frontmatter is ${oversize} bytes of YAML, over the limit of ${FRONTMATTER_LIMIT_BYTES} bytes (${FRONTMATTER_LIMIT_TEXT}), so it is not parsed and has no properties.`;
    return { split, document: null, data: null, error, oversize };
  }
  const yaml = text.slice(split.yamlStart, split.yamlEnd);
  return { split, ...(parses ? parses.yaml(yaml) : parseYaml(yaml)), oversize: null };
}

/**
 * Only the properties, for indexing: the common simple shapes skip building a YAML Document (the costly
 * part of parsing a note); everything else goes through the full parser, so results are the same.
 * Frontmatter over FRONTMATTER_LIMIT_BYTES has none.
 */
export function frontmatterData(text: string, split: FrontmatterSplit, parses?: FrontmatterParses): Record<string, unknown> | null {
  if (!split.exists || oversizeFrontmatter(text, split) !== null) return null;
  const yaml = text.slice(split.yamlStart, split.yamlEnd);
  const known = parses?.known(yaml);
  if (known !== undefined) return known;
  return parseSimpleYamlMap(yaml) ?? (parses ? parses.yaml(yaml) : parseYaml(yaml)).data;
}

function parseYaml(yaml: string): ParsedYaml {
  yamlParses++;
  // The core schema leaves dates as strings, as Obsidian does. The package's own duplicate-key check
  // compares each key with every earlier one; walkNodes does the same in one pass.
  const document = parseDocument(yaml, { schema: "core", prettyErrors: false, uniqueKeys: false, logLevel: "error" });
  const { duplicate, aliases } = walkNodes(document.contents);
  // Reported as the package reported them, so the earliest of its errors and the first duplicate comes first.
  if (duplicate !== null) {
    const error = new YAMLParseError([duplicate, duplicate + 1], "DUPLICATE_KEY", "Map keys must be unique");
    const first = document.errors[0];
    if (first === undefined || duplicate < first.pos[0]) document.errors.unshift(error);
    else document.errors.push(error);
  }
  const firstError = document.errors[0];
  if (firstError) return { document, data: null, error: describeYamlError(firstError, yaml) };
  if (aliases > MAX_FRONTMATTER_ALIASES) {
    return {
      document,
      data: null,
      error: `The frontmatter YAML uses ${aliases} aliases (*name); more than ${MAX_FRONTMATTER_ALIASES} are not resolved, so it has no properties.`,
      tooManyAliases: true,
    };
  }

  let value: unknown;
  try {
    // The package's own alias count looks each alias's anchor up by a walk of the whole document;
    // expansion() measures what the aliases make in one pass instead.
    value = document.toJS({ maxAliasCount: -1 });
  } catch {
    return { document, data: null, error: "The frontmatter YAML uses an alias that cannot be resolved (or too many aliases)." };
  }
  if (value === null || value === undefined) return { document, data: {}, error: null };
  const expanded = aliases > 0 ? expansion(value) : "fits";
  if (expanded === "cycle") {
    return { document, data: null, error: "The frontmatter YAML has an anchor whose value contains an alias of itself (`&a [*a]`), so it has no properties." };
  }
  if (expanded === "too_large") {
    return {
      document,
      data: null,
      error: `The frontmatter YAML's aliases expand to more than ${MAX_PROPERTY_VALUES} values (or nest deeper than ${MAX_PROPERTY_DEPTH} levels), so it has no properties.`,
    };
  }
  if (typeof value !== "object" || Array.isArray(value)) {
    return { document, data: null, error: "The frontmatter is valid YAML but not a map of `key: value` lines, so it has no properties." };
  }
  return { document, data: value as Record<string, unknown>, error: null };
}

/**
 * One pass over the parsed nodes: the offset of the first key that repeats an earlier key of its map
 * (equal as the yaml package compares keys: scalars of the same value), and the number of aliases.
 */
function walkNodes(root: unknown): { duplicate: number | null; aliases: number } {
  let duplicate: number | null = null;
  let aliases = 0;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isAlias(node)) {
      aliases++;
    } else if (isMap(node)) {
      const seen = new Set<unknown>();
      for (let index = node.items.length - 1; index >= 0; index--) {
        const pair = node.items[index];
        if (!isPair(pair)) continue;
        stack.push(pair.value, pair.key);
      }
      for (const pair of node.items) {
        if (!isPair(pair) || !isScalar(pair.key)) continue;
        const key: unknown = pair.key.value;
        // `===`, which the package uses, finds no NaN equal to another; a Set would.
        if (typeof key === "number" && Number.isNaN(key)) continue;
        if (seen.has(key)) {
          // An outer map is walked before the maps inside it, whose duplicates may come earlier.
          const offset = pair.key.range?.[0] ?? 0;
          if (duplicate === null || offset < duplicate) duplicate = offset;
          break;
        }
        seen.add(key);
      }
    } else if (isSeq(node)) {
      for (let index = node.items.length - 1; index >= 0; index--) stack.push(node.items[index]);
    }
  }
  return { duplicate, aliases };
}

interface Frame {
  value: object;
  children: unknown[];
  next: number;
  values: number;
  depth: number;
}

type Expansion = "fits" | "cycle" | "too_large";

function childrenOf(value: object): unknown[] {
  return value instanceof Map ? [...value.keys(), ...value.values()] : value instanceof Set ? [...value] : Object.values(value);
}

/**
 * What aliases made of the properties, in one pass that visits each shared value once: "cycle" when a
 * value reaches itself (a recursive anchor, `a: &x [*x]`, gives a cyclic object that every walk over
 * properties would follow forever), "too_large" when, written out, it would hold more values or nest
 * deeper than frontmatter of the size limit can without aliases (every walk over properties — links,
 * the index's codec, a tool's JSON — sees each alias written out).
 */
function expansion(root: unknown): Expansion {
  if (typeof root !== "object" || root === null) return "fits";
  const done = new Map<object, { values: number; depth: number }>();
  const open = new Set<object>([root]);
  const frames: Frame[] = [{ value: root, children: childrenOf(root), next: 0, values: 1, depth: 0 }];
  while (true) {
    const top = frames[frames.length - 1] as Frame;
    if (top.next < top.children.length) {
      const child = top.children[top.next++];
      if (typeof child !== "object" || child === null) {
        top.values++;
      } else {
        const known = done.get(child);
        if (known !== undefined) {
          top.values += known.values;
          top.depth = Math.max(top.depth, known.depth + 1);
        } else if (open.has(child)) {
          return "cycle";
        } else {
          if (frames.length >= MAX_PROPERTY_DEPTH) return "too_large";
          open.add(child);
          frames.push({ value: child, children: childrenOf(child), next: 0, values: 1, depth: 0 });
        }
      }
      if (top.values > MAX_PROPERTY_VALUES) return "too_large";
      continue;
    }
    frames.pop();
    open.delete(top.value);
    done.set(top.value, { values: top.values, depth: top.depth });
    const parent = frames[frames.length - 1];
    if (parent === undefined) return "fits";
    parent.values += top.values;
    parent.depth = Math.max(parent.depth, top.depth + 1);
    if (parent.values > MAX_PROPERTY_VALUES) return "too_large";
  }
}

const YAML_PROBLEMS: Partial<Record<ErrorCode, string>> = {
  DUPLICATE_KEY: "a key appears twice",
  BAD_INDENT: "the indentation is inconsistent or a bracket is not closed",
  MULTILINE_IMPLICIT_KEY: "a key spans more than one line (a missing `:` or quote?)",
  BLOCK_AS_IMPLICIT_KEY: "a nested block is used as a key",
  TAB_AS_INDENT: "a tab is used for indentation",
  MISSING_CHAR: "a closing quote or bracket is missing",
  BAD_DQ_ESCAPE: "a double-quoted string has an invalid escape",
  UNEXPECTED_TOKEN: "a character is not allowed there (quote values that contain `:`, `#`, `[` or `{`)",
  BAD_SCALAR_START: "a plain value starts with a reserved character (quote it)",
  BAD_ALIAS: "an alias is malformed",
  MULTIPLE_DOCS: "it contains more than one YAML document",
  BLOCK_IN_FLOW: "a block collection appears inside a flow collection",
  KEY_OVER_1024_CHARS: "a key is longer than 1024 characters",
  TAG_RESOLVE_FAILED: "a tagged value cannot be resolved",
};

// The yaml package's own message quotes the offending source; only the code and position are used here.
// Positions are offsets into the YAML; the opening fence is the file's line 1, so YAML line 1 is file line 2.
function describeYamlError(error: YAMLError, yaml: string): string {
  const problem = YAML_PROBLEMS[error.code] ?? "it is not valid YAML";
  const offset = Math.max(0, Math.min(error.pos[0], yaml.length));
  const lineStart = offset === 0 ? 0 : yaml.lastIndexOf("\n", offset - 1) + 1;
  let line = 2;
  for (let k = yaml.indexOf("\n"); k >= 0 && k < lineStart; k = yaml.indexOf("\n", k + 1)) line++;
  const where = ` at line ${line} (column ${offset - lineStart + 1}) of the file`;
  return `The frontmatter YAML is invalid${where}: ${problem} [${error.code}].`;
}
