// Inline structure of one line: wiki links, embeds, markdown links to local files and #tags, with code
// spans masked out first so nothing inside them counts. Every search is bounded or cached, so a
// hostile line (thousands of unmatched brackets) stays linear instead of quadratic.
import type { EmbedCache, LinkCache, Pos, Reference, TagCache } from "./metadata";

export interface InlineSink {
  links: LinkCache[];
  embeds: EmbedCache[];
  tags: TagCache[];
}

export interface SourceLine {
  /** The line without its line ending. */
  text: string;
  /** 0-based line number. */
  line: number;
  /** Character offset of `text[0]` in the note. */
  offset: number;
}

const BACKSLASH = 0x5c;
const BACKTICK = 0x60;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_PAREN = 0x28;
const CLOSE_PAREN = 0x29;
const HASH = 0x23;
const BANG = 0x21;
const CARET = 0x5e;
const LESS_THAN = 0x3c;
/** Stands in for masked code-span characters: not whitespace, not punctuation any rule looks for. */
const MASK = "\u0001";
const MAX_LINK_TEXT = 1000;

export function position(line: SourceLine, startCol: number, endCol: number): Pos {
  return {
    start: { line: line.line, col: startCol, offset: line.offset + startCol },
    end: { line: line.line, col: endCol, offset: line.offset + endCol },
  };
}

export function isInlineWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0xa0 || code === 0x3000 || (code >= 0x2000 && code <= 0x200a);
}

function isAsciiPunctuation(code: number): boolean {
  return (code >= 0x21 && code <= 0x2f) || (code >= 0x3a && code <= 0x40) || (code >= 0x5b && code <= 0x60) || (code >= 0x7b && code <= 0x7e);
}

// Obsidian ends a tag at whitespace and at punctuation other than `-`, `_` and `/`.
function endsTag(code: number): boolean {
  if (code <= 0x20 || code === 0x7f || code === 0xa0 || code === 0xfeff) return true;
  if (code < 0x80) return isAsciiPunctuation(code) && code !== 0x2d && code !== 0x5f && code !== 0x2f;
  return (
    (code >= 0x2000 && code <= 0x206f) ||
    (code >= 0x2e00 && code <= 0x2e7f) ||
    (code >= 0x3000 && code <= 0x303f) ||
    (code >= 0xff01 && code <= 0xff0f) ||
    (code >= 0xff1a && code <= 0xff20) ||
    (code >= 0xff3b && code <= 0xff40) ||
    (code >= 0xff5b && code <= 0xff65)
  );
}

/**
 * Replaces every code span from `from` on with MASK characters of the same length, so offsets stay
 * valid. Backtick runs pair with the next run of the same length (CommonMark); an unmatched run is literal.
 */
export function maskCodeSpans(text: string, from: number): string {
  const starts: number[] = [];
  const lengths: number[] = [];
  for (let open = text.indexOf("`", from); open >= 0; ) {
    let end = open + 1;
    while (end < text.length && text.charCodeAt(end) === BACKTICK) end++;
    starts.push(open);
    lengths.push(end - open);
    open = text.indexOf("`", end);
  }
  if (starts.length < 2) return text;

  // The closer of each run: the next run of the same length, or -1. Indexed by length, a plain array
  // is cheaper here than a Map (most lines hold a pair or two of single backticks).
  const closers = new Array<number>(starts.length);
  const laterRunByLength: number[] = [];
  for (let run = starts.length - 1; run >= 0; run--) {
    const length = lengths[run] ?? 0;
    closers[run] = laterRunByLength[length] ?? -1;
    laterRunByLength[length] = run;
  }

  const pieces: string[] = [];
  let copied = 0;
  for (let run = 0; run < starts.length; ) {
    const closer = closers[run] ?? -1;
    if (closer < 0) {
      run++;
      continue;
    }
    const spanStart = starts[run] ?? 0;
    const spanEnd = (starts[closer] ?? 0) + (lengths[run] ?? 0);
    pieces.push(text.slice(copied, spanStart), MASK.repeat(spanEnd - spanStart));
    copied = spanEnd;
    run = closer + 1;
  }
  if (pieces.length === 0) return text;
  pieces.push(text.slice(copied));
  return pieces.join("");
}

/** Splits `target|alias`; a `\|` (the table escape) separates too. */
export function wikiReference(inner: string, original: string): Required<Reference> | null {
  const pipe = inner.indexOf("|");
  let target = pipe < 0 ? inner : inner.slice(0, pipe);
  if (target.endsWith("\\")) target = target.slice(0, -1);
  const link = target.trim();
  if (link === "") return null;
  const alias = pipe < 0 ? "" : inner.slice(pipe + 1);
  return { link, original, displayText: alias !== "" ? alias : link };
}

function isExternalUrl(url: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url) || /^(?:mailto|tel|data|javascript|file):/i.test(url);
}

