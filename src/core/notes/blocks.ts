// Block structure in one pass over the lines: headings, paragraphs, lists with their items, fenced and
// indented code, block quotes and callouts, tables and rules. It follows CommonMark where Obsidian does
// and keeps only what CachedMetadata records; code blocks are skipped whole so nothing inside them counts.
import type { BlockCache, HeadingCache, ListItemCache, Loc, Pos, SectionCache } from "./metadata";
import { type InlineSink, type SourceLine, InlineScanner, isInlineWhitespace, position, trailingBlockId } from "./inline";

export interface BlockSink extends InlineSink {
  headings: HeadingCache[];
  sections: SectionCache[];
  listItems: ListItemCache[];
  blocks: Record<string, BlockCache>;
}

interface Indent {
  /** Columns, a tab advancing to the next multiple of 4. */
  columns: number;
  /** Index of the first non-whitespace character. */
  index: number;
}

function measureIndent(text: string): Indent {
  let columns = 0;
  let index = 0;
  for (; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x20) columns++;
    else if (code === 0x09) columns += 4 - (columns % 4);
    else break;
  }
  return { columns, index };
}

interface Fence {
  char: number;
  length: number;
}

/** An opening code fence at `index`: 3+ backticks or tildes (a backtick fence's info has no backtick). */
function openingFence(text: string, index: number): Fence | null {
  const char = text.charCodeAt(index);
  if (char !== 0x60 && char !== 0x7e) return null;
  let end = index;
  while (end < text.length && text.charCodeAt(end) === char) end++;
  const length = end - index;
  if (length < 3) return null;
  if (char === 0x60 && text.indexOf("`", end) >= 0) return null;
  return { char, length };
}

function closesFence(text: string, fence: Fence): boolean {
  const { index } = measureIndent(text);
  let end = index;
  while (end < text.length && text.charCodeAt(end) === fence.char) end++;
  if (end - index < fence.length) return false;
  for (let k = end; k < text.length; k++) if (!isInlineWhitespace(text.charCodeAt(k))) return false;
  return true;
}

function isBlank(text: string): boolean {
  for (let k = 0; k < text.length; k++) if (!isInlineWhitespace(text.charCodeAt(k))) return false;
  return true;
}

function isThematicBreak(text: string, index: number): boolean {
  const char = text.charCodeAt(index);
  if (char !== 0x2d && char !== 0x2a && char !== 0x5f) return false;
  let count = 0;
  for (let k = index; k < text.length; k++) {
    const code = text.charCodeAt(k);
    if (code === char) count++;
    else if (!isInlineWhitespace(code)) return false;
  }
  return count >= 3;
}

interface AtxHeading {
  level: number;
  /** Column where the heading text starts. */
  contentStart: number;
  heading: string;
}

function atxHeading(text: string, index: number): AtxHeading | null {
  let level = 0;
  while (index + level < text.length && text.charCodeAt(index + level) === 0x23) level++;
  if (level < 1 || level > 6) return null;
  const after = index + level;
  if (after < text.length && !isInlineWhitespace(text.charCodeAt(after))) return null;
  let end = text.length;
  while (end > after && isInlineWhitespace(text.charCodeAt(end - 1))) end--;
  let hashes = end;
  while (hashes > after && text.charCodeAt(hashes - 1) === 0x23) hashes--;
  if (hashes === after) end = after;
  else if (hashes < end && isInlineWhitespace(text.charCodeAt(hashes - 1))) end = hashes;
  return { level, contentStart: after, heading: text.slice(after, end).trim() };
}

interface ListMarker {
  indent: number;
  /** "-", "*", "+" for bullets, "." or ")" for ordered items. */
  kind: string;
  ordinal: number | null;
  /** Column where item content starts; nested blocks must be indented at least this far. */
  contentColumn: number;
  /** Index in the text where the item's own text starts (after the marker and any task box). */
  textIndex: number;
  task: string | undefined;
  empty: boolean;
}

