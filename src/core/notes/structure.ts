// parseNote produces what Obsidian's metadataCache holds for a note (obsidian-api.md §5), so the Node host
// and the plugin host feed the same shapes to the engine. noteFacts derives the few things the index
// and tools ask of every note.
//
// Offsets count characters of the text as given. Obsidian strips a byte order mark when it reads a file,
// so callers pass `stripBom(text)`; a BOM that is left in is tolerated but shifts line 0 by one column.
import { BlockScanner, type BlockSink } from "./blocks";
import { frontmatterData, splitFrontmatter, type FrontmatterParses } from "./frontmatter";
import { type SourceLine, wikiReference } from "./inline";
import type { CachedMetadata, FrontmatterLinkCache, ListItemCache, Pos } from "./metadata";
import { basename } from "./paths";

const BOM = "\uFEFF";

export function stripBom(text: string): string {
  return text.startsWith(BOM) ? text.slice(1) : text;
}

/** `parses`: an operation's frontmatter parses (see FrontmatterParses), when it has some. */
export function parseNote(text: string, parses?: FrontmatterParses): CachedMetadata {
  const sink: BlockSink = { links: [], embeds: [], tags: [], headings: [], sections: [], listItems: [], blocks: {} };
  const scanner = new BlockScanner(sink, text);
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
    const data = frontmatterData(text, split, parses);
    if (data) {
      cache.frontmatter = data;
      for (const [key, value] of Object.entries(data)) collectFrontmatterLinks(value, "", key, frontmatterLinks);
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
// The path is passed in pieces and joined only for a link, as few values are links.
function collectFrontmatterLinks(value: unknown, parent: string, name: string, out: FrontmatterLinkCache[]): void {
  if (typeof value === "string") {
    if (value.length > 4 && value.startsWith("[[") && value.endsWith("]]") && value.indexOf("]]") === value.length - 2) {
      const reference = wikiReference(value.slice(2, -2), value);
      if (reference) {
        const key = parent === "" ? name : `${parent}.${name}`;
        out.push({ key, link: reference.link, original: reference.original, displayText: reference.displayText });
      }
    }
    return;
  }
  if (value === null || typeof value !== "object") return;
  const path = parent === "" ? name : `${parent}.${name}`;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) collectFrontmatterLinks(value[index], path, String(index), out);
    return;
  }
  for (const [key, item] of Object.entries(value)) collectFrontmatterLinks(item, path, key, out);
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
  const trimmed = tag.trim();
  let start = 0;
  let end = trimmed.length;
  while (start < end && trimmed.charCodeAt(start) === 0x23) start++;
  while (start < end && trimmed.charCodeAt(start) === 0x2f) start++;
  while (end > start && trimmed.charCodeAt(end - 1) === 0x2f) end--;
  return trimmed.slice(start, end).normalize("NFC").toLowerCase();
}

const TAGS_KEY = /^tags?$/i;
const ALIASES_KEY = /^alias(?:es)?$/i;
const WHITESPACE = /\s/;

// Obsidian's parseFrontMatterTags/-Aliases: a string is a one-item list and is never split; non-strings
// and empty values are dropped, and so are tags containing whitespace.
function frontmatterStrings(data: Record<string, unknown>, key: RegExp, rejectWhitespace: boolean): string[] {
  const found: string[] = [];
  for (const [name, value] of Object.entries(data)) {
    if (!key.test(name)) continue;
    if (Array.isArray(value)) for (const item of value) addFrontmatterString(item, rejectWhitespace, found);
    else addFrontmatterString(value, rejectWhitespace, found);
  }
  return found;
}

function addFrontmatterString(item: unknown, rejectWhitespace: boolean, found: string[]): void {
  if (typeof item !== "string") return;
  const trimmed = item.trim();
  if (trimmed === "" || (rejectWhitespace && WHITESPACE.test(trimmed))) return;
  found.push(trimmed);
}

// Word counting runs over every note at startup, so it is a plain loop over char codes with a lazily
// filled table for non-ASCII characters instead of a Unicode-property regex (several times slower).
// The kinds are bit flags so that the loop can count word starts with arithmetic: whether a character
// starts a word flips unpredictably, and a branch on it costs more than the rest of the loop.
const LETTER_OR_DIGIT = /^[\p{L}\p{N}\p{M}]$/u;
const WORD_PART = 1;
const CJK = 2;
const APOSTROPHE = 4;
/** Set on every filled entry, so that 0 means "not classified yet". */
const KNOWN = 8;
const charKinds = new Uint8Array(0x10000);
for (let code = 0; code < 0x80; code++) {
  const alphanumeric = (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
  charKinds[code] = KNOWN | (alphanumeric ? WORD_PART : 0);
}
charKinds[0x27] = KNOWN | APOSTROPHE;

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

function classify(code: number): number {
  let kind: number;
  if (code === 0x2019) kind = APOSTROPHE;
  else if (isCjk(code)) kind = CJK;
  else if (code >= 0xd800 && code <= 0xdfff) kind = WORD_PART;
  else kind = LETTER_OR_DIGIT.test(String.fromCharCode(code)) ? WORD_PART : 0;
  charKinds[code] = KNOWN | kind;
  return KNOWN | kind;
}

function kindAt(text: string, index: number): number {
  const code = text.charCodeAt(index);
  const kind = charKinds[code] ?? 0;
  return kind !== 0 ? kind : classify(code);
}

/** Runs of letters and digits (an apostrophe inside a word keeps it one word); each CJK character counts once. */
export function countWords(body: string): number {
  return countWordsFrom(body, 0);
}

/** countWords of `text.slice(start)`, without copying it. */
function countWordsFrom(text: string, start: number): number {
  const end = text.length;
  let count = 0;
  let inWord = 0;
  for (let i = start; i < end; i++) {
    const kind = kindAt(text, i);
    if ((kind & APOSTROPHE) !== 0 && inWord === 1 && i + 1 < end && (kindAt(text, i + 1) & WORD_PART) !== 0) continue;
    const wordPart = kind & WORD_PART;
    count += (wordPart & (inWord ^ 1)) + ((kind & CJK) >> 1);
    inWord = wordPart;
  }
  return count;
}

const TRAILING_CR = /\r$/;
const TASK_PREFIX = /^\s*(?:[-*+]|\d{1,9}[.)])\s+\[.\]/;
const MD_EXTENSION = /\.md$/i;

function taskText(text: string, item: ListItemCache): string {
  const start = item.position.start.offset;
  const newline = text.indexOf("\n", start);
  const line = text.slice(start, newline < 0 ? text.length : newline).replace(TRAILING_CR, "");
  return line.replace(TASK_PREFIX, "").trim();
}

export function noteFacts(text: string, cache: CachedMetadata, path: string): NoteFacts {
  const data = cache.frontmatter ?? {};
  const rawTitle = data["title"];
  const name = basename(path);
  const title =
    typeof rawTitle === "string" && rawTitle.trim() !== "" ? rawTitle.trim() : name.replace(MD_EXTENSION, "");

  const tagSet = new Set<string>();
  for (const tag of frontmatterStrings(data, TAGS_KEY, true)) tagSet.add(normalizeTag(tag));
  for (const tag of cache.tags ?? []) tagSet.add(normalizeTag(tag.tag));
  tagSet.delete("");

  const aliases = [...new Set(frontmatterStrings(data, ALIASES_KEY, false))];

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
    words: countWordsFrom(text, bodyStart),
  };
}

function bodyOffset(text: string, frontmatter: Pos): number {
  const newline = text.indexOf("\n", frontmatter.end.offset);
  return newline < 0 ? text.length : newline + 1;
}
