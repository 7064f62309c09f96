// Frontmatter as Obsidian sees it (SPEC §5): `---` on the first line, closed by the next line that is
// exactly `---`. Anything else (`...`, an unterminated block, a later rule) means no frontmatter: the
// write path must never guess where YAML ends. The YAML is kept as a Document so edits preserve comments
// and key order.
import { parseDocument, type Document, type ErrorCode, type YAMLError } from "yaml";
import { parseSimpleYamlMap } from "./simple-yaml";

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
  /**
   * The YAML is valid but uses more aliases than properties are read with (a guard against alias
   * bombs); writes that leave the aliases as they were need not be refused for it.
   */
  tooManyAliases?: boolean;
}

const BOM = "\uFEFF";
/** The yaml library's weighted count of alias uses (a scalar alias counts 1). */
const MAX_ALIAS_COUNT = 100;
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

export function parseFrontmatter(text: string): ParsedFrontmatter {
  const split = splitFrontmatter(text);
  if (!split.exists) return { split, document: null, data: null, error: null };
  return { split, ...parseYaml(text.slice(split.yamlStart, split.yamlEnd)) };
}

/**
 * Only the properties, for indexing: the common simple shapes skip building a YAML Document (the costly
 * part of parsing a note); everything else goes through the full parser, so results are the same.
 */
export function frontmatterData(text: string, split: FrontmatterSplit): Record<string, unknown> | null {
  if (!split.exists) return null;
  const yaml = text.slice(split.yamlStart, split.yamlEnd);
  return parseSimpleYamlMap(yaml) ?? parseYaml(yaml).data;
}

function parseYaml(yaml: string): Omit<ParsedFrontmatter, "split"> {
  // The core schema leaves dates as strings, as Obsidian does; uniqueKeys matches Obsidian refusing duplicates.
  const document = parseDocument(yaml, { schema: "core", prettyErrors: false, uniqueKeys: true, logLevel: "error" });
  const firstError = document.errors[0];
  if (firstError) return { document, data: null, error: describeYamlError(firstError, yaml) };

  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    if (error instanceof ReferenceError && error.message.startsWith("Excessive alias count")) {
      return { document, data: null, error: `The frontmatter YAML uses too many aliases (*name) to be read as properties (at most ${MAX_ALIAS_COUNT}).`, tooManyAliases: true };
    }
    return { document, data: null, error: "The frontmatter YAML uses an alias that cannot be resolved." };
  }
  if (value === null || value === undefined) return { document, data: {}, error: null };
  if (holdsItself(value)) {
    return { document, data: null, error: "The frontmatter YAML has an anchor whose value contains an alias of itself (`&a [*a]`), so it has no properties." };
  }
  if (typeof value !== "object" || Array.isArray(value)) {
    return { document, data: null, error: "The frontmatter is valid YAML but not a map of `key: value` lines, so it has no properties." };
  }
  return { document, data: value as Record<string, unknown>, error: null };
}

/**
 * True when a value reaches itself: a recursive anchor (`a: &x [*x]`) gives a cyclic object, which
 * every walk over properties (links in frontmatter, the codec, JSON) would follow forever.
 */
function holdsItself(root: unknown): boolean {
  const open = new Set<object>();
  const done = new Set<object>();
  const visit = (value: unknown): boolean => {
    if (typeof value !== "object" || value === null || done.has(value)) return false;
    if (open.has(value)) return true;
    open.add(value);
    const children = value instanceof Map ? [...value.keys(), ...value.values()] : value instanceof Set ? [...value] : Object.values(value);
    for (const child of children) if (visit(child)) return true;
    open.delete(value);
    done.add(value);
    return false;
  };
  return visit(root);
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
