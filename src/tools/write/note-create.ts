// note_create: a new note, refusing to replace an existing one unless asked to.
import { pathField, vaultField } from "../common";
import { boolean, object, withDefault } from "../schema";
import { defineTool } from "../types";
import { actorOf, contentField, dryRunField, reasonField, WRITES_NOTE, writeResult } from "./common";
import { toLf } from "./edit-common";

export const noteCreate = defineTool({
  name: "note_create",
  title: "Create a note",
  description:
    "Creates a new note at `path` (`.md` added when missing; folders are created) with `content` as its Markdown. created/updated are added to its frontmatter (an explicit frontmatter block at the top of content is kept and only gains those keys; a block over 64 KiB is refused as too_large). An existing note is refused: link to it with [[…]] or change it with note_edit / note_section_edit; pass overwrite: true only to replace it entirely (the old version goes to the trash). Returns the write result: path, content_hash, bytes, diff, warnings (e.g. new broken links). For a note from a template use note_from_template; for a quick unsorted thought use capture.",
  group: "write",
  input: object({
    vault: vaultField,
    path: pathField,
    content: contentField,
    overwrite: withDefault(boolean({ description: "Replace the note if it already exists (its old content goes to the trash)." }), false),
    dry_run: dryRunField,
    reason: reasonField,
  }),
  annotations: WRITES_NOTE,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const { path } = await engine.resolve(args.path, { note: "only" });
    const content = toLf(args.content);
    const result = await engine.writes.write({
      path,
      tool: "note_create",
      actor: actorOf(ctx),
      mode: args.overwrite ? "upsert" : "create",
      dry_run: args.dry_run,
      reason: args.reason,
      transform: () => content,
    });
    return writeResult(result);
  },
});
