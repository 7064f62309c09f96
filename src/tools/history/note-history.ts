// note_history and note_diff: the recorded versions of a note, and what changed between two of them
// or between one and the note as it is now.
import { ToolError } from "../../core/errors";
import { unifiedDiff } from "../../core/write/diff";
import { decodeNote } from "../../core/write/text";
import { iso, limitField, offsetField, pathField, vaultField } from "../common";
import { object, optional } from "../schema";
import { READ_ONLY, defineTool } from "../types";
import { isBinary, requireHistory, revisionField } from "./common";

export const noteHistory = defineTool({
  name: "note_history",
  title: "List the versions of a note",
  description:
    "Lists the recorded versions of a note (or attachment) in the vault's history, newest first: `commit` (short id to pass as `revision`/`from`/`to`), `when`, `author`, `message` (`tool(mode): path`), `reason` when one was given, `via` (the MCP client that wrote) and `user`. A version is listed where the file changed, appeared or was deleted; every tool write is recorded (a vault-wide change as one summary commit). Works for deleted notes too. Page with limit/offset. Next: note_diff to compare, note_restore to bring a version back.",
  group: "history",
  input: object({ vault: vaultField, path: pathField, limit: limitField(20, 200), offset: offsetField }),
  annotations: READ_ONLY,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const history = requireHistory(engine, "note_history");
    const path = (await engine.resolve(args.path, { note: "or-attachment" })).path;
    const found = await history.log(path, args.offset + args.limit + 1);
    const more = found.length > args.offset + args.limit;
    const revisions = found.slice(args.offset, args.offset + args.limit).map((entry) => {
      const [subject = "", ...rest] = entry.message.split("\n");
      const reason = rest.join("\n").trim();
      return {
        commit: entry.short,
        id: entry.id,
        when: iso(entry.when),
        author: entry.author,
        message: subject,
        ...(reason !== "" ? { reason } : {}),
        ...(entry.via !== undefined ? { via: entry.via } : {}),
        ...(entry.user !== undefined ? { user: entry.user } : {}),
      };
    });
    const result: Record<string, unknown> = {
      vault: engine.name,
      path,
      total: Math.min(found.length, args.offset + args.limit) + (more ? 1 : 0),
      returned: revisions.length,
      offset: args.offset,
      revisions,
    };
    if (more) {
      result.total_estimated = true;
      result.next_offset = args.offset + revisions.length;
    }
    if (found.length === 0) {
      result.hint = engine.file(path)
        ? `No recorded version of ${path} yet: tool writes are recorded, and the first start's baseline, but not changes made outside this server. Its current text: note_read.`
        : `${path} never appears in this vault's history. Check the path with note_list or note_search.`;
    }
    return result;
  },
});

const WORKING_COPY = "working copy";

export const noteDiff = defineTool({
  name: "note_diff",
  title: "Compare versions of a note",
  description:
    "Shows a unified diff (3 lines of context) of a note between two revisions (`from`, `to`: commit ids from note_history, or HEAD), or between a revision and the note as it is now (omit `to`). Omit `from` as well to compare the newest recorded version with the current text. Says \"(no difference)\" when both are the same. A side where the note did not exist diffs as empty (/dev/null).",
  group: "history",
  input: object({
    vault: vaultField,
    path: pathField,
    from: optional(revisionField),
    to: optional(revisionField),
  }),
  annotations: READ_ONLY,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const history = requireHistory(engine, "note_diff");
    const path = (await engine.resolve(args.path, { note: "or-attachment" })).path;
    let from = args.from;
    if (from === undefined || from === "") {
      const newest = (await history.log(path, 1))[0];
      if (!newest) {
        throw new ToolError("not_found", `${path} has no recorded version to compare with. Call note_history to check, or note_read for its current text.`, { details: { path } });
      }
      from = newest.short;
    }
    const before = await history.readAt(path, from);
    let after: Uint8Array | null;
    if (args.to === undefined || args.to === "") {
      const { stat } = await engine.resolve(path);
      after = stat ? (await engine.read(path)).bytes : null;
    } else {
      after = await history.readAt(path, args.to);
    }
    const to = args.to === undefined || args.to === "" ? WORKING_COPY : args.to;
    if (before === null && after === null) {
      throw new ToolError("not_found", `${path} exists neither at ${from} nor at ${to}. Call note_history with this path to see the revisions where it exists.`, { details: { path } });
    }
    const base = { vault: engine.name, path, from, to, exists_before: before !== null, exists_after: after !== null };
    const same = before !== null && after !== null && before.length === after.length && before.every((byte, index) => byte === after[index]);
    if (same) return { ...base, identical: true, diff: "", message: "(no difference)" };
    if (isBinary(before) || isBinary(after)) {
      return { ...base, identical: false, binary: true, diff: "", message: `Binary file ${path} differs between ${from} and ${to}.` };
    }
    const text = (bytes: Uint8Array | null): string | null => (bytes === null ? null : decodeNote(bytes).text);
    const diff = unifiedDiff(path, text(before), text(after));
    // Same text in a different byte form: a BOM or CRLF line endings came or went.
    if (diff === "") return { ...base, identical: false, diff: "", message: "Same text; only the byte form differs (BOM or line endings)." };
    return { ...base, identical: false, diff, message: `Changes from ${from} to ${to}.` };
  },
});
