// A markdown metadata parser in CachedMetadata's shapes (obsidian-api.md §5), written from that
// document alone so it can cross-check the production parser. Covers what the plugin reads:
// frontmatter, headings, links, embeds, frontmatter links, tags, list items and block ids.
import type { CachedMetadata, Loc, Pos } from "obsidian";
import { parse } from "yaml";

interface Line {
  text: string;
  start: number;
}

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  for (;;) {
    const end = text.indexOf("\n", start);
    if (end < 0) {
      lines.push({ text: text.slice(start), start });
      return lines;
    }
    lines.push({ text: text.slice(start, end).replace(/\r$/, ""), start });
    start = end + 1;
  }
}

function loc(line: number, col: number, lineStart: number): Loc {
  return { line, col, offset: lineStart + col };
}

function pos(line: number, from: number, to: number, lineStart: number): Pos {
  return { start: loc(line, from, lineStart), end: loc(line, to, lineStart) };
}

function decode(link: string): string {
  try {
    return decodeURIComponent(link);
  } catch {
    return link;
  }
}

function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target);
}

/** Replaces inline code spans with spaces so nothing in them is seen, keeping columns. */
function blankInlineCode(text: string): string {
  return text.replace(/(`+)([\s\S]*?)\1/g, (match) => " ".repeat(match.length));
}

function frontmatterLinks(value: unknown, key: string, out: NonNullable<CachedMetadata["frontmatterLinks"]>): void {
  if (typeof value === "string") {
    const match = /^\[\[([^\]|]+)(?:\|([^\]]*))?\]\]$/.exec(value);
    if (match) out.push({ key, link: match[1]!, original: value, ...(match[2] !== undefined ? { displayText: match[2] } : {}) });
  } else if (Array.isArray(value)) value.forEach((item, index) => frontmatterLinks(item, `${key}.${index}`, out));
  else if (typeof value === "object" && value !== null) for (const [inner, item] of Object.entries(value)) frontmatterLinks(item, `${key}.${inner}`, out);
}

export function parseMarkdownMetadata(text: string): CachedMetadata {
  const lines = splitLines(text);
  const cache: CachedMetadata = {};
  const links: NonNullable<CachedMetadata["links"]> = [];
  const embeds: NonNullable<CachedMetadata["embeds"]> = [];
  const tags: NonNullable<CachedMetadata["tags"]> = [];
  const headings: NonNullable<CachedMetadata["headings"]> = [];
  const listItems: NonNullable<CachedMetadata["listItems"]> = [];
  const blocks: NonNullable<CachedMetadata["blocks"]> = {};
  let first = 0;

  if (lines[0]?.text === "---") {
    const close = lines.findIndex((line, index) => index > 0 && line.text === "---");
    if (close > 0) {
      const yamlText = lines.slice(1, close).map((line) => line.text).join("\n");
      cache.frontmatterPosition = { start: loc(0, 0, 0), end: loc(close, 3, lines[close]!.start) };
      try {
        const parsed: unknown = parse(yamlText, { schema: "core", logLevel: "error" });
        if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
          cache.frontmatter = parsed;
          const fmLinks: NonNullable<CachedMetadata["frontmatterLinks"]> = [];
          for (const [key, value] of Object.entries(parsed)) frontmatterLinks(value, key, fmLinks);
          if (fmLinks.length > 0) cache.frontmatterLinks = fmLinks;
        }
      } catch {
        // Invalid YAML: no frontmatter object.
      }
      first = close + 1;
    }
  }

  let fence: string | null = null;
  const listStack: Array<{ indent: number; line: number }> = [];
  let listStart = -1;
  let listMarker = "";
  let blankBefore = false;
  for (let index = first; index < lines.length; index++) {
    const { text: raw, start } = lines[index]!;
    // A fence inside a blockquote (`> ````) is still a fence.
    const unquoted = raw.replace(/^(\s{0,3}>\s?)+/, "");
    const fenceMatch = /^\s{0,3}(`{3,}|~{3,})/.exec(unquoted);
    if (fence !== null) {
      if (fenceMatch && fenceMatch[1]![0] === fence[0] && fenceMatch[1]!.length >= fence.length && unquoted.trim() === fenceMatch[1]) fence = null;
      continue;
    }
    if (fenceMatch) {
      fence = fenceMatch[1]!;
      continue;
    }
    const heading = /^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$/.exec(raw);
    if (heading) {
      headings.push({ heading: heading[2]!.trim(), level: heading[1]!.length, position: pos(index, 0, raw.length, start) });
    }
    const list = /^(\s*)([-*+]|\d+[.)])\s+(\[(.)\]\s)?/.exec(raw);
    if (list) {
      const indent = list[1]!.length;
      while (listStack.length > 0 && listStack[listStack.length - 1]!.indent >= indent) listStack.pop();
      // CommonMark: another bullet character (or ordered delimiter) at the top level starts a new list.
      const marker = /\d/.test(list[2]!) ? list[2]!.slice(-1) : list[2]!;
      if (listStack.length === 0 && (listStart < 0 || marker !== listMarker)) {
        listStart = index;
        listMarker = marker;
      }
      const parent = listStack.length > 0 ? listStack[listStack.length - 1]!.line : -listStart;
      listItems.push({ parent, position: pos(index, indent, raw.length, start), ...(list[4] !== undefined ? { task: list[4] } : {}) });
      listStack.push({ indent, line: index });
    } else if (raw.trim() !== "" && listStart >= 0) {
      // An indented line continues the item; so does an unindented one right after it (lazy
      // continuation). Anything else ends the list.
      if (heading || (blankBefore && !/^\s{2,}/.test(raw))) {
        listStart = -1;
        listStack.length = 0;
      }
    }
    blankBefore = raw.trim() === "";
    // The official Help embeds `![[image.png]]^id` and links to that id: an embed needs no space.
    const block = /(?:^|\s|\]\])\^([A-Za-z0-9-]+)$/.exec(raw);
    if (block) blocks[block[1]!.toLowerCase()] = { id: block[1]!, position: pos(index, 0, raw.length, start) };

    const visible = blankInlineCode(raw);
    for (const match of visible.matchAll(/(!?)\[\[([^\]]+?)\]\]/g)) {
      // Located on the text with code blanked, read from the source: a code span inside the link's
      // alias or subpath is still part of it.
      const original = raw.slice(match.index, match.index + match[0].length);
      const inner = original.slice(match[1]!.length + 2, -2);
      const bar = inner.indexOf("|");
      // In a table the alias bar is escaped as `\\|`; the backslash is not part of the target.
      const link = (bar < 0 ? inner : inner.slice(0, bar).replace(/\\$/, "")).trim();
      const entry = { link, original, position: pos(index, match.index, match.index + match[0].length, start), ...(bar >= 0 ? { displayText: inner.slice(bar + 1) } : {}) };
      (match[1] ? embeds : links).push(entry);
    }
    for (const match of visible.matchAll(/(!?)\[([^\]]*)\]\((<[^>]+>|[^)\s]+)\)/g)) {
      const target = match[3]!.startsWith("<") ? match[3]!.slice(1, -1) : match[3]!;
      if (isExternal(target)) continue;
      const entry = { link: decode(target), original: match[0], displayText: match[2]!, position: pos(index, match.index, match.index + match[0].length, start) };
      (match[1] ? embeds : links).push(entry);
    }
    {
      const withoutLinks = visible.replace(/\[\[[^\]]*\]\]|\]\([^)]*\)|[a-z]+:\/\/\S+/gi, (m) => " ".repeat(m.length));
      for (const match of withoutLinks.matchAll(/(^|\s)(#[^\s#!"$%&'()*+,.:;<=>?@[\]^`{|}~\\]+)/g)) {
        const tag = match[2]!;
        if (/^#\d+$/.test(tag)) continue;
        const at = match.index + match[1]!.length;
        if (heading && at === 0) continue;
        tags.push({ tag, position: pos(index, at, at + tag.length, start) });
      }
    }
  }
  // Wikilinks and markdown links are found in separate passes; the app lists them in document order.
  const byOffset = (a: { position: Pos }, b: { position: Pos }): number => a.position.start.offset - b.position.start.offset;
  links.sort(byOffset);
  embeds.sort(byOffset);
  if (links.length > 0) cache.links = links;
  if (embeds.length > 0) cache.embeds = embeds;
  if (tags.length > 0) cache.tags = tags;
  if (headings.length > 0) cache.headings = headings;
  if (listItems.length > 0) cache.listItems = listItems;
  if (Object.keys(blocks).length > 0) cache.blocks = blocks;
  return cache;
}
