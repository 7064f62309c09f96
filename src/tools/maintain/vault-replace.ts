// vault_replace: a regular expression (or literal text) replaced over whole note files. Dry run by
// default, and the whole call is planned before anything is written: over `limit`, over the time
// budget or refused by a guard for any note, nothing is written at all.
import { ToolError } from "../../core/errors";
import { expandReplacement, MORE, OVER_BUDGET, PatternBudget, Replacement, WORK_PER_CHECK, type CompileOptions, type Pattern, type Replaced } from "../../core/pattern";
import { fileFilter, globField, prefixField, vaultField } from "../common";
import { compileToolPattern, PATTERN_SYNTAX } from "../patterns";
import { boolean, integer, object, string, withDefault } from "../schema";
import { defineTool } from "../types";
import { reasonField, REPLACES_NOTE } from "../write/common";
import { applyBulkEdit, enforceLimit, transformText } from "./bulk-edit";

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;
/** The plan runs the pattern over every note in scope; past this, the call is refused unapplied. */
const TIME_BUDGET_MS = 5000;
/**
 * A note that changed between the plan and the write is planned again while it is written, without
 * a pause; past this much work that would hold the event loop, so the call is refused instead.
 */
const REPLAN_WORK = 20 * WORK_PER_CHECK;
const ALLOWED_FLAGS = "gimsuv";

/** i, m and s; g is always on, and u and v add nothing (the engine always reads code points). */
function flagsOf(input: string): CompileOptions {
  const given = input.replace(/\s+/g, "");
  const unknown = [...new Set([...given].filter((flag) => !ALLOWED_FLAGS.includes(flag)))];
  if (unknown.length > 0) {
    throw new ToolError(
      "invalid_argument",
      `Unsupported regex flag(s) "${unknown.join("")}". Use i (ignore case), m (^ and $ at line breaks), s (. matches line breaks); g is always on.`,
    );
  }
  return { ignoreCase: given.includes("i"), multiline: given.includes("m"), dotAll: given.includes("s") };
}

function tooSlow(limitMs: number, scanned: number): ToolError {
  return new ToolError(
    "too_large",
    `The pattern took longer than ${limitMs / 1000} s over ${scanned} note(s), so nothing was written. Narrow the notes with prefix or glob, or make the pattern more specific (start it with literal text, avoid a leading .*).`,
    { details: { notes_scanned: scanned } },
  );
}

interface Plan {
  /** The text the plan was made from; a note found different when it is written is planned again. */
  before: string;
  after: Replaced;
}

export const vaultReplace = defineTool({
  name: "vault_replace",
  title: "Replace text across notes",
  description:
    "Replaces a regular expression or, with literal: true, plain text, in whole note files (Markdown notes only, frontmatter included; line breaks read as \\n). Pattern: " +
    PATTERN_SYNTAX +
    "; `flags` i, m, s; always global. `replace` may use $1, $<name>, $& and $$ (taken as typed with literal: true). Over the 5-second planning budget the call is refused and nothing is written. **Dry run by default**: pass dry_run: false to write. When more than `limit` notes (default 20) would change, the call is refused and nothing is written, dry run or not: narrow with prefix/glob or raise limit. Every note is checked by the write guards first, so one refusal stops all. A real run keeps a trash copy of each note and records one history commit. Returns per note `path`, `occurrences` and `diff`. Find matches first with vault_grep; for one note use note_edit; to rename a tag use tag_rename.",
  group: "maintain",
  input: object({
    vault: vaultField,
    pattern: string({ description: "Regular expression (or text with literal: true), e.g. `\\[\\[Old name(\\|[^\\]]*)?\\]\\]`.", raw: true, maxLength: 1000 }),
    replace: string({ description: "Replacement; may be empty to delete matches. $1, $<name>, $& refer to the match, $$ is a $.", raw: true, maxLength: 100000 }),
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
    // Spans of groups cost work per thread; a replacement that names none does without them.
    const groups = !args.literal && /\$(?:[0-9]|<)/.test(args.replace);
    const pattern: Pattern = compileToolPattern(args.pattern, { ...flagsOf(args.flags), captures: groups }, args.literal);
    // A literal replacement keeps `$` as typed; a pattern's expands $1, $<name>, $& as String.replace does.
    const replacement = args.literal ? () => args.replace : (match: Parameters<typeof expandReplacement>[2], text: string) => expandReplacement(args.replace, text, match, pattern.names);
    const keep = fileFilter({ prefix: args.prefix, glob: args.glob }, ctx.now());
    const budget = new PatternBudget(() => ctx.now(), TIME_BUDGET_MS, () => engine.pause());
    const scanner = pattern.scanner();
    const matcher = pattern.matcher();
    const plans = new Map<string, Plan>();

    const affected: string[] = [];
    const warnings: string[] = [];
    let scanned = 0;
    let matching = 0;
    for (const file of engine.files()) {
      if (!file.isNote || !keep(file)) continue;
      if (budget.exceeded) throw tooSlow(TIME_BUDGET_MS, scanned);
      const text = await transformText(engine, file.path);
      if (text === null) {
        warnings.push(`${file.path}: skipped, it could not be read as text (too large or gone).`);
        continue;
      }
      scanned++;
      // Most notes hold no match: the quick yes/no scan spares them the search for spans.
      const found = await budget.next(scanner.reset(text));
      if (found === OVER_BUDGET) throw tooSlow(TIME_BUDGET_MS, scanned);
      if (found < 0) continue;
      const after = await budget.next(new Replacement(matcher, text, (match) => replacement(match, text)));
      if (after === OVER_BUDGET) throw tooSlow(TIME_BUDGET_MS, scanned);
      if (after.count === 0) continue;
      matching++;
      if (after.text === text) continue;
      affected.push(file.path);
      // Only a call inside the limit is written; past it, counting the notes is enough.
      if (plans.size < args.limit) plans.set(file.path, { before: text, after });
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
      rewrite: (path, text) => {
        const plan = plans.get(path);
        if (plan !== undefined && plan.before === text) return { text: plan.after.text, occurrences: plan.after.count };
        const again = new Replacement(pattern.matcher(), text, (match) => replacement(match, text)).run({ left: REPLAN_WORK });
        if (again === MORE) {
          throw new ToolError("conflict", `${path} changed while this call was planned, and planning it again would take too long. Run the same call again.`);
        }
        return { text: again.text, occurrences: again.count };
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
