// Argument fields and result helpers shared by many tools, so each name means one thing everywhere.
import { parseDateArg } from "../core/dates";
import { ToolError } from "../core/errors";
import { compileGlob, MAX_GLOB_LENGTH } from "../core/notes/glob";
import { resolveVaultPath } from "../core/notes/paths";
import { readWindow, type ReadWindow } from "../core/notes/window";
import type { FileRecord } from "../core/vault/types";
import { integer, optional, string, stringList, withDefault } from "./schema";
import type { ToolContext, ToolResult } from "./types";

export const vaultField = optional(string({ description: "Vault name; omit for the default vault (see vault_list)." }));
export const pathField = string({ description: "Vault-relative path of the note, e.g. `wiki/topic.md` (`.md` may be omitted)." });
export const prefixField = optional(string({ description: "Only paths inside this folder, e.g. `projects/alpha`." }));
export const globField = optional(
  string({
    description: `Only paths matching this glob (letter case ignored), e.g. \`**/*.md\`, \`journal/2026-*\`, \`**/*.{png,canvas}\`: \`*\` and \`?\` stay within a folder, \`**\` crosses folders. At most ${MAX_GLOB_LENGTH} characters.`,
    maxLength: MAX_GLOB_LENGTH,
  }),
);
export const tagsField = optional(stringList({ description: "Only notes carrying all of these tags (without `#`)." }));
export const modifiedAfterField = optional(
  string({ description: "Only files modified after this: YYYY-MM-DD, RFC 3339, YYYY-MM, `today`, or a span like `7d`." }),
);
export const offsetField = withDefault(integer({ description: "Skip this many results (paging).", minimum: 0 }), 0);

export function limitField(fallback: number, maximum: number) {
  return withDefault(integer({ description: `At most this many results (default ${fallback}, max ${maximum}).`, minimum: 1, maximum }), fallback);
}

export interface PathFilterArgs {
  prefix?: string | undefined;
  glob?: string | undefined;
  modified_after?: string | undefined;
}

/** A predicate over file records built from the common filter arguments. */
export function fileFilter(args: PathFilterArgs, now: number): (record: FileRecord) => boolean {
  const folder = args.prefix ? normalizeFolder(args.prefix) : "";
  const glob = args.glob ? compileGlob(args.glob) : null;
  const after = args.modified_after ? parseDateArg(args.modified_after, now, "modified_after") : null;
  return (record) => {
    if (folder && !record.path.startsWith(folder)) return false;
    if (glob && !glob.test(record.path)) return false;
    if (after !== null && record.mtime <= after) return false;
    return true;
  };
}

/** `projects/alpha/` → `projects/alpha/`; validated with the path rules so dot-folders stay out. */
export function normalizeFolder(prefix: string): string {
  const trimmed = prefix.trim().replace(/\\/g, "/").replace(/^\.\//, "").replace(/\/+$/, "");
  if (trimmed === "" || trimmed === "/") return "";
  return resolveVaultPath(trimmed) + "/";
}

export function page<T>(items: readonly T[], offset: number, limit: number): { total: number; returned: number; items: T[] } {
  const slice = items.slice(offset, offset + limit);
  return { total: items.length, returned: slice.length, items: slice };
}

export { isoTime as iso } from "../core/dates";

export function hasAllTags(noteTags: readonly string[], wanted: readonly string[]): boolean {
  return allTagsMatcher(wanted)(noteTags);
}

/** `hasAllTags` with the wanted tags normalised once, for checking many notes. */
export function allTagsMatcher(wanted: readonly string[]): (noteTags: readonly string[]) => boolean {
  // A wanted parent tag matches nested tags too: `topic` matches `topic/knowledge`.
  const tags = wanted.map((tag) => {
    const normalized = tag.replace(/^#/, "").replace(/^\/+|\/+$/g, "").toLowerCase();
    return { normalized, parent: `${normalized}/` };
  });
  return (noteTags) => tags.every(({ normalized, parent }) => noteTags.some((have) => have === normalized || have.startsWith(parent)));
}

export function requireNote(record: FileRecord | undefined, path: string, vault: string): FileRecord {
  if (!record) {
    throw new ToolError("not_found", `Note "${path}" does not exist in vault "${vault}". Call note_search or note_list to find it.`, {
      details: { path },
    });
  }
  return record;
}

/**
 * The result `build` makes of a window of at most `maxBytes` from `offset`, the window shortened until
 * that result fits the response limit. It then ends early with an exact next_byte_offset; a cut of the
 * encoded response instead would drop the text between this window's end and the next one's start.
 */
export function fittingWindow(
  ctx: ToolContext,
  bytes: Uint8Array,
  offset: number,
  maxBytes: number,
  build: (window: ReadWindow, shortened: boolean) => ToolResult,
): ToolResult {
  const window = readWindow(bytes, offset, maxBytes);
  const full = build(window, false);
  const budget = ctx.response;
  if (!budget || budget.fits(full)) return full;
  const attempt = (length: number): ToolResult | undefined => {
    try {
      return build(readWindow(bytes, offset, length), true);
    } catch {
      return undefined; // shorter than the character at offset
    }
  };
  let best: ToolResult | undefined;
  let low = 1;
  let high = window.byte_count - 1;
  while (low <= high) {
    const middle = Math.floor((low + high) / 2);
    const result = attempt(middle);
    if (result !== undefined && budget.fits(result)) {
      best = result;
      low = middle + 1;
    } else if (result === undefined) low = middle + 1;
    else high = middle - 1;
  }
  // Not even one character fits beside the other fields: the smallest window, for the cut to handle.
  return best ?? attempt(4) ?? full;
}
