// vault_replace: a regular expression (or literal text) replaced over whole note files. Dry run by
// default, and the whole call is planned before anything is written: over `limit`, over the time
// budget or refused by a guard for any note, nothing is written at all.
import { ToolError } from "../../core/errors";
import { fileFilter, globField, prefixField, vaultField } from "../common";
import { boolean, integer, object, string, withDefault } from "../schema";
import { defineTool } from "../types";
import { reasonField, REPLACES_NOTE } from "../write/common";
import { applyBulkEdit, enforceLimit, transformText } from "./bulk-edit";

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;
/** The plan runs the pattern over every note in scope; past this, the call is refused unapplied. */
const TIME_BUDGET_MS = 5000;
const CLOCK_CHECK_EVERY = 256;
const ALLOWED_FLAGS = "gimsuv";

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `g` always; `u` unless the caller chose `v`, so `.` never splits a character outside the BMP. */
function flagsOf(input: string): string {
  const given = input.replace(/\s+/g, "");
  const unknown = [...new Set([...given].filter((flag) => !ALLOWED_FLAGS.includes(flag)))];
  if (unknown.length > 0) {
    throw new ToolError(
      "invalid_argument",
      `Unsupported regex flag(s) "${unknown.join("")}". Use i (ignore case), m (^ and $ at line breaks), s (. matches line breaks), u or v; g is always on.`,
    );
  }
  const flags = new Set(["g", ...given]);
  if (!flags.has("v")) flags.add("u");
  else flags.delete("u");
  return [...flags].sort().join("");
}

/**
 * Star height above one (`(a+)+`, `(\w*\s?)*`, `(x+){2,}`) is the shape of catastrophic backtracking.
 * A single match cannot be interrupted from here, so such patterns are refused up front; the time
 * budget catches slow patterns of other shapes between matches and between notes.
 */
export function nestedQuantifier(source: string): boolean {
  const groups: boolean[] = [];
  let inClass = false;
  let closedUnbounded = false;
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    const afterGroup = closedUnbounded;
    closedUnbounded = false;
    if (char === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (char === "]") inClass = false;
      continue;
    }
    if (char === "[") {
      inClass = true;
    } else if (char === "(") {
      groups.push(false);
    } else if (char === ")") {
      closedUnbounded = groups.pop() ?? false;
    } else if (char === "*" || char === "+" || (char === "{" && /^\{\d+,\}/.test(source.slice(i)))) {
      if (afterGroup) return true;
      groups.fill(true);
    }
  }
  return false;
}

function compile(pattern: string, flags: string, literal: boolean): RegExp {
  if (!literal && nestedQuantifier(pattern)) {
    throw new ToolError(
      "invalid_argument",
      "The pattern repeats a group that itself contains a repetition (like (a+)+), which can take exponential time. Rewrite it without the nested repetition (e.g. (a+)+ → a+), or pass literal: true for plain text.",
    );
  }
  try {
    return new RegExp(literal ? escapeRegExp(pattern) : pattern, flags);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolError("invalid_argument", `The pattern is not a valid regular expression (${reason}). Escape special characters, or pass literal: true for plain text.`);
  }
}

class Budget {
  private readonly started: number;

  constructor(
    private readonly now: () => number,
    private readonly limitMs: number,
  ) {
    this.started = now();
  }

  check(scanned: number): void {
    if (this.now() - this.started <= this.limitMs) return;
    throw new ToolError(
      "too_large",
      `The pattern took longer than ${this.limitMs / 1000} s over ${scanned} note(s), so nothing was written. Narrow the notes with prefix or glob, or simplify the pattern (anchor it, avoid leading .* and nested repetition).`,
      { details: { notes_scanned: scanned } },
    );
  }
}

interface Replacer {
  regex: RegExp;
  replace: string;
  literal: boolean;
}

function countMatches(text: string, regex: RegExp, budget: Budget, scanned: number): number {
  regex.lastIndex = 0;
  let count = 0;
  for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
    count++;
    // An empty match would match again at the same place; step past one character (a whole code point).
    if (match[0] === "") regex.lastIndex += (text.codePointAt(match.index) ?? 0) > 0xffff ? 2 : 1;
    if (count % CLOCK_CHECK_EVERY === 0) budget.check(scanned);
  }
  return count;
}

function replaceAll(text: string, replacer: Replacer): string {
  // A literal replacement keeps `$` as typed; a regex one expands $1, $<name>, $& as JavaScript does.
  return replacer.literal ? text.replace(replacer.regex, () => replacer.replace) : text.replace(replacer.regex, replacer.replace);
}

