// note_write: replaces a whole note, the one write that always needs the hash of what it replaces.
import { ToolError } from "../../core/errors";
import { splitFrontmatter } from "../../core/notes/frontmatter";
import { pathField, vaultField } from "../common";
import { boolean, object, string, withDefault } from "../schema";
import { defineTool } from "../types";
import {
  actorOf,
  allowInvalidFrontmatterField,
  contentField,
  dryRunField,
  reasonField,
  REPLACES_NOTE,
  writeResult,
} from "./common";
import { missingNote, toLf } from "./edit-common";

// The shared field's text, plus the call that yields a hash: the missing-argument refusal quotes it.
const contentHashField = string({
  description:
    "content_hash from your last note_read (or note_outline) of this note; required, so a whole-note write never overwrites changes you have not seen.",
});

/** The new text: all of `content`, or the current frontmatter block (byte for byte) plus `content`. */
export function replacedText(current: string, content: string, keepFrontmatter: boolean): string {
  if (!keepFrontmatter) return content;
  const split = splitFrontmatter(current);
  if (!split.exists) return content;
  if (splitFrontmatter(content).exists) {
    throw new ToolError(
      "invalid_argument",
      "content starts with a frontmatter block, but keep_frontmatter: true keeps the note's own. Send only the body, or pass keep_frontmatter: false to replace the frontmatter too (or use note_frontmatter for keys).",
    );
  }
  return current.slice(0, split.contentStart) + content;
}

export const noteWrite = defineTool({
  name: "note_write",
  title: "Replace a whole note",
  description:
    "Replaces the entire text of an existing note with `content`. content_hash from your last note_read is required, so changes you have not seen are never overwritten; a stale hash is refused with the current one. keep_frontmatter: true keeps the note's frontmatter block exactly and replaces only the body (also for a note whose frontmatter is over the 64 KiB limit, which other edits of its frontmatter refuse; new frontmatter over the limit is refused as too_large). The old version goes to the trash. Prefer note_edit (exact string replacement), note_section_edit (one section) or note_frontmatter (properties) for partial changes; use note_create for a new note. Returns the write result with the diff.",
  group: "write",
  input: object({
    vault: vaultField,
    path: pathField,
    content: contentField,
    content_hash: contentHashField,
    keep_frontmatter: withDefault(boolean({ description: "Keep the existing frontmatter block unchanged; content replaces only the body." }), false),
    dry_run: dryRunField,
    reason: reasonField,
    allow_invalid_frontmatter: allowInvalidFrontmatterField,
  }),
  annotations: REPLACES_NOTE,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const { path, stat } = await engine.resolve(args.path, { note: "only" });
    if (!stat) throw missingNote(path, engine.name, "note_write replaces existing notes only: create it with note_create, or find the right path with note_search.");
    const content = toLf(args.content);
    const result = await engine.writes.write({
      path,
      tool: "note_write",
      actor: actorOf(ctx),
      mode: "update",
      expected_hash: args.content_hash,
      dry_run: args.dry_run,
      reason: args.reason,
      allow_invalid_frontmatter: args.allow_invalid_frontmatter,
      transform: (current) => replacedText(current ?? "", content, args.keep_frontmatter),
    });
    return writeResult(result);
  },
});
