// vault_grep: a regular expression over note text, line by line, with context. For exact strings and
// patterns that ranked search cannot express.
import { ToolError } from "../../core/errors";
import { stripBom } from "../../core/notes/structure";
import { fileFilter, globField, limitField, prefixField, vaultField } from "../common";
import { boolean, integer, object, string, withDefault } from "../schema";
import { READ_ONLY, defineTool } from "../types";

/** Long lines are cut before matching so a pathological line cannot stall the server. */
const MAX_LINE_CHARS = 4000;
const TIME_BUDGET_MS = 5000;

function compile(pattern: string, caseSensitive: boolean, literal: boolean): RegExp {
  const source = literal ? pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : pattern;
  try {
    return new RegExp(source, caseSensitive ? "u" : "iu");
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolError(
      "invalid_argument",
      `The pattern is not a valid regular expression (${reason}). Escape special characters or pass literal: true.`,
    );
  }
}

export const vaultGrep = defineTool({
  name: "vault_grep",
  title: "Grep notes",
  description:
    "Finds lines matching a regular expression (JavaScript syntax) in the vault's notes, with line numbers and context lines. Use for exact strings, code, URLs or patterns; use note_search for ranked topic search. Reports notes_scanned and truncated when the match limit or time budget was reached.",
  group: "find",
  input: object({
    vault: vaultField,
    pattern: string({ description: "Regular expression, e.g. `TODO\\b` or `https?://example\\.com`.", raw: true, minLength: 1, maxLength: 500 }),
    literal: withDefault(boolean({ description: "Treat the pattern as plain text." }), false),
    case_sensitive: withDefault(boolean({ description: "Match case exactly." }), false),
    prefix: prefixField,
    glob: globField,
    context: withDefault(integer({ description: "Lines of context before and after each match (0–5).", minimum: 0, maximum: 5 }), 0),
    limit: limitField(100, 1000),
  }),
  annotations: READ_ONLY,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const regex = compile(args.pattern, args.case_sensitive, args.literal);
    const keep = fileFilter(args, ctx.now());
    const started = ctx.now();
    const matches: Array<{ path: string; line: number; text: string; before?: string[]; after?: string[] }> = [];
    let notesScanned = 0;
    let total = 0;
    let truncated = false;
    for (const file of engine.files()) {
      if (!file.isNote || !keep(file)) continue;
      if (ctx.now() - started > TIME_BUDGET_MS) {
        truncated = true;
        break;
      }
      let text: string | undefined;
      try {
        text = (await engine.read(file.path)).text;
      } catch {
        continue;
      }
      if (text === undefined) continue;
      notesScanned += 1;
      const lines = stripBom(text).split(/\r?\n/);
      for (let index = 0; index < lines.length; index++) {
        const line = lines[index]!.slice(0, MAX_LINE_CHARS);
        if (!regex.test(line)) continue;
        total += 1;
        if (matches.length >= args.limit) {
          truncated = true;
          continue;
        }
        const entry: (typeof matches)[number] = { path: file.path, line: index + 1, text: line };
        if (args.context > 0) {
          entry.before = lines.slice(Math.max(0, index - args.context), index);
          entry.after = lines.slice(index + 1, index + 1 + args.context);
        }
        matches.push(entry);
      }
    }
    return {
      vault: engine.name,
      pattern: args.pattern,
      total,
      returned: matches.length,
      notes_scanned: notesScanned,
      truncated,
      matches,
    };
  },
});