export const vaultReplace = defineTool({
  name: "vault_replace",
  title: "Replace text across notes",
  description:
    "Replaces a regular expression (JavaScript syntax; `flags` such as i, m, s; always global) or, with literal: true, plain text, in whole note files (Markdown notes only, frontmatter included; line breaks read as \\n). `replace` may use $1, $<name> and $& (taken as typed with literal: true). **Dry run by default**: pass dry_run: false to write. When more than `limit` notes (default 20) would change, the call is refused and nothing is written, dry run or not: narrow with prefix/glob or raise limit. Every note is checked by the write guards first, so one refusal stops all. A real run keeps a trash copy of each note and records one history commit. Returns per note `path`, `occurrences` and `diff`. Find matches first with vault_grep; for one note use note_edit; to rename a tag use tag_rename.",
  group: "maintain",
  input: object({
    vault: vaultField,
    pattern: string({ description: "Regular expression (or text with literal: true), e.g. `\\[\\[Old name(\\|[^\\]]*)?\\]\\]`.", raw: true, maxLength: 1000 }),
    replace: string({ description: "Replacement; may be empty to delete matches. $1, $<name>, $& refer to the match.", raw: true, maxLength: 100000 }),
    literal: withDefault(boolean({ description: "Treat pattern and replace as plain text." }), false),
    flags: withDefault(string({ description: "Regex flags: i (ignore case), m (^/$ per line), s (. matches \\n); g is implied.", maxLength: 8 }), ""),
    prefix: prefixField,
    glob: globField,
    limit: withDefault(integer({ description: `Refuse (writing nothing) when more notes than this would change (default ${DEFAULT_LIMIT}).`, minimum: 1, maximum: MAX_LIMIT }), DEFAULT_LIMIT),
    dry_run: withDefault(boolean({ description: "Only show the diffs (the default); pass false to write." }), true),
    reason: reasonField,
  }),
  annotations: REPLACES_NOTE,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    if (args.pattern === "") {
      throw new ToolError("invalid_argument", "pattern is empty, so there is nothing to find. Pass the text or regular expression to replace; check what it matches with vault_grep.");
    }
    if (args.literal && args.pattern === args.replace) {
      throw new ToolError("invalid_argument", "pattern and replace are the same text, so nothing would change. Pass the new text as replace.");
    }
    const replacer: Replacer = { regex: compile(args.pattern, flagsOf(args.flags), args.literal), replace: args.replace, literal: args.literal };
    const keep = fileFilter({ prefix: args.prefix, glob: args.glob }, ctx.now());
    const budget = new Budget(() => ctx.now(), TIME_BUDGET_MS);

    const affected: string[] = [];
    const warnings: string[] = [];
    let scanned = 0;
    let matching = 0;
    for (const file of engine.files()) {
      if (!file.isNote || !keep(file)) continue;
      const text = await transformText(engine, file.path);
      if (text === null) {
        warnings.push(`${file.path}: skipped, it could not be read as text (too large or gone).`);
        continue;
      }
      scanned++;
      if (countMatches(text, replacer.regex, budget, scanned) === 0) continue;
      matching++;
      if (replaceAll(text, replacer) !== text) affected.push(file.path);
      budget.check(scanned);
    }
    const scope = args.prefix !== undefined || args.glob !== undefined ? " in the chosen prefix/glob" : "";
    if (matching === 0) {
      throw new ToolError("not_found", `The pattern matches nothing in the ${scanned} note(s)${scope}. Check it with vault_grep (same pattern, literal and prefix/glob), then try again.`, {
        details: { notes_scanned: scanned },
      });
    }
    if (affected.length === 0) {
      throw new ToolError("invalid_argument", `The pattern matches in ${matching} note(s), but the replacement leaves every match as it was; nothing would change. Pass a different replace.`);
    }
    enforceLimit("vault_replace", affected, args.limit, "Narrow the notes with prefix or glob (a dry run inside the limit shows the diffs)");

    const outcome = await applyBulkEdit({
      engine,
      ctx,
      tool: "vault_replace",
      paths: affected,
      dryRun: args.dry_run,
      rewrite: (_path, text) => {
        const count = countMatches(text, replacer.regex, new Budget(() => ctx.now(), TIME_BUDGET_MS), 1);
        return { text: replaceAll(text, replacer), occurrences: count };
      },
      subject: (notes, occurrences) => `vault_replace: ${notes} note${notes === 1 ? "" : "s"}, ${occurrences} occurrence${occurrences === 1 ? "" : "s"}`,
      reason: args.reason,
    });
    const count = outcome.notes.length;
    return {
      vault: engine.name,
      pattern: args.pattern,
      dry_run: args.dry_run,
      total: count,
      returned: count,
      notes_scanned: scanned,
      notes: outcome.notes,
      occurrences: outcome.occurrences,
      warnings: [...warnings, ...outcome.warnings],
      message: args.dry_run
        ? `Dry run: nothing was written. ${outcome.occurrences} occurrence(s) in ${count} note(s) would be replaced; call again with dry_run: false to apply these diffs.`
        : `Replaced ${outcome.occurrences} occurrence(s) in ${count} note(s), recorded as one history commit; each note's previous text is in the trash.`,
    };
  },
});
