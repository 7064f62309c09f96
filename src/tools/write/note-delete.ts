// note_delete: moves a note to the trash (never a plain delete) and says whose links it breaks.
import { pathField, vaultField } from "../common";
import { object } from "../schema";
import { defineTool } from "../types";
import { actorOf, contentHashField, dryRunField, reasonField, REPLACES_NOTE, writeResult } from "./common";
import { missingNote } from "./edit-common";

export const noteDelete = defineTool({
  name: "note_delete",
  title: "Delete a note",
  description:
    "Deletes a note after copying it to the vault's trash (.trash/secondbrain/, kept for the retention period; restorable). Pass content_hash from your read to refuse if the note changed since. The result lists `linked_from`: the notes that still link to it, whose links are now broken; fix them with note_edit, or use note_move / note_merge instead when the content lives on elsewhere. dry_run shows what would be deleted and which links would break.",
  group: "write",
  input: object({ vault: vaultField, path: pathField, content_hash: contentHashField, dry_run: dryRunField, reason: reasonField }),
  annotations: REPLACES_NOTE,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const { path, stat } = await engine.resolve(args.path, { note: "only" });
    if (!stat) throw missingNote(path, engine.name, "Nothing was deleted. Check the path with note_search or note_list.");
    const linkedFrom = [...engine.incoming(path).keys()].filter((source) => source !== path).sort();
    const result = await engine.writes.remove({ path, tool: "note_delete", actor: actorOf(ctx), expected_hash: args.content_hash, dry_run: args.dry_run, reason: args.reason });
    if (linkedFrom.length > 0) {
      const shown = linkedFrom.slice(0, 20).join(", ") + (linkedFrom.length > 20 ? `, and ${linkedFrom.length - 20} more` : "");
      result.warnings.push(
        `${linkedFrom.length} note(s) link to ${path}; those links ${args.dry_run ? "would be" : "are now"} broken: ${shown}. Fix them with note_edit, or restore the note from the trash.`,
      );
    }
    return writeResult(result, { linked_from: linkedFrom });
  },
});
