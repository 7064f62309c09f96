// parseNote produces what Obsidian's metadataCache holds for a note (obsidian-api.md §5), so the Node host
// and the plugin host feed the same shapes to the engine. noteFacts derives the few things the index
// and tools ask of every note.
//
// Offsets count characters of the text as given. Obsidian strips a byte order mark when it reads a file,
// so callers pass `stripBom(text)`; a BOM that is left in is tolerated but shifts line 0 by one column.
import { BlockScanner, type BlockSink } from "./blocks";
import { frontmatterData, splitFrontmatter } from "./frontmatter";
import { type SourceLine, wikiReference } from "./inline";
import type { CachedMetadata, FrontmatterLinkCache, ListItemCache, Pos } from "./metadata";
import { basename } from "./paths";

const BOM = "\uFEFF";

export function stripBom(text: string): string {
  return text.startsWith(BOM) ? text.slice(1) : text;
}

export function parseNote(text: string): CachedMetadata {
  const sink: BlockSink = { links: [], embeds: [], tags: [], headings: [], sections: [], listItems: [], blocks: {} };
  const scanner = new BlockScanner(sink);
  const split = splitFrontmatter(text);

  const cache: CachedMetadata = {};
  const frontmatterLinks: FrontmatterLinkCache[] = [];
  let lineNumber = 0;
  let lineStart = 0;

  if (split.exists) {
    const closingLineStart = split.yamlEnd;
    lineNumber = countNewlines(text, 0, closingLineStart);
    const fenceStart = split.bom ? 1 : 0;
    const frontmatterPosition: Pos = {
      start: { line: 0, col: fenceStart, offset: fenceStart },
      end: { line: lineNumber, col: 3, offset: closingLineStart + 3 },
    };
    cache.frontmatterPosition = frontmatterPosition;
    scanner.addSection({ type: "yaml", position: frontmatterPosition });
    const data = frontmatterData(text, split);
    if (data) {
      cache.frontmatter = data;
      collectFrontmatterLinks(data, "", frontmatterLinks);
    }
    lineNumber++;
    lineStart = split.contentStart;
  }

  while (lineStart <= text.length) {
    const newline = text.indexOf("\n", lineStart);
    const lineEnd = newline < 0 ? text.length : newline;
    const contentEnd = lineEnd > lineStart && text.charCodeAt(lineEnd - 1) === 13 ? lineEnd - 1 : lineEnd;
    const skip = lineStart === 0 && split.bom ? 1 : 0;
    const line: SourceLine = { text: text.slice(lineStart + skip, contentEnd), line: lineNumber, offset: lineStart + skip };
    if (newline >= 0 || line.text.length > 0) scanner.line(line);
    if (newline < 0) break;
    lineStart = newline + 1;
    lineNumber++;
  }
  scanner.finish();

  if (sink.links.length > 0) cache.links = sink.links;
  if (sink.embeds.length > 0) cache.embeds = sink.embeds;
  if (sink.tags.length > 0) cache.tags = sink.tags;
  if (sink.headings.length > 0) cache.headings = sink.headings;
  if (sink.sections.length > 0) cache.sections = sink.sections;
  if (sink.listItems.length > 0) cache.listItems = sink.listItems;
  if (frontmatterLinks.length > 0) cache.frontmatterLinks = frontmatterLinks;
  if (Object.keys(sink.blocks).length > 0) cache.blocks = sink.blocks;
  return cache;
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let k = text.indexOf("\n", from); k >= 0 && k < to; k = text.indexOf("\n", k + 1)) count++;
  return count;
}

// Only a string that is exactly one `[[…]]` counts, as in Obsidian; keys are dotted paths like `related.0`.
function collectFrontmatterLinks(value: unknown, key: string, out: FrontmatterLinkCache[]): void {
  if (typeof value === "string") {
    if (value.length > 4 && value.startsWith("[[") && value.endsWith("]]") && value.indexOf("]]") === value.length - 2) {
      const reference = wikiReference(value.slice(2, -2), value);
      if (reference) out.push({ key, ...reference });
    }
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => collectFrontmatterLinks(item, key === "" ? String(index) : `${key}.${index}`, out));
    return;
  }
  if (value !== null && typeof value === "object") {
    for (const [name, item] of Object.entries(value)) collectFrontmatterLinks(item, key === "" ? name : `${key}.${name}`, out);
  }
}

export interface TaskItem {
  /** 1-based file line, frontmatter included, as an editor shows it. */
  line: number;
  /** The item's text without the bullet and the `[ ]` box. */
  text: string;
  done: boolean;
  /** The character in the box: " " when open. */
  status: string;
  /** The nearest heading above the task, or null. */
  heading: string | null;
}

export interface NoteFacts {
  title: string;
  tags: string[];
  aliases: string[];
  tasks: TaskItem[];
  words: number;
}