function decodeLink(url: string): string {
  try {
    return decodeURIComponent(url);
  } catch {
    return url;
  }
}

interface Destination {
  url: string;
  end: number;
}

/** Parses `(dest "title")` starting just after the `(`; returns the index after `)`. */
function parseDestination(masked: string, text: string, start: number): Destination | null {
  let k = start;
  while (k < masked.length && isInlineWhitespace(masked.charCodeAt(k))) k++;
  let url: string;
  if (masked.charCodeAt(k) === LESS_THAN) {
    const close = masked.indexOf(">", k + 1);
    if (close < 0) return null;
    url = text.slice(k + 1, close);
    k = close + 1;
  } else {
    const urlStart = k;
    let depth = 0;
    while (k < masked.length) {
      const code = masked.charCodeAt(k);
      if (code === BACKSLASH) {
        k += 2;
        continue;
      }
      if (isInlineWhitespace(code)) break;
      if (code === OPEN_PAREN) depth++;
      else if (code === CLOSE_PAREN) {
        if (depth === 0) break;
        depth--;
      }
      k++;
    }
    url = text.slice(urlStart, Math.min(k, masked.length));
  }
  while (k < masked.length && isInlineWhitespace(masked.charCodeAt(k))) k++;
  const quote = masked[k];
  if (quote === '"' || quote === "'" || quote === "(") {
    const close = masked.indexOf(quote === "(" ? ")" : quote, k + 1);
    if (close < 0) return null;
    k = close + 1;
    while (k < masked.length && isInlineWhitespace(masked.charCodeAt(k))) k++;
  }
  if (masked.charCodeAt(k) !== CLOSE_PAREN) return null;
  return { url, end: k + 1 };
}

function isEmbedBang(masked: string, index: number, from: number, escapedAt: number): boolean {
  return index >= from && index !== escapedAt && masked.charCodeAt(index) === BANG;
}

// A forward search for `[`, which is a fast built-in, where lastIndexOf("[[") would be a slow one.
function hasWikiOpenBefore(masked: string, from: number, close: number): boolean {
  for (let k = masked.indexOf("[", from); k >= 0 && k < close - 1; k = masked.indexOf("[", k + 1)) {
    if (masked.charCodeAt(k + 1) === OPEN_BRACKET) return true;
  }
  return false;
}

/** The next index at or after `from` of `char` in `text`, reusing `known` when it still lies ahead (-1: none). */
function nextAt(text: string, char: string, known: number, from: number): number {
  return known === -1 || known >= from ? known : text.indexOf(char, from);
}

function earliest(a: number, b: number, c: number): number {
  let min = a;
  if (b >= 0 && (min < 0 || b < min)) min = b;
  if (c >= 0 && (min < 0 || c < min)) min = c;
  return min;
}

/**
 * Scans the lines of one note, fastest in order. Where the next `[`, `#`, `\` and backtick are is searched in the
 * whole note and kept across lines, so a line holding none of them costs no search at all: searching
 * every line for each of them was a large part of parsing a note.
 */
export class InlineScanner {
  // Indexes into the note: -2 not searched yet, -1 none left.
  private nextBracket = -2;
  private nextHash = -2;
  private nextBackslash = -2;
  private nextBacktick = -2;
  /** End of the last line scanned: the searches have moved past what lies before it. */
  private scannedTo = 0;

  /** `origin` is the offset of `note[0]` in the coordinates of `SourceLine.offset`. */
  constructor(
    private readonly note: string,
    private readonly sink: InlineSink,
    private readonly origin = 0,
  ) {}

