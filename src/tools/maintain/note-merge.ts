// note_merge: folds one note into another. The source's body goes under a heading at the end of the
// target with a provenance comment, its name and aliases become aliases of the target, its tags join
// the target's, every link to it is redirected, and the source goes to the trash: one transaction,
// completed or undone at the next start if the server dies half way. Dry run first.
import { formatMoment } from "../../core/dates-format";
import { ToolError } from "../../core/errors";
import { FRONTMATTER_LIMIT_TEXT, parseFrontmatter, splitFrontmatter, type FrontmatterParses } from "../../core/notes/frontmatter";
import type { NewLinkFormat } from "../../core/notes/link-resolver";
import { basename, extname } from "../../core/notes/paths";
import { planMerge } from "../../core/maintain/merge-plan";
import { applyPlannedEdits } from "../../core/maintain/move-plan";
import { decodeNote } from "../../core/write/text";
import type { PreparedWrite } from "../../core/write/write-path";
import type { VaultEngine } from "../../core/vault/types";
import { pathField, vaultField } from "../common";
import { object, optional, string } from "../schema";
import { defineTool } from "../types";
import { actorOf, contentHashField, dryRunField, reasonField, REPLACES_NOTE } from "../write/common";
import { missingNote, resolveNoteTarget } from "../write/edit-common";
import { applyFrontmatterRequest } from "../write/note-frontmatter";

const MERGE_LEVEL = 2;

async function linkFormat(engine: VaultEngine): Promise<NewLinkFormat> {
  const format = (await engine.appConfig("app"))?.newLinkFormat;
  return format === "relative" || format === "absolute" ? format : "shortest";
}

function stringsOf(value: unknown): string[] {
  const list = Array.isArray(value) ? (value as unknown[]) : value === undefined || value === null ? [] : [value];
  return list.filter((item): item is string => typeof item === "string" && item.trim() !== "").map((item) => item.trim());
}

function keyOf(data: Record<string, unknown>, pattern: RegExp): unknown {
  const key = Object.keys(data).find((name) => pattern.test(name));
  return key === undefined ? undefined : data[key];
}

/**
 * The source's body as it will read inside the target: its links already redirected, a first
 * `# Title` that only repeats the merge heading dropped, the other headings nested below it.
 */
function mergedBody(text: string, headings: readonly { line: number; level: number; heading: string }[], heading: string): string {
  const lines = text.split("\n");
  const split = splitFrontmatter(text);
  const bodyStart = split.exists ? text.slice(0, split.contentStart).split("\n").length - 1 : 0;
  const first = headings[0];
  const leading = first !== undefined && first.heading.trim() === heading && lines.slice(bodyStart, first.line).every((line) => line.trim() === "");
  const kept = leading ? headings.slice(1) : headings;
  const shallowest = Math.min(...kept.map((entry) => entry.level));
  const shift = kept.length > 0 && shallowest <= MERGE_LEVEL ? MERGE_LEVEL + 1 - shallowest : 0;
  for (const { line, level } of kept) {
    const current = lines[line];
    if (current !== undefined && shift > 0) lines[line] = "#".repeat(Math.min(6, level + shift) - level) + current;
  }
  const bodyLines = lines.slice(bodyStart).filter((_, index) => !(leading && index === first.line - bodyStart));
  return `${bodyLines.join("\n").replace(/^\n+/, "").replace(/\s+$/, "")}\n`;
}