function listMarker(text: string, indent: Indent): ListMarker | null {
  let k = indent.index;
  const first = text.charCodeAt(k);
  let kind: string;
  let ordinal: number | null = null;
  if (first === 0x2d || first === 0x2a || first === 0x2b) {
    kind = text[k] ?? "-";
    k++;
  } else {
    const digitsStart = k;
    while (k < text.length && k - digitsStart < 10 && text.charCodeAt(k) >= 0x30 && text.charCodeAt(k) <= 0x39) k++;
    const digits = k - digitsStart;
    const delimiter = text.charCodeAt(k);
    if (digits < 1 || digits > 9 || (delimiter !== 0x2e && delimiter !== 0x29)) return null;
    ordinal = Number(text.slice(digitsStart, k));
    kind = text[k] ?? ".";
    k++;
  }
  if (k < text.length && !isInlineWhitespace(text.charCodeAt(k))) return null;

  const markerColumns = indent.columns + (k - indent.index);
  let spaces = 0;
  let textIndex = k;
  while (textIndex < text.length && isInlineWhitespace(text.charCodeAt(textIndex))) {
    spaces++;
    textIndex++;
  }
  const empty = textIndex >= text.length;
  // Five or more spaces after the marker start indented code inside the item, which begins after one.
  const contentColumn = markerColumns + (empty || spaces > 4 ? 1 : spaces);

  let task: string | undefined;
  if (
    !empty &&
    text.charCodeAt(textIndex) === 0x5b &&
    text.charCodeAt(textIndex + 2) === 0x5d &&
    (textIndex + 3 >= text.length || isInlineWhitespace(text.charCodeAt(textIndex + 3)))
  ) {
    task = text[textIndex + 1];
    textIndex += 3;
    while (textIndex < text.length && isInlineWhitespace(text.charCodeAt(textIndex))) textIndex++;
  }
  return { indent: indent.columns, kind, ordinal, contentColumn, textIndex, task, empty };
}

interface OpenSection {
  type: string;
  first: SourceLine;
  last: SourceLine;
  startCol: number;
  lineCount: number;
}

interface OpenItem {
  cache: ListItemCache;
  contentColumn: number;
  last: SourceLine;
}

interface OpenList {
  kind: string;
  firstLine: number;
  items: OpenItem[];
  blankSeen: boolean;
}

interface OpenQuote {
  fence: Fence | null;
  paragraphOpen: boolean;
}

function span(first: SourceLine, startCol: number, last: SourceLine): Pos {
  return {
    start: { line: first.line, col: startCol, offset: first.offset + startCol },
    end: { line: last.line, col: last.text.length, offset: last.offset + last.text.length },
  };
}

export class BlockScanner {
  private section: OpenSection | null = null;
  private fence: Fence | null = null;
  private list: OpenList | null = null;
  private quote: OpenQuote | null = null;
  private lastClosed: SectionCache | null = null;

  private readonly inline: InlineScanner;

  /** `note` is the text the lines come from; lines are given in order. */
  constructor(
    private readonly sink: BlockSink,
    note: string,
  ) {
    this.inline = new InlineScanner(note, sink);
  }

  /** Records a section that the caller parsed itself (the frontmatter). */
  addSection(section: SectionCache): void {
    this.sink.sections.push(section);
    this.lastClosed = section;
  }

  line(line: SourceLine): void {
    const text = line.text;
    if (this.fence) {
      this.extend(line);
      if (closesFence(text, this.fence)) {
        this.fence = null;
        if (this.section?.type === "code") this.closeSection();
      }
      return;
    }

    const blank = isBlank(text);
    const indent = measureIndent(text);

    if (this.section?.type === "indented-code") {
      if (blank) return;
      if (indent.columns >= 4) {
        this.extend(line);
        return;
      }
      this.closeSection();
    }

    if (blank) {
      if (this.list) this.list.blankSeen = true;
      else this.closeSection();
      return;
    }

    if (this.list && this.continueList(line, indent)) return;
    if (this.quote && this.continueQuote(line, indent)) return;

    if (indent.columns <= 3 && this.startBlock(line, indent)) return;

    const marker = listMarker(text, indent);
    if (marker && indent.columns <= 3 && this.mayStartList(marker)) {
      this.closeSection();
      this.openSection("list", line, indent.index);
      this.list = { kind: marker.kind, firstLine: line.line, items: [], blankSeen: false };
      this.addItem(line, marker, indent);
      return;
    }

    const section = this.section;
    if (section?.type === "paragraph" && section.lineCount === 1 && isTableDelimiter(text) && section.first.text.includes("|")) {
      section.type = "table";
      this.extend(line);
      return;
    }
    if (section?.type === "paragraph" || section?.type === "table") {
      this.extend(line);
      this.inline.scan(line, 0);
      return;
    }
    if (indent.columns >= 4) {
      this.closeSection();
      this.openSection("indented-code", line, indent.index);
      return;
    }
    this.closeSection();
    this.openSection("paragraph", line, indent.index);
    this.inline.scan(line, indent.index);
  }

  finish(): void {
    this.closeSection();
  }

