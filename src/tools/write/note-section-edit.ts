// note_section_edit: changes one section (or the start or end of a note) without restating the rest.
import { ToolError } from "../../core/errors";
import { applySectionEdit, SECTION_EDIT_MODES, type SectionEditMode } from "../../core/notes/section-edit";
import { parseNote } from "../../core/notes/structure";
import { pathField, vaultField } from "../common";
import { boolean, object, optional, string, withDefault } from "../schema";
import { defineTool } from "../types";
import { actorOf, contentHashField, dryRunField, reasonField, WRITES_NOTE, writeResult } from "./common";
import { missingNote } from "./edit-common";

function sectionMode(value: string): SectionEditMode {
  const mode = SECTION_EDIT_MODES.find((known) => known === value);
  if (!mode) throw new ToolError("invalid_argument", `Unknown mode "${value}"; use one of ${SECTION_EDIT_MODES.join(", ")}.`);
  return mode;
}

export const noteSectionEdit = defineTool({
  name: "note_section_edit",
  title: "Edit one section of a note",
  description: [
    "Edits the section under a heading, or the start or end of a note. A section runs from its heading to the next heading of the same or a higher level, so its sub-sections belong to it. `heading` is the heading text as note_outline lists it (leading #s ignored); it is matched exactly, then case-insensitively, then as a prefix, and an ambiguous match is refused with the candidates.",
    "Modes: replace_section (replaces everything under the heading, sub-sections included, and keeps the heading line; if content itself starts with a heading line, that line replaces the heading too), append_to_section (at the end of the section, after its sub-sections), prepend_to_section (right after the heading line), insert_before_section / insert_after_section (new text before the heading / after the whole section), delete_section (no content), append_to_note / prepend_to_note (no heading; prepend goes after the frontmatter).",
    "content is inserted as a Markdown block: a blank line keeps it apart from neighbouring text, except that list items next to list items and table rows next to table rows are joined so lists and tables continue. Afterwards runs of 3+ blank lines around the edit collapse to 2 and the note ends with one newline. create: true creates a missing note first and, for append/prepend/replace_section, adds a missing heading at the end of the note (level from the #s in heading, default ##).",
    "Returns the write result with the diff. For an exact string change use note_edit; for properties note_frontmatter.",
  ].join(" "),
  group: "write",
  input: object({
    vault: vaultField,
    path: pathField,
    heading: optional(string({ description: "Heading text of the section (as note_outline lists it). Not used by append_to_note / prepend_to_note." })),
    mode: string({ description: "What to do; see the tool description.", enum: SECTION_EDIT_MODES }),
    content: withDefault(string({ description: "Markdown to insert or to replace the section with (omit for delete_section).", raw: true }), ""),
    create: withDefault(boolean({ description: "Create the note (and, for section modes, the heading) when missing." }), false),
    content_hash: contentHashField,
    dry_run: dryRunField,
    reason: reasonField,
  }),
  annotations: WRITES_NOTE,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const mode = sectionMode(args.mode);
    const { path, stat } = await engine.resolve(args.path, { note: "only" });
    if (!stat && !args.create) {
      throw missingNote(path, engine.name, "Pass create: true to create it with this content, or find the right path with note_search or note_list.");
    }
    const result = await engine.writes.write({
      path,
      tool: `note_section_edit(${mode})`,
      actor: actorOf(ctx),
      mode: args.create ? "upsert" : "update",
      expected_hash: args.content_hash,
      dry_run: args.dry_run,
      reason: args.reason,
      transform: (current, parses) => {
        const text = current ?? "";
        return applySectionEdit(text, parseNote(text, parses), { mode, heading: args.heading, content: args.content, createHeading: args.create });
      },
    });
    return writeResult(result, { mode });
  },
});
