// note_restore: brings back the exact bytes of a note (or attachment) at a revision of the history,
// through the write path — the state it replaces gets a trash copy and a diff, `updated` is left alone.
import { ToolError } from "../../core/errors";
import { extname } from "../../core/notes/paths";
import { restoreVersion } from "../../core/write/restore";
import { pathField, vaultField } from "../common";
import { object } from "../schema";
import { defineTool } from "../types";
import { actorOf, contentHashField, dryRunField, reasonField, REPLACES_NOTE, writeResult } from "../write/common";
import { requireHistory, revisionField } from "./common";

export const noteRestore = defineTool({
  name: "note_restore",
  title: "Restore an earlier version of a note",
  description:
    "Puts back a note (or attachment) exactly as it was at `revision` (a commit id from note_history). Works for deleted notes too. It is a normal write: the current state goes to the trash first, the result carries the diff, and dry_run shows it without writing; pass content_hash from your last read to refuse if the note changed meanwhile. `updated` in the frontmatter is not touched. Recorded in the history as note_restore(history). Compare first with note_diff.",
  group: "history",
  input: object({
    vault: vaultField,
    path: pathField,
    revision: revisionField,
    content_hash: contentHashField,
    dry_run: dryRunField,
    reason: reasonField,
  }),
  annotations: REPLACES_NOTE,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const history = requireHistory(engine, "note_restore");
    const path = (await engine.resolve(args.path, { note: "or-attachment" })).path;
    const bytes = await history.readAt(path, args.revision);
    if (bytes === null) {
      throw new ToolError(
        "not_found",
        `${path} did not exist at revision ${args.revision}, so there is nothing to restore. Call note_history with this path to list the revisions where it exists.`,
        { details: { path, revision: args.revision } },
      );
    }
    const reason = args.reason ?? `restored ${path} as of ${args.revision}`;
    const actor = actorOf(ctx);
    if (extname(path) !== "md") {
      const result = await engine.writes.writeBinary({ path, tool: "note_restore(history)", actor, bytes, overwrite: true, dry_run: args.dry_run, reason, existing_name: true });
      return writeResult(result, { revision: args.revision });
    }
    const result = await restoreVersion(engine.writes, {
      path,
      bytes,
      source: "history",
      dry_run: args.dry_run,
      reason,
      actor,
      ...(args.content_hash !== undefined ? { expected_hash: args.content_hash } : {}),
    });
    return writeResult(result, { revision: args.revision });
  },
});
