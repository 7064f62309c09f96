// note_frontmatter: properties without touching the body. Only the keys that change are rewritten
// (editFrontmatter), so comments, order and quoting of everything else stay byte for byte.
import { ToolError } from "../../core/errors";
import { FRONTMATTER_LIMIT_BYTES, parseFrontmatter, type FrontmatterParses } from "../../core/notes/frontmatter";
import { editFrontmatter, oversizeFrontmatterError, type FrontmatterChange } from "../../core/write/frontmatter-edit";
import { pathField, vaultField } from "../common";
import { object, optional, record, stringList } from "../schema";
import { defineTool } from "../types";
import { actorOf, contentHashField, dryRunField, reasonField, WRITES_NOTE, writeResult } from "./common";
import { missingNote } from "./edit-common";

export interface FrontmatterRequest {
  set?: Record<string, unknown> | undefined;
  unset?: readonly string[] | undefined;
  add_tags?: readonly string[] | undefined;
  remove_tags?: readonly string[] | undefined;
  add_aliases?: readonly string[] | undefined;
  remove_aliases?: readonly string[] | undefined;
}

interface SetEdit {
  add: readonly string[];
  remove: readonly string[];
}

interface SetKind {
  /** The key a note may already use for it (Obsidian also reads the singular). */
  key: RegExp;
  fallbackKey: string;
  /** How an item already in the note is compared: tags written as `#tag` in YAML count as `tag`. */
  existing(item: string): string;
  /** Validates and tidies an item the agent asks to add or remove. */
  clean(item: string): string;
}