  /** Scans `line.text` from column `from` and appends what it finds to the sink. */
  scan(line: SourceLine, from: number): void {
    const text = line.text;
    const base = line.offset - this.origin;
    if (base + from < this.scannedTo) this.forget();
    this.scannedTo = base + text.length;
    const sink = this.sink;
    const note = this.note;
    this.nextBacktick = nextAt(note, "`", this.nextBacktick, base + from);
    const hasBacktick = this.nextBacktick >= 0 && this.nextBacktick < base + text.length;
    const masked = hasBacktick ? maskCodeSpans(text, from) : text;
    let nextWikiClose = -2;
    let nextLinkJoin = -2;
    let escapedAt = -1;

    for (let i = from; i < masked.length; i++) {
      this.nextBracket = nextAt(note, "[", this.nextBracket, base + i);
      this.nextHash = nextAt(note, "#", this.nextHash, base + i);
      this.nextBackslash = nextAt(note, "\\", this.nextBackslash, base + i);
      const next = earliest(this.nextBracket, this.nextHash, this.nextBackslash);
      if (next < 0 || next - base >= masked.length) break;
      i = next - base;
      const code = masked.charCodeAt(i);

      if (code === BACKSLASH) {
        if (isAsciiPunctuation(masked.charCodeAt(i + 1))) {
          escapedAt = i + 1;
          i++;
        }
        continue;
      }

      if (code === OPEN_BRACKET && masked.charCodeAt(i + 1) === OPEN_BRACKET) {
        if (nextWikiClose !== -1 && nextWikiClose < i + 2) nextWikiClose = masked.indexOf("]]", i + 2);
        if (nextWikiClose < 0) continue;
        // A later `[[` nearer the `]]` owns it; this bracket is literal and the loop will reach that one.
        if (hasWikiOpenBefore(masked, i + 1, nextWikiClose)) continue;
        const embed = isEmbedBang(masked, i - 1, from, escapedAt);
        const start = embed ? i - 1 : i;
        const end = nextWikiClose + 2;
        const reference = wikiReference(text.slice(i + 2, nextWikiClose), text.slice(start, end));
        if (!reference) continue;
        // Built field by field rather than spread: spreading was the costliest step of parsing a note.
        const { link, original, displayText } = reference;
        (embed ? sink.embeds : sink.links).push({ link, original, displayText, position: position(line, start, end) });
        i = end - 1;
        continue;
      }

      if (code === OPEN_BRACKET) {
        if (nextLinkJoin !== -1 && nextLinkJoin < i) nextLinkJoin = masked.indexOf("](", i);
        if (nextLinkJoin < 0) continue;
        const end = markdownLinkAt(masked, text, i, line, from, isEmbedBang(masked, i - 1, from, escapedAt), sink);
        if (end > 0) i = end - 1;
        continue;
      }

      if (code === HASH && (i === from || isInlineWhitespace(masked.charCodeAt(i - 1)))) {
        let k = i + 1;
        let hasNonDigit = false;
        while (k < masked.length) {
          const tagCode = masked.charCodeAt(k);
          if (endsTag(tagCode)) break;
          if (tagCode < 0x30 || tagCode > 0x39) hasNonDigit = true;
          k++;
        }
        if (k > i + 1 && hasNonDigit) {
          sink.tags.push({ tag: text.slice(i, k), position: position(line, i, k) });
          i = k - 1;
        }
      }
    }
  }

  // Scanning a line again, or an earlier one, is allowed, only slower.
  private forget(): void {
    this.nextBracket = -2;
    this.nextHash = -2;
    this.nextBackslash = -2;
    this.nextBacktick = -2;
  }
}

/** Scans `line.text` from column `from` and appends what it finds to `sink`. */
export function scanInline(line: SourceLine, from: number, sink: InlineSink): void {
  new InlineScanner(line.text, sink, line.offset).scan(line, from);
}

/** Returns the index after the link, or -1 when `[` at `open` does not start a local markdown link. */
function markdownLinkAt(
  masked: string,
  text: string,
  open: number,
  line: SourceLine,
  from: number,
  embed: boolean,
  sink: InlineSink,
): number {
  let depth = 0;
  let close = -1;
  const limit = Math.min(masked.length, open + MAX_LINK_TEXT);
  for (let k = open + 1; k < limit; k++) {
    const code = masked.charCodeAt(k);
    if (code === BACKSLASH) {
      k++;
      continue;
    }
    if (code === OPEN_BRACKET) depth++;
    else if (code === CLOSE_BRACKET) {
      if (depth === 0) {
        close = k;
        break;
      }
      depth--;
    }
  }
  if (close < 0 || masked.charCodeAt(close + 1) !== OPEN_PAREN) return -1;
  const destination = parseDestination(masked, text, close + 2);
  if (!destination) return -1;
  if (destination.url === "" || isExternalUrl(destination.url)) return destination.end;

  const start = embed && open - 1 >= from ? open - 1 : open;
  sink[embed ? "embeds" : "links"].push({
    link: decodeLink(destination.url),
    original: text.slice(start, destination.end),
    displayText: text.slice(open + 1, close),
    position: position(line, start, destination.end),
  });
  return destination.end;
}

export interface TrailingBlockId {
  id: string;
  /** Column of the `^`. */
  col: number;
}

function isBlockIdChar(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x2d;
}

/**
 * A `^block-id` ending the line. It must follow whitespace, the line start or `]` (an embed), so that a
 * formula like `mc^2` is not taken for an id.
 */
export function trailingBlockId(text: string): TrailingBlockId | null {
  let end = text.length;
  while (end > 0 && isInlineWhitespace(text.charCodeAt(end - 1))) end--;
  let k = end;
  while (k > 0 && isBlockIdChar(text.charCodeAt(k - 1))) k--;
  if (k === end || k === 0 || text.charCodeAt(k - 1) !== CARET) return null;
  const caret = k - 1;
  if (caret > 0) {
    const before = text.charCodeAt(caret - 1);
    if (!isInlineWhitespace(before) && before !== CLOSE_BRACKET) return null;
  }
  return { id: text.slice(k, end), col: caret };
}