  /** Headings, fences, rules and quotes: blocks that start on one line and interrupt a paragraph. */
  private startBlock(line: SourceLine, indent: Indent): boolean {
    const text = line.text;
    const heading = atxHeading(text, indent.index);
    if (heading) {
      this.closeSection();
      const pos = position(line, indent.index, text.length);
      this.sink.headings.push({ heading: heading.heading, level: heading.level, position: pos });
      this.pushSection({ type: "heading", position: pos });
      this.inline.scan(line, heading.contentStart);
      return true;
    }
    const fence = openingFence(text, indent.index);
    if (fence) {
      this.closeSection();
      this.openSection("code", line, indent.index);
      this.fence = fence;
      return true;
    }
    if (isThematicBreak(text, indent.index)) {
      this.closeSection();
      this.pushSection({ type: "thematicBreak", position: position(line, indent.index, text.length) });
      return true;
    }
    if (text.charCodeAt(indent.index) === 0x3e) {
      this.closeSection();
      const inner = quoteContentStart(text, indent.index);
      this.openSection(/^\[![^\]]+\]/.test(text.slice(inner)) ? "callout" : "blockquote", line, indent.index);
      this.quote = { fence: null, paragraphOpen: false };
      this.quoteLine(line, inner);
      return true;
    }
    return false;
  }

  private mayStartList(marker: ListMarker): boolean {
    if (this.section?.type !== "paragraph" && this.section?.type !== "table") return true;
    return !marker.empty && (marker.ordinal === null || marker.ordinal === 1);
  }

  /** Whether a line at this indent would start a block instead of continuing a paragraph lazily. */
  private interrupts(text: string, indent: Indent): boolean {
    if (indent.columns > 3) return false;
    const index = indent.index;
    if (atxHeading(text, index) || openingFence(text, index) || isThematicBreak(text, index)) return true;
    if (text.charCodeAt(index) === 0x3e) return true;
    const marker = listMarker(text, indent);
    return marker !== null && !marker.empty;
  }

  private continueList(line: SourceLine, indent: Indent): boolean {
    const list = this.list;
    if (!list) return false;
    const text = line.text;
    const marker = indent.columns <= 3 && isThematicBreak(text, indent.index) ? null : listMarker(text, indent);

    if (marker) {
      const items = list.items;
      const top = items[items.length - 1];
      const leavesList = (items[0]?.contentColumn ?? 0) > marker.indent;
      if (leavesList && (marker.kind !== list.kind || marker.indent > 3)) {
        // Only an item that may interrupt a paragraph starts the next list; otherwise the line is lazy text.
        if (top && !list.blankSeen && (marker.empty || (marker.ordinal !== null && marker.ordinal !== 1))) {
          this.extend(line);
          top.last = line;
          this.inline.scan(line, indent.index);
          return true;
        }
        this.closeSection();
        return false;
      }
      while (items.length > 0 && (items[items.length - 1]?.contentColumn ?? 0) > marker.indent) this.closeItem(list);
      list.blankSeen = false;
      this.extend(line);
      this.addItem(line, marker, indent);
      return true;
    }

    const root = list.items[0];
    const top = list.items[list.items.length - 1];
    if (root && top && indent.columns >= root.contentColumn) {
      if (list.blankSeen || indent.columns >= top.contentColumn) {
        while (list.items.length > 1 && (list.items[list.items.length - 1]?.contentColumn ?? 0) > indent.columns) {
          this.closeItem(list);
        }
      }
      list.blankSeen = false;
      this.extend(line);
      const owner = list.items[list.items.length - 1];
      if (owner) owner.last = line;
      const fence = openingFence(text, indent.index);
      if (fence) this.fence = fence;
      else this.inline.scan(line, indent.index);
      return true;
    }

    if (top && !list.blankSeen && !this.interrupts(text, indent)) {
      this.extend(line);
      top.last = line;
      this.inline.scan(line, indent.index);
      return true;
    }
    this.closeSection();
    return false;
  }

  private addItem(line: SourceLine, marker: ListMarker, indent: Indent): void {
    const list = this.list;
    if (!list) return;
    const parentItem = list.items[list.items.length - 1];
    const start: Loc = { line: line.line, col: indent.index, offset: line.offset + indent.index };
    const cache: ListItemCache = {
      // `0 - line` rather than `-line`, so a list on line 0 has parent 0, not -0.
      parent: parentItem ? parentItem.cache.position.start.line : 0 - list.firstLine,
      // The end stands in until closeItem knows the item's last line.
      position: { start, end: start },
    };
    if (marker.task !== undefined) cache.task = marker.task;
    this.sink.listItems.push(cache);
    list.items.push({ cache, contentColumn: marker.contentColumn, last: line });
    if (!marker.empty) {
      const fence = marker.task === undefined ? openingFence(line.text, marker.textIndex) : null;
      if (fence) this.fence = fence;
      else this.inline.scan(line, marker.textIndex);
    }
  }

  private closeItem(list: OpenList): void {
    const item = list.items.pop();
    if (!item) return;
    const last = item.last;
    item.cache.position.end = { line: last.line, col: last.text.length, offset: last.offset + last.text.length };
    const blockId = trailingBlockId(last.text);
    if (blockId) {
      item.cache.id = blockId.id;
      this.sink.blocks[blockId.id.toLowerCase()] = { id: blockId.id, position: item.cache.position };
    }
  }

  private continueQuote(line: SourceLine, indent: Indent): boolean {
    const quote = this.quote;
    if (!quote) return false;
    const text = line.text;
    if (indent.columns <= 3 && text.charCodeAt(indent.index) === 0x3e) {
      this.extend(line);
      this.quoteLine(line, quoteContentStart(text, indent.index));
      return true;
    }
    if (!quote.fence && quote.paragraphOpen && !this.interrupts(text, indent)) {
      this.extend(line);
      this.inline.scan(line, indent.index);
      return true;
    }
    this.closeSection();
    return false;
  }

  private quoteLine(line: SourceLine, inner: number): void {
    const quote = this.quote;
    if (!quote) return;
    const content = line.text.slice(inner);
    if (quote.fence) {
      if (closesFence(content, quote.fence)) quote.fence = null;
      return;
    }
    if (isBlank(content)) {
      quote.paragraphOpen = false;
      return;
    }
    const fence = openingFence(content, measureIndent(content).index);
    if (fence) {
      quote.fence = fence;
      quote.paragraphOpen = false;
      return;
    }
    quote.paragraphOpen = true;
    this.inline.scan(line, inner);
  }

  private openSection(type: string, line: SourceLine, startCol: number): void {
    this.section = { type, first: line, last: line, startCol, lineCount: 1 };
  }

  private extend(line: SourceLine): void {
    const section = this.section;
    if (!section) return;
    section.last = line;
    section.lineCount++;
  }

  private pushSection(section: SectionCache): void {
    this.sink.sections.push(section);
    this.lastClosed = section;
  }

  private closeSection(): void {
    if (this.list) {
      while (this.list.items.length > 0) this.closeItem(this.list);
      this.list = null;
    }
    this.quote = null;
    this.fence = null;
    const open = this.section;
    if (!open) return;
    this.section = null;

    const type = open.type === "indented-code" ? "code" : open.type;
    const section: SectionCache = { type, position: span(open.first, open.startCol, open.last) };
    if (type === "paragraph" || type === "blockquote" || type === "callout" || type === "table") {
      const blockId = trailingBlockId(open.last.text);
      if (blockId) {
        // A lone `^id` line names the structured block before it (Obsidian's rule for lists, quotes, tables).
        const previous = this.lastClosed;
        const standalone =
          open.lineCount === 1 && blockId.col === open.startCol && previous !== null && STRUCTURED.has(previous.type);
        const target = standalone && previous ? previous : section;
        target.id = blockId.id;
        this.sink.blocks[blockId.id.toLowerCase()] = { id: blockId.id, position: target.position };
        if (standalone && target !== section) return;
      }
    }
    this.pushSection(section);
  }
}

const STRUCTURED = new Set(["list", "blockquote", "callout", "table", "code"]);

/** Index after the `>` markers (nested too) and the one optional space after each. */
function quoteContentStart(text: string, index: number): number {
  let k = index;
  while (text.charCodeAt(k) === 0x3e) {
    k++;
    if (isInlineWhitespace(text.charCodeAt(k))) k++;
    let look = k;
    while (look < text.length && look - k < 3 && text.charCodeAt(look) === 0x20) look++;
    if (text.charCodeAt(look) === 0x3e) k = look;
  }
  return k;
}

function isTableDelimiter(text: string): boolean {
  let body = text.trim();
  // It runs on the second line of every paragraph; the first character rules out nearly all of them.
  const first = body.charCodeAt(0);
  if (first !== 0x7c && first !== 0x3a && first !== 0x2d) return false;
  if (body.startsWith("|")) body = body.slice(1);
  if (body.endsWith("|")) body = body.slice(0, -1);
  if (body === "") return false;
  for (const cell of body.split("|")) {
    if (!/^\s*:?-+:?\s*$/.test(cell)) return false;
  }
  return true;
}
