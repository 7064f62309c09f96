// Snippets show an agent why a note matched without a second call: a window of the body around the
// densest cluster of query words, each marked <<like this>>. Words are compared in their index form,
// so the marks agree with what the index matched (Größe for "grosse", snapshots for "snapshot").
import type { ParsedQuery, QueryTerm } from "./query";
import { containsCjk, forEachWordPiece, pieceTerm } from "./tokenizer";

export const SNIPPET_CHARS = 200;
/** The scan for marks goes on this many windows past the last query word first seen. */
const SCAN_AFTER_NEW_WORD = 3;
const MIN_SNIPPET_CHARS = 20;
const BOUNDARY_SEARCH_CHARS = 20;
const WHITESPACE_RUN = /\s+/g;
const WHITESPACE = /\s/;
const NON_SPACE = /\S/;

export interface SnippetOptions {
  /** Length of the window, in characters of the body; about 200 by default. */
  maxChars?: number;
  /**
   * The index terms the hit matched (SearchHit.terms): inflections and expansions of the query's
   * words (snapshots for "snapshot") are marked as the index found them.
   */
  matchedTerms?: readonly string[];
}

interface Mark {
  start: number;
  end: number;
  /** The query word it matched: windows with more distinct ones win. */
  label: string;
}

interface Matcher {
  exact: ReadonlyMap<string, string>;
  prefixes: readonly string[];
  cjk: readonly string[];
}

/**
 * A window of about `maxChars` characters of `body` around the densest cluster of matches, matches
 * wrapped in `<<` `>>`, whitespace collapsed, `…` where the body was cut. Pass the body without its
 * frontmatter. Without any visible match (a note found by a near-miss spelling) it is the body's start.
 */
export function makeSnippet(body: string, query: ParsedQuery, options: SnippetOptions = {}): string {
  const maxChars = Math.max(MIN_SNIPPET_CHARS, Math.floor(options.maxChars ?? SNIPPET_CHARS));
  const matcher = matcherFor(query, options.matchedTerms ?? []);
  const scanFrom = scanStart(body, matcher, maxChars);
  let marks = findMarks(body, matcher, scanFrom, SCAN_AFTER_NEW_WORD * maxChars);
  if (marks.length === 0 && scanFrom > 0) marks = findMarks(body, matcher, 0, SCAN_AFTER_NEW_WORD * maxChars);
  if (marks.length === 0) return leadingText(body, maxChars);
  const { first, last } = densestCluster(marks, maxChars);
  const clusterStart = marks[first]!.start;
  const clusterEnd = marks[last]!.end;
  const slack = Math.max(0, maxChars - (clusterEnd - clusterStart));
  let from = Math.max(0, clusterStart - Math.floor(slack / 2));
  let to = Math.min(body.length, Math.max(clusterEnd, from + maxChars));
  from = Math.max(0, Math.min(from, to - maxChars));
  from = snapStart(body, from, clusterStart);
  to = snapEnd(body, to, clusterEnd);
  return render(body, from, to, marks.slice(first, last + 1));
}

function matcherFor(query: ParsedQuery, matchedTerms: readonly string[]): Matcher {
  const words: QueryTerm[] = [...query.terms, ...query.required];
  for (const group of query.groups) for (const alternative of group.alternatives) words.push(...alternative.terms);
  const strong = words.filter((word) => !word.weak);
  const shown = strong.length > 0 ? strong : words;
  const exact = new Map<string, string>();
  const prefixes: string[] = [];
  const cjk: string[] = [];
  const addWord = (term: string, prefix: boolean): void => {
    if (containsCjk(term)) cjk.push(term);
    else if (prefix) prefixes.push(term);
    else exact.set(term, term);
  };
  for (const word of shown) addWord(word.term, word.prefix);
  const weak = new Set(words.filter((word) => word.weak).map((word) => word.term));
  for (const term of matchedTerms) if (!containsCjk(term) && !(strong.length > 0 && weak.has(term))) addWord(term, false);
  const phrases = [...query.phrases];
  for (const group of query.groups) for (const alternative of group.alternatives) phrases.push(...alternative.phrases);
  for (const phrase of phrases) for (const word of phrase) addWord(word, false);
  return { exact, prefixes, cjk };
}

/**
 * Where to start looking for marks: a little before the first place any query word occurs as plain
 * lower-case text. Tokenizing a whole long note to mark a word in its first paragraph is most of the
 * cost of a snippet; a word found only through folding (Größe for "grosse") is still found, later,
 * by the scan itself.
 */
function scanStart(body: string, matcher: Matcher, maxChars: number): number {
  const lower = body.toLowerCase();
  let first = -1;
  for (const term of [...matcher.exact.keys(), ...matcher.prefixes, ...matcher.cjk]) {
    const at = lower.indexOf(term);
    if (at >= 0 && (first < 0 || at < first)) first = at;
  }
  if (first <= maxChars) return 0;
  // Back to a whitespace, so the scan never starts inside a word (which would look like a shorter word).
  for (let at = first - maxChars; at > 0 && first - at <= 2 * maxChars; at--) {
    if (WHITESPACE.test(body[at - 1]!)) return at;
  }
  return 0;
}

