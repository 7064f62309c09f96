// note_move: moves or renames a note and rewrites every link that pointed at it, as Obsidian does.
// The plan comes first (the dry run shows every edit); then the rename and the rewrites run as one
// transaction (journaled, completed or undone after a crash). The rename goes through the host — in
// Obsidian FileManager.renameFile, which rewrites links itself — and each planned rewrite the host
// did not make is made through the write path, so the result is the same in both hosts and the agent
// sees a diff of every touched note. One summary commit records it all.
import { ToolError } from "../../core/errors";
import { LinkResolver, type NewLinkFormat } from "../../core/notes/link-resolver";
import { basename, dirname, stripSubpath } from "../../core/notes/paths";
import { applyPlannedEdits, planMove, type PlannedFile } from "../../core/maintain/move-plan";
import { unifiedDiff } from "../../core/write/diff";
import { decodeNote } from "../../core/write/text";
import type { PreparedWrite } from "../../core/write/write-path";
import type { VaultEngine } from "../../core/vault/types";
import { pathField, vaultField } from "../common";
import { object, string } from "../schema";
import { defineTool } from "../types";
import { actorOf, contentHashField, dryRunField, reasonField, REPLACES_NOTE } from "../write/common";
import { missingNote, resolveNoteTarget } from "../write/edit-common";

interface NoteChange {
  path: string;
  edits: Array<{ line: number; before: string; after: string }>;
  diff: string;
  trash?: string;
}

async function linkFormat(engine: VaultEngine): Promise<NewLinkFormat> {
  const app = await engine.appConfig("app");
  const format = app?.newLinkFormat;
  return format === "relative" || format === "absolute" ? format : "shortest";
}

/** `to` as given, a folder (`archive/`) keeping the note's name, or a bare name keeping its folder. */
function targetInput(from: string, to: string): string {
  const trimmed = to.trim();
  if (trimmed.endsWith("/")) return `${trimmed}${basename(from)}`;
  if (!trimmed.includes("/")) {
    const folder = dirname(from);
    return folder === "" ? trimmed : `${folder}/${trimmed}`;
  }
  return trimmed;
}

/** The write path's broken-link warning (see write-path.ts). */
const BROKEN_LINK_WARNING = /^line \d+: \[\[(.*)\]\] does not resolve/;

function textOf(bytes: Uint8Array): string {
  return decodeNote(bytes).text;
}

