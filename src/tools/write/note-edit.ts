// note_edit: exact string replacement. Anything but an unambiguous exact match is refused with what
// was found instead, so an agent never edits a place it did not mean.
import { ToolError } from "../../core/errors";
import { pathField, vaultField } from "../common";
import { boolean, object, string, withDefault } from "../schema";
import { defineTool } from "../types";
import { actorOf, contentHashField, dryRunField, reasonField, WRITES_NOTE, writeResult } from "./common";
import { missingNote, toLf } from "./edit-common";

const MAX_LINES_LISTED = 20;

function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) found.push(at);
  return found;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let at = text.indexOf("\n"); at >= 0 && at < offset; at = text.indexOf("\n", at + 1)) line++;
  return line;
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

/** Where a near miss is: the same text in other letter case, or with other whitespace. */
function nearMiss(text: string, needle: string): string {
  const caseless = new RegExp(escapeRegExp(needle), "iu").exec(text);
  if (caseless) return ` A match that differs only in letter case is at line ${lineOf(text, caseless.index)}.`;
  const words = needle.trim().split(/\s+/).filter((word) => word !== "");
  if (words.length === 0) return "";
  const pattern = words.map(escapeRegExp).join("\\s+");
  const spaced = new RegExp(pattern, "u").exec(text);
  if (spaced) return ` A match that differs only in whitespace (spaces, tabs or line breaks) is at line ${lineOf(text, spaced.index)}.`;
  const both = new RegExp(pattern, "iu").exec(text);
  if (both) return ` A match that differs in letter case and whitespace is at line ${lineOf(text, both.index)}.`;
  return "";
}

export interface Replacement {
  text: string;
  replacements: number;
}

/** Replaces `oldString` in `text` (LF), refusing a missing or, without `replaceAll`, ambiguous match. */
export function replaceExact(text: string, path: string, oldString: string, newString: string, replaceAll: boolean): Replacement {
  // A mixed-ending file keeps its CRs in the text, so an old_string with CRLF may match it as sent.
  const needle = oldString.includes("\r\n") && text.includes(oldString) ? oldString : toLf(oldString);
  const replacement = needle === oldString ? newString : toLf(newString);
  const found = occurrences(text, needle);
  if (found.length === 0) {
    throw new ToolError(
      "not_found",
      `old_string was not found in "${path}".${nearMiss(text, needle)} Read the note with note_read (or find the text with vault_grep) and copy old_string exactly, including whitespace and line breaks.`,
      { details: { path } },
    );
  }
  if (found.length > 1 && !replaceAll) {
    const lines = found.slice(0, MAX_LINES_LISTED).map((offset) => lineOf(text, offset));
    throw new ToolError(
      "invalid_argument",
      `old_string occurs ${found.length} times in "${path}" (lines ${lines.join(", ")}${found.length > MAX_LINES_LISTED ? ", …" : ""}). Make old_string longer so it matches only the place you mean, or pass replace_all: true to replace every occurrence.`,
      { details: { path, occurrences: found.length, lines } },
    );
  }
  let result = "";
  let last = 0;
  for (const offset of found) {
    result += text.slice(last, offset) + replacement;
    last = offset + needle.length;
  }
  return { text: result + text.slice(last), replacements: found.length };
}

export const noteEdit = defineTool({
  name: "note_edit",
  title: "Replace text in a note",
  description:
    "Replaces an exact string in a note: old_string must occur exactly once (or pass replace_all: true to replace every occurrence). Copy old_string from note_read, including whitespace and line breaks, and make it long enough to be unique. Refused when old_string is empty, equals new_string, is not found (the error says if a match differing only in case or whitespace exists) or is ambiguous (the error gives the count and line numbers). Pass content_hash from your read to make sure the note did not change in between. Returns the write result with the diff and `replacements` (how many were made). To add text under a heading use note_section_edit; for properties use note_frontmatter.",
  group: "write",
  input: object({
    vault: vaultField,
    path: pathField,
    old_string: string({ description: "The exact text to replace, as note_read shows it.", raw: true }),
    new_string: string({ description: "The text to put in its place (may be empty to delete old_string).", raw: true }),
    replace_all: withDefault(boolean({ description: "Replace every occurrence instead of requiring exactly one." }), false),
    content_hash: contentHashField,
    dry_run: dryRunField,
    reason: reasonField,
  }),
  annotations: WRITES_NOTE,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    if (args.old_string === "") {
      throw new ToolError(
        "invalid_argument",
        "old_string is empty, so there is nothing to find. Pass the exact text to replace (copy it from note_read); to add text use note_section_edit (e.g. mode append_to_note).",
      );
    }
    if (toLf(args.old_string) === toLf(args.new_string)) {
      throw new ToolError("invalid_argument", "old_string and new_string are identical, so nothing would change. Pass the changed text as new_string.");
    }
    const { path, stat } = await engine.resolve(args.path, { note: "only" });
    if (!stat) throw missingNote(path, engine.name, "Find the right path with note_search or note_list, or create the note with note_create.");
    let replacements = 0;
    const result = await engine.writes.write({
      path,
      tool: "note_edit",
      actor: actorOf(ctx),
      mode: "update",
      expected_hash: args.content_hash,
      dry_run: args.dry_run,
      reason: args.reason,
      transform: (current) => {
        const replaced = replaceExact(current ?? "", path, args.old_string, args.new_string, args.replace_all);
        replacements = replaced.replacements;
        return replaced.text;
      },
    });
    return writeResult(result, { replacements });
  },
});