export const noteMerge = defineTool({
  name: "note_merge",
  title: "Merge a note into another",
  description:
    "Merges the note at `path` into the note `into`: the source's body is appended to the target under a `## heading` (default: the source's title) with a provenance comment, its headings nested below it; the source's name and aliases become aliases of the target and its frontmatter tags join the target's; every link to the source in the vault is redirected to the target (plain links keep showing the old name, embeds show the merged section, #heading and #^block links keep pointing at their text); then the source goes to the trash. dry_run shows every diff and writes nothing. One history commit. Use note_move to rename a note instead.",
  group: "maintain",
  input: object({
    vault: vaultField,
    path: pathField,
    into: string({ description: "The note that receives the content and keeps existing." }),
    heading: optional(string({ description: "Heading the merged content goes under; default the source's title." })),
    content_hash: contentHashField,
    dry_run: dryRunField,
    reason: reasonField,
  }),
  annotations: REPLACES_NOTE,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const { path: source, stat: sourceStat } = await resolveNoteTarget(engine, args.path);
    if (!sourceStat) throw missingNote(source, engine.name, "Find the note to merge with note_search or note_list.");
    const { path: target, stat: targetStat } = await resolveNoteTarget(engine, args.into);
    if (!targetStat) throw missingNote(target, engine.name, "`into` must be an existing note; to rename a note use note_move.");
    if (source === target) throw new ToolError("invalid_argument", "`path` and `into` are the same note; pass two different notes.");
    if (extname(source) !== "md" || extname(target) !== "md") throw new ToolError("invalid_path", "note_merge merges notes (.md files) only.");

    const sourceRead = await engine.read(source);
    if (args.content_hash !== undefined && sourceRead.content_hash !== args.content_hash) {
      throw new ToolError("conflict", `Note "${source}" changed since you read it (content_hash is now ${sourceRead.content_hash}). Read it again and retry.`, { state: "not_applied" });
    }
    const sourceText = decodeNote(sourceRead.bytes).text;
    const facts = engine.noteFacts(source);
    const heading = (args.heading ?? facts?.title ?? basename(source).replace(/\.md$/i, "")).trim();
    if (heading === "" || heading.includes("\n")) throw new ToolError("invalid_argument", "heading must be one non-empty line.");

    const plan = planMerge({
      files: engine.files().map((file) => file.path),
      source,
      target,
      heading,
      format: await linkFormat(engine),
      cache: (path) => engine.cache(path),
    });
    const headings = (engine.cache(source)?.headings ?? []).map((entry) => ({ line: entry.position.start.line, level: entry.level, heading: entry.heading }));
    const redirectedSource = applyPlannedEdits(sourceText, plan.sourceBody);
    if (redirectedSource === null) throw new ToolError("conflict", `"${source}" changed while the merge was planned; call note_merge again.`, { state: "not_applied" });
    const body = mergedBody(redirectedSource, headings, heading);

    const sourceFrontmatter = parseFrontmatter(sourceText);
    const sourceData = sourceFrontmatter.data ?? {};
    const aliases = [basename(source).replace(/\.md$/i, ""), ...stringsOf(keyOf(sourceData, /^alias(es)?$/i))];
    const tags = stringsOf(keyOf(sourceData, /^tags?$/i)).map((tag) => tag.replace(/^#/, ""));
    const targetPlan = plan.notes.find((file) => file.path === target);
    const others = plan.notes.filter((file) => file.path !== target);
    const stamp = formatMoment(ctx.now(), "YYYY-MM-DD");
    const section = `## ${heading}\n\n<!-- merged from ${source} on ${stamp} -->\n\n${body}`;
    const buildTarget = (current: string, parses: FrontmatterParses): string => {
      const linked = targetPlan ? applyPlannedEdits(current, targetPlan.edits) : current;
      if (linked === null) throw new ToolError("conflict", `"${target}" changed while the merge was planned; call note_merge again.`, { state: "not_applied" });
      const withAliases = applyFrontmatterRequest(linked, { add_aliases: aliases, add_tags: tags }, { parses, path: target }).text;
      return `${withAliases.replace(/\s+$/, "")}\n\n${section}`;
    };
    const actor = actorOf(ctx);
    const links = plan.notes.reduce((sum, file) => sum + file.edits.length, 0);
    // Every write is worked out first (a guard's refusal writes nothing), then applied as one
    // transaction: target, links, the source to the trash last; one summary commit.
    const targetPrepared = await engine.writes.prepare({
      path: target,
      tool: "note_merge",
      mode: "update",
      actor,
      allow_invalid_frontmatter: true,
      transform: (current, parses) => buildTarget(current ?? "", parses),
    });
    const warnings = [...targetPrepared.result.warnings];
    if (sourceFrontmatter.oversize !== null) {
      warnings.push(`The frontmatter of ${source} is over the ${FRONTMATTER_LIMIT_TEXT} limit and is not parsed, so its aliases and tags were not carried over; its trash copy keeps it.`);
    }
    const prepared: Array<{ file: (typeof others)[number]; prepared: PreparedWrite }> = [];
    for (const file of others) {
      const result = await engine.writes.prepare({
        path: file.path,
        tool: "note_merge",
        mode: "update",
        skip_touch: true,
        allow_invalid_frontmatter: true,
        actor,
        transform: (current) => {
          const applied = applyPlannedEdits(current ?? "", file.edits);
          if (applied === null) throw new ToolError("conflict", `"${file.path}" changed while the merge was planned; call note_merge again.`, { state: "not_applied" });
          return applied;
        },
      });
      warnings.push(...result.result.warnings);
      prepared.push({ file, prepared: result });
    }
    const removal = await engine.writes.prepareRemove({ path: source, tool: "note_merge", expected_hash: sourceRead.content_hash });
    const outcome = args.dry_run
      ? null
      : await engine.writes.transaction({
          tool: "note_merge",
          subject: `note_merge: ${source} -> ${target} (${links} links updated)`,
          meta: {
            tool: "note_merge",
            ...(args.reason !== undefined ? { reason: args.reason } : {}),
            ...(actor.via !== undefined ? { via: actor.via } : {}),
            ...(actor.user !== undefined ? { user: actor.user } : {}),
          },
          commitPaths: [source, target, ...others.map((file) => file.path)],
          steps: [
            { kind: "write", path: target, before: targetPrepared.before, after: targetPrepared.after },
            ...prepared.map(({ file, prepared: write }) => ({ kind: "write" as const, path: file.path, before: write.before, after: write.after })),
            { kind: "remove", path: source, before: removal.before },
          ],
        });
    const trashOf = (path: string): { trash?: string } => {
      const trash = outcome?.trash.get(path);
      return trash !== undefined ? { trash } : {};
    };
    const results = prepared.map(({ file, prepared: write }) => ({
      path: file.path,
      edits: file.edits.map((edit) => ({ line: edit.line + 1, before: edit.before, after: edit.after })),
      diff: write.result.diff,
      ...trashOf(file.path),
    }));
    const base = {
      vault: engine.name,
      path: source,
      into: target,
      heading,
      dry_run: args.dry_run,
      links_updated: links,
      target: { path: target, diff: targetPrepared.result.diff, ...trashOf(target) },
      source: { path: source, deleted: !args.dry_run, ...trashOf(source) },
      total: results.length,
      returned: results.length,
      notes: results,
    };
    if (args.dry_run) {
      return { ...base, warnings, message: `Dry run: merging ${source} into ${target} would redirect ${links} links. Call again without dry_run to merge.` };
    }
    warnings.push(...(outcome?.warnings ?? []));
    return { ...base, warnings, message: `Merged ${source} into ${target} under "${heading}"; ${links} links now point to ${target}; the source is in the trash.` };
  },
});
