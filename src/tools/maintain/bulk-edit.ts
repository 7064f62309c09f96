// What the vault-wide rewriting tools (tag_rename, vault_replace) share: plan over the vault without
// the write lock, refuse before anything is written (limit, guards), then write the notes as one
// transaction through the one write path, ending with a single summary commit (SPEC §8, §9).
import { ToolError } from "../../core/errors";
import type { FrontmatterParses } from "../../core/notes/frontmatter";
import type { VaultEngine } from "../../core/vault/types";
import { decodeNote } from "../../core/write/text";
import type { PreparedWrite } from "../../core/write/write-path";
import type { ToolContext } from "../types";
import { actorOf } from "../write/common";

/**
 * A rewrite of one note's text (LF, no BOM, as the write path hands it over) and how many places
 * changed; `parses` is the write's, for a rewrite that parses frontmatter.
 */
export type NoteRewrite = (path: string, text: string, parses?: FrontmatterParses) => { text: string; occurrences: number };

export interface BulkNote {
  path: string;
  occurrences: number;
  diff: string;
  trash?: string;
}

export interface BulkOutcome {
  notes: BulkNote[];
  occurrences: number;
  warnings: string[];
}

const REFUSALS_LISTED = 5;

/** The note's text as a transform will see it, or null when it cannot be read as text (gone, too large). */
export async function transformText(engine: VaultEngine, path: string): Promise<string | null> {
  try {
    const file = await engine.read(path, { note: true });
    if (file.text === undefined) return null;
    return decodeNote(file.bytes).text;
  } catch {
    return null;
  }
}

const FOLDERS_LISTED = 5;

/** `wiki (12), projects (3)`: where the notes are, so the agent can pick a prefix. */
function folderCounts(paths: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const path of paths) {
    const slash = path.indexOf("/");
    const folder = slash < 0 ? "(vault root)" : path.slice(0, slash);
    counts.set(folder, (counts.get(folder) ?? 0) + 1);
  }
  const sorted = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const listed = sorted.slice(0, FOLDERS_LISTED).map(([folder, count]) => `${folder} (${count})`);
  return listed.join(", ") + (sorted.length > FOLDERS_LISTED ? ", …" : "");
}

/** Refuses before writing when more notes would change than the caller allowed. */
export function enforceLimit(tool: string, affected: readonly string[], limit: number | undefined, narrowing: string): void {
  if (limit === undefined || affected.length <= limit) return;
  throw new ToolError(
    "invalid_argument",
    `${tool} would change ${affected.length} notes, more than limit (${limit}), so nothing was written. They are in: ${folderCounts(affected)}. ${narrowing}, or raise limit to ${affected.length} if every one of them is meant.`,
    { details: { affected: affected.length, limit } },
  );
}

function prefixed(path: string, warnings: readonly string[]): string[] {
  return warnings.map((warning) => `${path}: ${warning}`);
}

export interface BulkEditRequest {
  engine: VaultEngine;
  ctx: ToolContext;
  tool: string;
  paths: readonly string[];
  dryRun: boolean;
  rewrite: NoteRewrite;
  /** The summary commit's subject from the notes and occurrences actually written. */
  subject(notes: number, occurrences: number): string;
  reason?: string | undefined;
}

/**
 * Every note first goes through the write path as a dry run, so its guards (valid frontmatter, no
 * credentials) refuse the whole call before a single note is written; a real run then applies exactly
 * those prepared bytes as one transaction (journaled, all or nothing, one summary commit), so its diffs
 * are the dry run's diffs.
 */
export async function applyBulkEdit(request: BulkEditRequest): Promise<BulkOutcome> {
  const { engine, ctx, tool } = request;
  const actor = actorOf(ctx);
  const previews: Array<{ path: string; prepared: PreparedWrite; occurrences: number }> = [];
  const refusals: string[] = [];
  for (const path of request.paths) {
    let occurrences = 0;
    try {
      const prepared = await engine.writes.prepare({
        path,
        tool,
        mode: "update",
        skip_touch: true,
        actor,
        transform: (current, parses) => {
          const rewritten = request.rewrite(path, current ?? "", parses);
          occurrences = rewritten.occurrences;
          return rewritten.text;
        },
      });
      if (prepared.result.changed) previews.push({ path, prepared, occurrences });
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      refusals.push(`${path}: ${error.message}`);
    }
  }
  if (refusals.length > 0) {
    const listed = refusals.slice(0, REFUSALS_LISTED).join(" | ");
    const more = refusals.length > REFUSALS_LISTED ? ` (and ${refusals.length - REFUSALS_LISTED} more)` : "";
    throw new ToolError(
      "invalid_argument",
      `${tool} was refused for ${refusals.length} note(s), so nothing was written: ${listed}${more}. Fix those notes first, or leave them out with prefix/glob.`,
      { details: { refused: refusals.length } },
    );
  }

  const occurrences = previews.reduce((sum, preview) => sum + preview.occurrences, 0);
  const warnings = previews.flatMap(({ path, prepared }) => prefixed(path, prepared.result.warnings));
  const notes: BulkNote[] = previews.map(({ path, prepared, occurrences: count }) => ({ path, occurrences: count, diff: prepared.result.diff }));
  if (request.dryRun || previews.length === 0) return { notes, occurrences, warnings };

  const outcome = await engine.writes.transaction({
    tool,
    subject: request.subject(previews.length, occurrences),
    meta: {
      tool,
      ...(request.reason !== undefined && request.reason !== "" ? { reason: request.reason } : {}),
      ...(actor.via !== undefined ? { via: actor.via } : {}),
      ...(actor.user !== undefined ? { user: actor.user } : {}),
    },
    commitPaths: previews.map(({ path }) => path),
    steps: previews.map(({ path, prepared }) => ({ kind: "write", path, before: prepared.before, after: prepared.after })),
  });
  for (const note of notes) {
    const trash = outcome.trash.get(note.path);
    if (trash !== undefined) note.trash = trash;
  }
  return { notes, occurrences, warnings: [...warnings, ...outcome.warnings] };
}