export const noteMove = defineTool({
  name: "note_move",
  title: "Move or rename a note",
  description:
    "Moves or renames a note and rewrites every link to it in every other note — wikilinks with or without folder and .md, headings and blocks (#…), aliases (|…), embeds (![[…]]), markdown links, relative links and frontmatter links — exactly as Obsidian does; links that still resolve stay as they are. `to` is the new path (`archive/Old name.md`), a folder ending in / (keeps the name), or a bare new name (keeps the folder). dry_run lists every planned edit with a diff per note and writes nothing. Each rewritten note gets a trash copy; the move is one history commit. Refuses when `to` exists (merge with note_merge instead).",
  group: "maintain",
  input: object({
    vault: vaultField,
    path: pathField,
    to: string({ description: "The new path, a folder ending in /, or a new name in the same folder." }),
    content_hash: contentHashField,
    dry_run: dryRunField,
    reason: reasonField,
  }),
  annotations: REPLACES_NOTE,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const { path: from, stat } = await resolveNoteTarget(engine, args.path);
    if (!stat) throw missingNote(from, engine.name, "Find it with note_search or note_list, then move it by its exact path.");
    const { path: to, stat: existing } = await resolveNoteTarget(engine, targetInput(from, args.to));
    if (to === from) throw new ToolError("invalid_argument", `"${from}" is already at that path; pass a different \`to\`.`);
    if (existing) {
      throw new ToolError("conflict", `"${to}" already exists; nothing was moved. Pick another path, or combine the two notes with note_merge.`, { state: "not_applied", details: { path: to } });
    }
    engine.checkNewPath(to);
    if (args.content_hash !== undefined) {
      const current = await engine.read(from);
      if (current.content_hash !== args.content_hash) {
        throw new ToolError("conflict", `Note "${from}" changed since you read it (content_hash is now ${current.content_hash}). Read it again with note_read and retry.`, { state: "not_applied" });
      }
    }

    const files = engine.files().map((file) => file.path);
    const plan = planMove({
      files,
      from,
      to,
      format: await linkFormat(engine),
      cache: (path) => engine.cache(path),
      aliases: (path) => engine.noteFacts(path)?.aliases ?? [],
    });
    const actor = actorOf(ctx);
    // Every rewrite is worked out by the write path before anything moves (bytes, encoding, guards).
    // Its broken-link check sees the vault before the move, where the new path does not exist yet.
    const afterMove = new LinkResolver(files.map((path) => (path === from ? to : path)));
    const planned = new Map<PlannedFile, { prepared: PreparedWrite; before: string; after: string }>();
    for (const file of plan) {
      const texts = { before: "", after: "" };
      const prepared = await engine.writes.prepare({
        path: file.path,
        tool: "note_move",
        mode: "update",
        skip_touch: true,
        allow_invalid_frontmatter: true,
        actor,
        transform: (current) => {
          const after = applyPlannedEdits(current ?? "", file.edits);
          if (after === null) {
            throw new ToolError("conflict", `"${file.path}" changed while the move was planned; nothing was moved. Call note_move again.`, { state: "not_applied", retry: "inspect_state" });
          }
          texts.before = current ?? "";
          texts.after = after;
          return after;
        },
      });
      prepared.result.warnings = prepared.result.warnings.filter((warning) => {
        const link = BROKEN_LINK_WARNING.exec(warning)?.[1];
        return link === undefined || afterMove.resolve(stripSubpath(link), file.pathAfter) === null;
      });
      planned.set(file, { prepared, ...texts });
    }
    const edits = plan.reduce((sum, file) => sum + file.edits.length, 0);
    const changes = (trash: ReadonlyMap<string, string> = new Map()): NoteChange[] =>
      plan.map((file) => {
        const { before, after } = planned.get(file)!;
        const change: NoteChange = {
          path: file.pathAfter,
          edits: file.edits.map((edit) => ({ line: edit.line + 1, before: edit.before, after: edit.after })),
          diff: unifiedDiff(file.pathAfter, before, after),
        };
        const copy = trash.get(file.pathAfter);
        if (copy !== undefined) change.trash = copy;
        return change;
      });
    const base = { vault: engine.name, from, to, links_updated: edits, notes_updated: plan.length };
    if (args.dry_run) {
      return {
        ...base,
        dry_run: true,
        total: plan.length,
        returned: plan.length,
        notes: changes(),
        warnings: [],
        message: `Dry run: moving ${from} to ${to} would update ${edits} links in ${plan.length} notes. Call again without dry_run to move it.`,
      };
    }

    // One transaction: the rename (in Obsidian FileManager.renameFile, which may rewrite links itself),
    // then each planned rewrite the host did not make; one summary commit at the end.
    const outcome = await engine.writes.transaction({
      tool: "note_move",
      subject: `note_move: ${from} -> ${to} (${edits} links updated)`,
      meta: {
        tool: "note_move",
        ...(args.reason !== undefined ? { reason: args.reason } : {}),
        ...(actor.via !== undefined ? { via: actor.via } : {}),
        ...(actor.user !== undefined ? { user: actor.user } : {}),
      },
      commitPaths: [from, to, ...plan.map((file) => file.pathAfter).filter((path) => path !== to)],
      steps: [
        { kind: "rename", from, to },
        ...plan.map((file) => {
          const { prepared } = planned.get(file)!;
          return { kind: "write" as const, path: file.pathAfter, before: prepared.before, after: prepared.after };
        }),
      ],
    });
    const warnings = plan.flatMap((file) => planned.get(file)!.prepared.result.warnings);
    for (const file of plan) {
      const rewritten = outcome.rewrittenByHost.get(file.pathAfter);
      if (rewritten === undefined) continue;
      warnings.push(`${file.pathAfter}: the links were rewritten differently than planned (by the app); its changes since the move: ${unifiedDiff(file.pathAfter, planned.get(file)!.before, textOf(rewritten))}`);
    }
    warnings.push(...outcome.warnings);
    return {
      ...base,
      dry_run: false,
      total: plan.length,
      returned: plan.length,
      notes: changes(outcome.trash),
      warnings,
      message: `Moved ${from} to ${to}; ${edits} links in ${plan.length} notes now point to the new path.`,
    };
  },
});