/** SPEC §5: leading `#` and edge `/` removed, lower-cased (NFC, so equal tags compare equal). */
export function normalizeTag(tag: string): string {
  return tag
    .trim()
    .replace(/^#+/, "")
    .replace(/^\/+|\/+$/g, "")
    .normalize("NFC")
    .toLowerCase();
}

// Obsidian's parseFrontMatterTags/-Aliases: a string is a one-item list and is never split; non-strings
// and empty values are dropped, and so are tags containing whitespace.
function frontmatterStrings(data: Record<string, unknown>, key: RegExp, rejectWhitespace: boolean): string[] {
  const found: string[] = [];
  for (const [name, value] of Object.entries(data)) {
    if (!key.test(name)) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item !== "string") continue;
      const trimmed = item.trim();
      if (trimmed === "" || (rejectWhitespace && /\s/.test(trimmed))) continue;
      found.push(trimmed);
    }
  }
  return found;
}

// Word counting runs over every note at startup, so it is a plain loop over char codes with a lazily
// filled table for non-ASCII characters instead of a Unicode-property regex (several times slower).
const LETTER_OR_DIGIT = /^[\p{L}\p{N}\p{M}]$/u;
const charKinds = new Uint8Array(0x10000);
const WORD_PART = 1;
const SEPARATOR = 2;
const CJK = 3;

function isCjk(code: number): boolean {
  return (
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0x3040 && code <= 0x30ff) ||
    (code >= 0x31f0 && code <= 0x31ff) ||
    (code >= 0xff66 && code <= 0xff9f)
  );
}

function kindOf(code: number): number {
  if (code < 0x80) {
    return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) ? WORD_PART : SEPARATOR;
  }
  let kind = charKinds[code] ?? 0;
  if (kind === 0) {
    if (isCjk(code)) kind = CJK;
    else if (code >= 0xd800 && code <= 0xdfff) kind = WORD_PART;
    else kind = LETTER_OR_DIGIT.test(String.fromCharCode(code)) ? WORD_PART : SEPARATOR;
    charKinds[code] = kind;
  }
  return kind;
}

/** Runs of letters and digits (an apostrophe inside a word keeps it one word); each CJK character counts once. */
export function countWords(body: string): number {
  let count = 0;
  let inWord = false;
  for (let i = 0; i < body.length; i++) {
    const code = body.charCodeAt(i);
    const kind = kindOf(code);
    if (kind === WORD_PART) {
      if (!inWord) count++;
      inWord = true;
    } else if (kind === CJK) {
      count++;
      inWord = false;
    } else if (inWord && (code === 0x27 || code === 0x2019) && kindOf(body.charCodeAt(i + 1)) === WORD_PART) {
      continue;
    } else {
      inWord = false;
    }
  }
  return count;
}

function taskText(text: string, item: ListItemCache): string {
  const start = item.position.start.offset;
  const newline = text.indexOf("\n", start);
  const line = text.slice(start, newline < 0 ? text.length : newline).replace(/\r$/, "");
  return line.replace(/^\s*(?:[-*+]|\d{1,9}[.)])\s+\[.\]/, "").trim();
}

export function noteFacts(text: string, cache: CachedMetadata, path: string): NoteFacts {
  const data = cache.frontmatter ?? {};
  const rawTitle = data["title"];
  const name = basename(path);
  const title =
    typeof rawTitle === "string" && rawTitle.trim() !== "" ? rawTitle.trim() : name.replace(/\.md$/i, "");

  const tagSet = new Set<string>();
  for (const tag of frontmatterStrings(data, /^tags?$/i, true)) tagSet.add(normalizeTag(tag));
  for (const tag of cache.tags ?? []) tagSet.add(normalizeTag(tag.tag));
  tagSet.delete("");

  const aliases = [...new Set(frontmatterStrings(data, /^alias(?:es)?$/i, false))];

  const headings = cache.headings ?? [];
  const tasks: TaskItem[] = [];
  let headingIndex = -1;
  for (const item of cache.listItems ?? []) {
    if (item.task === undefined) continue;
    const line = item.position.start.line;
    while (headingIndex + 1 < headings.length && (headings[headingIndex + 1]?.position.start.line ?? Infinity) < line) headingIndex++;
    tasks.push({
      line: line + 1,
      text: taskText(text, item),
      done: item.task !== " ",
      status: item.task,
      heading: headings[headingIndex]?.heading ?? null,
    });
  }

  const bodyStart = cache.frontmatterPosition ? bodyOffset(text, cache.frontmatterPosition) : 0;
  return {
    title,
    tags: [...tagSet].sort(),
    aliases,
    tasks,
    words: countWords(text.slice(bodyStart)),
  };
}

function bodyOffset(text: string, frontmatter: Pos): number {
  const newline = text.indexOf("\n", frontmatter.end.offset);
  return newline < 0 ? text.length : newline + 1;
}