/**
 * The marks from `from` on, until no query word seen for the first time has turned up for `scanAfter`
 * characters: the window is chosen among those, the rest of the note is never tokenized.
 */
function findMarks(body: string, matcher: Matcher, from: number, scanAfter: number): Mark[] {
  const marks: Mark[] = [];
  const labels = new Set<string>();
  let stopAt = Infinity;
  const add = (mark: Mark): void => {
    marks.push(mark);
    if (labels.has(mark.label)) return;
    labels.add(mark.label);
    stopAt = mark.start + scanAfter;
  };
  forEachWordPiece(
    body,
    (piece, start, cjk) => {
      if (start > stopAt) return false;
      if (cjk) {
        for (const mark of cjkMarks(piece, start, matcher.cjk)) add(mark);
        return true;
      }
      const term = pieceTerm(piece);
      if (term === null) return true;
      const label = matcher.exact.get(term) ?? matcher.prefixes.find((prefix) => term.startsWith(prefix));
      if (label !== undefined) add({ start, end: start + piece.length, label });
      return true;
    },
    from,
  );
  return marks;
}

function cjkMarks(piece: string, offset: number, terms: readonly string[]): Mark[] {
  if (terms.length === 0) return [];
  const found: Mark[] = [];
  for (const term of terms) {
    for (let at = piece.indexOf(term); at >= 0; at = piece.indexOf(term, at + term.length)) {
      found.push({ start: offset + at, end: offset + at + term.length, label: term });
    }
  }
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Mark[] = [];
  for (const mark of found) {
    const previous = merged[merged.length - 1];
    if (previous && mark.start < previous.end) previous.end = Math.max(previous.end, mark.end);
    else merged.push({ ...mark });
  }
  return merged;
}

/** The run of marks within `maxChars` with the most distinct query words, then the most marks. */
function densestCluster(marks: readonly Mark[], maxChars: number): { first: number; last: number } {
  const counts = new Map<string, number>();
  let distinct = 0;
  let best = { first: 0, last: 0, distinct: 0, count: 0 };
  let last = -1;
  for (let first = 0; first < marks.length; first++) {
    const start = marks[first]!.start;
    while (last + 1 < marks.length && (last < first || marks[last + 1]!.end - start <= maxChars)) {
      last += 1;
      const label = marks[last]!.label;
      const count = counts.get(label) ?? 0;
      if (count === 0) distinct += 1;
      counts.set(label, count + 1);
    }
    const count = last - first + 1;
    if (distinct > best.distinct || (distinct === best.distinct && count > best.count)) {
      best = { first, last, distinct, count };
    }
    const label = marks[first]!.label;
    const remaining = (counts.get(label) ?? 1) - 1;
    if (remaining === 0) distinct -= 1;
    counts.set(label, remaining);
  }
  return { first: best.first, last: best.last };
}

/** Moves a cut start to the beginning of a word, never past `limit`. */
function snapStart(text: string, from: number, limit: number): number {
  if (from === 0 || WHITESPACE.test(text[from - 1]!) || WHITESPACE.test(text[from]!)) return from;
  for (let at = from; at < limit && at - from <= BOUNDARY_SEARCH_CHARS; at++) {
    if (WHITESPACE.test(text[at]!)) return at + 1;
  }
  for (let at = from - 1; at > 0 && from - at <= BOUNDARY_SEARCH_CHARS; at--) {
    if (WHITESPACE.test(text[at - 1]!)) return at;
  }
  return from;
}

/** Moves a cut end to the end of a word, never before `limit`. */
function snapEnd(text: string, to: number, limit: number): number {
  if (to >= text.length || WHITESPACE.test(text[to]!) || WHITESPACE.test(text[to - 1]!)) return to;
  for (let at = to; at > limit && to - at <= BOUNDARY_SEARCH_CHARS; at--) {
    if (WHITESPACE.test(text[at - 1]!)) return at - 1;
  }
  for (let at = to; at < text.length && at - to <= BOUNDARY_SEARCH_CHARS; at++) {
    if (WHITESPACE.test(text[at]!)) return at;
  }
  return to;
}

function render(text: string, from: number, to: number, marks: readonly Mark[]): string {
  let inner = "";
  let cursor = from;
  for (const mark of marks) {
    if (mark.start < cursor || mark.end > to) continue;
    inner += collapse(text.slice(cursor, mark.start)) + "<<" + collapse(text.slice(mark.start, mark.end)) + ">>";
    cursor = mark.end;
  }
  inner = (inner + collapse(text.slice(cursor, to))).trim();
  const cutBefore = NON_SPACE.test(text.slice(0, from));
  const cutAfter = NON_SPACE.test(text.slice(to));
  return (cutBefore ? "…" : "") + inner + (cutAfter ? "…" : "");
}

function leadingText(body: string, maxChars: number): string {
  const start = body.length - body.trimStart().length;
  if (body.length - start <= maxChars) return collapse(body.slice(start)).trim();
  const end = snapEnd(body, start + maxChars, start + 1);
  return collapse(body.slice(start, end)).trim() + "…";
}

function collapse(text: string): string {
  return text.replace(WHITESPACE_RUN, " ");
}
