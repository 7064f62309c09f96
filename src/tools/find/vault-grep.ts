// vault_grep: a regular expression over note text, line by line, with context. For exact strings and
// patterns that ranked search cannot express. Patterns run on the linear-time engine (core/pattern),
// so no pattern and no line length can hold the server; the time budget holds inside one line too.
import { stripBom } from "../../core/notes/structure";
import { MORE, OVER_BUDGET, PatternBudget } from "../../core/pattern";
import { fileFilter, globField, limitField, prefixField, vaultField } from "../common";
import { compileToolPattern, PATTERN_SYNTAX } from "../patterns";
import { boolean, integer, object, string, withDefault } from "../schema";
import { READ_ONLY, defineTool } from "../types";

/** Lines longer than this are returned as a window of this many characters around the match. */
const MAX_LINE_CHARS = 4000;
const TIME_BUDGET_MS = 5000;

interface LineSpan {
  start: number;
  /** Where the line's text ends (before \r\n or \n). */
  end: number;
  /** Where the next line starts, or -1 after the last line. */
  next: number;
}

function lineAround(text: string, at: number): LineSpan {
  const start = at === 0 ? 0 : text.lastIndexOf("\n", at - 1) + 1;
  const newline = text.indexOf("\n", at);
  if (newline < 0) return { start, end: text.length, next: -1 };
  return { start, end: newline > start && text.charCodeAt(newline - 1) === 0x0d ? newline - 1 : newline, next: newline + 1 };
}

/** Never cut between the two halves of a surrogate pair. */
function safeCut(text: string, at: number): number {
  return at > 0 && at < text.length && (text.charCodeAt(at) & 0xfc00) === 0xdc00 ? at - 1 : at;
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let at = text.indexOf("\n", from); at >= 0 && at < to; at = text.indexOf("\n", at + 1)) count++;
  return count;
}

interface GrepMatch {
  path: string;
  line: number;
  text: string;
  /** Present when a line was over MAX_LINE_CHARS: where `text` starts in the line, and the line's length. */
  text_start?: number;
  line_length?: number;
  before?: string[];
  after?: string[];
  shortened?: true;
}

class Lines {
  shortened = false;

  constructor(private readonly text: string) {}

  /** A context line, cut to its first MAX_LINE_CHARS characters. */
  context(span: LineSpan): string {
    if (span.end - span.start <= MAX_LINE_CHARS) return this.text.slice(span.start, span.end);
    this.shortened = true;
    return this.text.slice(span.start, safeCut(this.text, span.start + MAX_LINE_CHARS));
  }

  before(span: LineSpan, count: number): string[] {
    const lines: string[] = [];
    let start = span.start;
    while (lines.length < count && start > 0) {
      const previous = lineAround(this.text, start - 1);
      lines.unshift(this.context(previous));
      start = previous.start;
    }
    return lines;
  }

  after(span: LineSpan, count: number): string[] {
    const lines: string[] = [];
    let next = span.next;
    while (lines.length < count && next >= 0 && next <= this.text.length) {
      const following = lineAround(this.text, next);
      lines.push(this.context(following));
      next = following.next;
    }
    return lines;
  }
}

function entryFor(path: string, text: string, line: number, span: LineSpan, matchEnd: number, context: number): GrepMatch {
  const lines = new Lines(text);
  const length = span.end - span.start;
  let entry: GrepMatch;
  if (length <= MAX_LINE_CHARS) {
    entry = { path, line, text: text.slice(span.start, span.end) };
  } else {
    // A window around where the match ends, so the match (or its end, for a long one) is in it.
    const column = matchEnd - span.start;
    const from = safeCut(text, span.start + Math.max(0, Math.min(column - MAX_LINE_CHARS / 2, length - MAX_LINE_CHARS)));
    const to = safeCut(text, Math.min(span.end, from + MAX_LINE_CHARS));
    entry = { path, line, text: text.slice(from, to), text_start: from - span.start, line_length: length };
    lines.shortened = true;
  }
  if (context > 0) {
    entry.before = lines.before(span, context);
    entry.after = lines.after(span, context);
  }
  if (lines.shortened) entry.shortened = true;
  return entry;
}

export const vaultGrep = defineTool({
  name: "vault_grep",
  title: "Grep notes",
  description: `Finds lines matching a regular expression in the vault's notes, with line numbers and context lines. Pattern: ${PATTERN_SYNTAX}. Use for exact strings, code, URLs or patterns; use note_search for ranked topic search. Lines over ${MAX_LINE_CHARS.toLocaleString("en-US")} characters come back as a window around the match (shortened, text_start, line_length). Reports notes_scanned, and truncated when the match limit or the ${TIME_BUDGET_MS / 1000}-second time budget (time_budget_reached) was reached, with what was found until then.`,
  group: "find",
  input: object({
    vault: vaultField,
    pattern: string({ description: "Regular expression (RE2 syntax), e.g. `TODO\\b` or `https?://example\\.com`.", raw: true, minLength: 1, maxLength: 500 }),
    literal: withDefault(boolean({ description: "Treat the pattern as plain text." }), false),
    case_sensitive: withDefault(boolean({ description: "Match case exactly." }), false),
    prefix: prefixField,
    glob: globField,
    context: withDefault(integer({ description: "Lines of context before and after each match (0–5).", minimum: 0, maximum: 5 }), 0),
    limit: limitField(100, 1000),
  }),
  annotations: READ_ONLY,
  largeResults: true,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const pattern = compileToolPattern(args.pattern, { ignoreCase: !args.case_sensitive, captures: false }, args.literal);
    const scanner = pattern.scanner({ lines: true });
    const keep = fileFilter(args, ctx.now());
    const budget = new PatternBudget(() => ctx.now(), TIME_BUDGET_MS, () => engine.pause());
    const matches: GrepMatch[] = [];
    let notesScanned = 0;
    let total = 0;
    let truncated = false;
    let outOfTime = false;
    notes: for (const file of engine.files()) {
      if (!file.isNote || !keep(file)) continue;
      if (budget.exceeded) {
        outOfTime = true;
        break;
      }
      let text: string | undefined;
      try {
        text = (await engine.read(file.path)).text;
      } catch {
        continue;
      }
      if (text === undefined) continue;
      text = stripBom(text);
      notesScanned += 1;
      let from = 0;
      let line = 0;
      for (;;) {
        const found = scanner.reset(text, from).run(budget);
        const end = found === MORE ? await budget.resume(scanner) : found;
        if (end === OVER_BUDGET) {
          outOfTime = true;
          break notes;
        }
        if (end < 0) break;
        const span = lineAround(text, end);
        line += countNewlines(text, from, span.start);
        total += 1;
        if (matches.length < args.limit) matches.push(entryFor(file.path, text, line + 1, span, end, args.context));
        else truncated = true;
        if (span.next < 0) break;
        from = span.next;
        line += 1;
      }
    }
    return {
      vault: engine.name,
      pattern: args.pattern,
      total,
      returned: matches.length,
      notes_scanned: notesScanned,
      truncated: truncated || outOfTime,
      time_budget_reached: outOfTime,
      matches,
    };
  },
});