const TAGS: SetKind = {
  key: /^tags?$/i,
  fallbackKey: "tags",
  existing: (tag) => tag.replace(/^#+/, ""),
  clean: (tag) => {
    const cleaned = tag.trim().replace(/^#+/, "").replace(/^\/+|\/+$/g, "");
    if (cleaned === "" || /\s/.test(cleaned)) {
      throw new ToolError("invalid_argument", `"${tag}" is not a valid tag: tags cannot be empty or contain spaces. Use - or _ between words, / for nesting (e.g. project/alpha).`);
    }
    return cleaned;
  },
};

const ALIASES: SetKind = {
  key: /^alias(?:es)?$/i,
  fallbackKey: "aliases",
  existing: (alias) => alias,
  clean: (alias) => {
    const cleaned = alias.trim();
    if (cleaned === "") throw new ToolError("invalid_argument", "An alias is empty; pass the alternative names of the note as text.");
    return cleaned;
  },
};

function identity(item: string): string {
  return item.normalize("NFC").toLowerCase();
}

function itemsOf(value: unknown): string[] {
  const list = Array.isArray(value) ? (value as unknown[]) : value === undefined || value === null ? [] : [value];
  return list.filter((item) => typeof item === "string" || typeof item === "number").map((item) => String(item).trim()).filter((item) => item !== "");
}

function sortedSet(items: readonly string[]): string[] {
  const byIdentity = new Map<string, string>();
  for (const item of items) if (!byIdentity.has(identity(item))) byIdentity.set(identity(item), item);
  return [...byIdentity.values()].sort((a, b) => a.localeCompare(b, "en", { sensitivity: "base" }) || (a < b ? -1 : a > b ? 1 : 0));
}

/** The change to a tags or aliases key, or null when its members stay the same. */
function setChange(data: Record<string, unknown>, kind: SetKind, edit: SetEdit): { change: FrontmatterChange; members: string[] } | null {
  const key = Object.keys(data).find((name) => kind.key.test(name)) ?? kind.fallbackKey;
  const before = itemsOf(data[key]).map((item) => kind.existing(item));
  const removed = new Set(edit.remove.map((item) => identity(kind.clean(item))));
  const after = sortedSet([...before.filter((item) => !removed.has(identity(item))), ...edit.add.map((item) => kind.clean(item))]);
  const same = new Set(before.map(identity));
  if (after.length === same.size && after.every((item) => same.has(identity(item)))) return null;
  return { change: after.length === 0 ? { key, remove: true } : { key, value: after }, members: after };
}

function refuseOverlaps(request: FrontmatterRequest): void {
  const setKeys = Object.keys(request.set ?? {});
  const unset = new Set(request.unset ?? []);
  const both = setKeys.filter((key) => unset.has(key));
  if (both.length > 0) {
    throw new ToolError("invalid_argument", `Key(s) ${both.join(", ")} are both in set and unset. Pass each key in one of them only.`);
  }
  const touchesTags = (request.add_tags ?? []).length + (request.remove_tags ?? []).length > 0;
  const touchesAliases = (request.add_aliases ?? []).length + (request.remove_aliases ?? []).length > 0;
  const direct = [...setKeys, ...(request.unset ?? [])];
  if ((touchesTags && direct.some((key) => TAGS.key.test(key))) || (touchesAliases && direct.some((key) => ALIASES.key.test(key)))) {
    throw new ToolError("invalid_argument", "tags or aliases are changed both directly (set/unset) and with add_/remove_ lists. Use one way: add_tags/remove_tags and add_aliases/remove_aliases edit the sets.");
  }
  if (setKeys.some((key) => key.trim() === "") || (request.unset ?? []).some((key) => key === "")) {
    throw new ToolError("invalid_argument", "A property name is empty. Pass property names as keys of set, or as items of unset.");
  }
}

/**
 * The note's text with the requested frontmatter changes; the body is never touched. `parses`: the
 * write's frontmatter parses; `path`: the note, for the refusal of frontmatter over the limit.
 */
export function applyFrontmatterRequest(
  text: string,
  request: FrontmatterRequest,
  options: { parses?: FrontmatterParses; path?: string } = {},
): { text: string; tags?: string[]; aliases?: string[] } {
  refuseOverlaps(request);
  const parsed = parseFrontmatter(text, options.parses);
  if (parsed.oversize !== null) throw oversizeFrontmatterError(parsed.oversize, options.path === undefined ? {} : { path: options.path });
  // Tags and aliases are edited as sets read from the properties; other keys are edited in the YAML
  // itself, which a note over the alias limit still has (the write path refuses any alias added).
  const editsSets = [request.add_tags, request.remove_tags, request.add_aliases, request.remove_aliases].some((list) => (list ?? []).length > 0);
  if (parsed.split.exists && parsed.error !== null && (parsed.tooManyAliases !== true || editsSets)) {
    throw new ToolError(
      "invalid_argument",
      `The note's frontmatter is not valid YAML (${parsed.error}), so its keys cannot be edited safely. Read it with note_read and fix it with note_edit or note_write, then try again.`,
    );
  }
  const data = parsed.data ?? {};
  const changes: FrontmatterChange[] = [
    ...Object.entries(request.set ?? {}).map(([key, value]) => ({ key, value })),
    ...(request.unset ?? []).map((key): FrontmatterChange => ({ key, remove: true })),
  ];
  const out: { text: string; tags?: string[]; aliases?: string[] } = { text };
  const tags = setChange(data, TAGS, { add: request.add_tags ?? [], remove: request.remove_tags ?? [] });
  if (tags) {
    changes.push(tags.change);
    out.tags = tags.members;
  }
  const aliases = setChange(data, ALIASES, { add: request.add_aliases ?? [], remove: request.remove_aliases ?? [] });
  if (aliases) {
    changes.push(aliases.change);
    out.aliases = aliases.members;
  }
  if (changes.length > 0) out.text = editFrontmatter(text, changes, { createIfMissing: true, parses: options.parses });
  return out;
}

export const noteFrontmatter = defineTool({
  name: "note_frontmatter",
  title: "Change a note's properties",
  description:
    "Changes frontmatter properties of a note and nothing else: `set` sets keys to values (strings, numbers, booleans, lists), `unset` removes keys, add_tags/remove_tags and add_aliases/remove_aliases edit tags and aliases as sorted sets without duplicates (tags without #; matching ignores case). Only the changed keys are rewritten: comments, order and formatting of the rest stay exactly as they were, and the body is untouched. A note without frontmatter gets a block only when something is set or added. Pass content_hash from your read to be sure the note did not change. Returns the write result with the diff, plus the resulting `tags`/`aliases` when they changed. To read properties use note_read with with_metadata or note_outline; to rename a tag everywhere use tag_rename. " +
    `Frontmatter over ${FRONTMATTER_LIMIT_BYTES / 1024} KiB is not parsed, so its properties cannot be changed here: replace it with a smaller one using note_write.`,
  group: "write",
  input: object({
    vault: vaultField,
    path: pathField,
    set: optional(record({ description: "Properties to set, e.g. {\"status\": \"done\", \"priority\": 2}." })),
    unset: optional(stringList({ description: "Property names to remove." })),
    add_tags: optional(stringList({ description: "Tags to add (without #)." })),
    remove_tags: optional(stringList({ description: "Tags to remove (case-insensitive)." })),
    add_aliases: optional(stringList({ description: "Aliases to add." })),
    remove_aliases: optional(stringList({ description: "Aliases to remove (case-insensitive)." })),
    content_hash: contentHashField,
    dry_run: dryRunField,
    reason: reasonField,
  }),
  annotations: WRITES_NOTE,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const request: FrontmatterRequest = args;
    const asked = Object.keys(args.set ?? {}).length + [args.unset, args.add_tags, args.remove_tags, args.add_aliases, args.remove_aliases].reduce((sum, list) => sum + (list?.length ?? 0), 0);
    if (asked === 0) {
      throw new ToolError("invalid_argument", "Nothing to change: pass set, unset, add_tags, remove_tags, add_aliases or remove_aliases. To read the properties call note_outline.");
    }
    const { path, stat } = await engine.resolve(args.path, { note: "only" });
    if (!stat) throw missingNote(path, engine.name, "Find the right path with note_search or note_list, or create the note with note_create.");
    let outcome: { tags?: string[]; aliases?: string[] } = {};
    const result = await engine.writes.write({
      path,
      tool: "note_frontmatter",
      actor: actorOf(ctx),
      mode: "update",
      expected_hash: args.content_hash,
      dry_run: args.dry_run,
      reason: args.reason,
      transform: (current, parses) => {
        const applied = applyFrontmatterRequest(current ?? "", request, { parses, path });
        outcome = applied;
        return applied.text;
      },
    });
    return writeResult(result, { ...(outcome.tags ? { tags: outcome.tags } : {}), ...(outcome.aliases ? { aliases: outcome.aliases } : {}) });
  },
});
