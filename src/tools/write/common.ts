// Arguments and annotations shared by the write tools, so `dry_run`, `reason` and `content_hash` mean
// the same everywhere.
import type { WriteActor, WriteResult } from "../../core/write/write-path";
import { boolean, optional, string, withDefault } from "../schema";
import type { ToolAnnotations, ToolContext } from "../types";

export const dryRunField = withDefault(boolean({ description: "Show the diff without writing anything." }), false);
export const reasonField = optional(
  string({ description: "Why this change is made, in a few words; recorded in the vault's history.", maxLength: 500 }),
);
export const contentHashField = optional(
  string({ description: "content_hash from your last read; the write is refused if the note changed since." }),
);
export const requiredContentHashField = string({
  description: "content_hash from your last read of this note (required: a whole-note write must not overwrite unseen changes).",
});
export const contentField = string({ description: "Markdown text.", raw: true });
export const allowInvalidFrontmatterField = withDefault(
  boolean({ description: "Write even if the resulting frontmatter is not valid YAML." }),
  false,
);

/** Changes one note, keeps a trash copy of what it replaces, can be repeated safely with a hash. */
export const WRITES_NOTE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};

/** Replaces or removes content (still recoverable from the trash). */
export const REPLACES_NOTE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};

/** The common write result of SPEC §8 step 7, as a plain object for structuredContent. */
export function writeResult(result: WriteResult, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...result, ...extra };
}

/** The caller, as the history's `Via:` and `User:` trailers name it. */
export function actorOf(ctx: ToolContext): WriteActor {
  const actor: WriteActor = { user: ctx.user.name };
  if (ctx.clientName !== undefined && ctx.clientName !== "") actor.via = ctx.clientName;
  return actor;
}
