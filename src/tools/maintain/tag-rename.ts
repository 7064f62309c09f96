// tag_rename: one tag (and its nested children) renamed in every note, in frontmatter and inline.
// Inline places come from the metadata cache, which never counts code, `word#tag` or a longer tag;
// frontmatter values are spliced one scalar at a time, so the rest of the YAML stays byte for byte.
import { isMap, isScalar, isSeq, parse as parseYaml, type Scalar } from "yaml";
import { ToolError } from "../../core/errors";
import { parseFrontmatter, type FrontmatterParses } from "../../core/notes/frontmatter";
import { applySplices, type Splice } from "../../core/write/frontmatter-edit";
import type { CachedMetadata, TagCache } from "../../core/notes/metadata";
import { parseNote } from "../../core/notes/structure";
import type { VaultEngine } from "../../core/vault/types";
import { vaultField } from "../common";
import { integer, object, optional, string } from "../schema";
import { defineTool } from "../types";
import { dryRunField, reasonField, WRITES_NOTE } from "../write/common";
import { applyBulkEdit, enforceLimit, transformText } from "./bulk-edit";

/** Obsidian reads `tags` in any case; the index also counts the singular, so renaming must too. */
const TAGS_KEY = /^tags?$/i;
const SUGGESTIONS = 5;

function identity(segment: string): string {
  return segment.normalize("NFC").toLowerCase();
}

/** The tag as the agent passed it, `#` and surrounding space removed, checked with the note parser's own rules. */
export function tagArgument(input: string, name: "from" | "to"): string {
  const tag = input.trim().replace(/^#/, "");
  const example = "Tags use letters, digits, -, _ and / for nesting (e.g. project/alpha), without spaces or other punctuation, and not only digits.";
  if (tag === "") throw new ToolError("invalid_argument", `${name} is empty. Pass a tag name such as project/alpha (with or without #). ${example}`);
  if (/\s/.test(tag)) throw new ToolError("invalid_argument", `${name} "${tag}" contains whitespace, which ends a tag. ${example} Use - or _ between words.`);
  if (/^\/|\/$|\/\//.test(tag)) throw new ToolError("invalid_argument", `${name} "${tag}" has an empty level (a leading, trailing or doubled /). ${example}`);
  const parsed = parseNote(`#${tag}`).tags ?? [];
  if (parsed.length !== 1 || parsed[0]!.tag !== `#${tag}`) {
    const kept = parsed[0]?.tag.slice(1) ?? "";
    const why = kept === "" ? (/^\d+$/.test(tag) ? "a tag cannot be only digits" : `"${tag[0]!}" cannot start a tag`) : `"${tag[kept.length]!}" would end the tag after "${kept}"`;
    throw new ToolError("invalid_argument", `${name} "${tag}" is not a valid tag: ${why}. ${example}`);
  }
  return tag;
}

/** Renames `from` and its children (`from/x` → `to/x`), ignoring case; null when `body` is another tag. */
export class TagRenamer {
  private readonly fromSegments: string[];

  constructor(
    from: string,
    private readonly to: string,
  ) {
    this.fromSegments = from.split("/").map(identity);
  }

  /** Whether a normalised tag (lower case, no `#`) is `from` or nested under it. */
  covers(normalized: string): boolean {
    const segments = normalized.split("/");
    return segments.length >= this.fromSegments.length && this.fromSegments.every((segment, index) => identity(segments[index]!) === segment);
  }

  /** The new tag body, or null when `body` is not this tag or already reads exactly as renamed. */
  rename(body: string): string | null {
    if (!this.covers(body)) return null;
    const renamed = [this.to, ...body.split("/").slice(this.fromSegments.length)].join("/");
    return renamed === body ? null : renamed;
  }
}

/** A scalar's new source text in its own quoting style; null for block scalars, which are left alone. */
function scalarSource(node: Scalar, value: string): string | null {
  switch (node.type) {
    case "QUOTE_DOUBLE":
      return JSON.stringify(value);
    case "QUOTE_SINGLE":
      return `'${value.replace(/'/g, "''")}'`;
    case "PLAIN":
      // A plain scalar must stay a string (`null`, `true`, `1e3` would not) and safe in flow lists.
      return /^[\p{L}\p{N}_][\p{L}\p{N}_/-]*$/u.test(value) && parseYaml(value) === value ? value : JSON.stringify(value);
    default:
      return null;
  }
}

function frontmatterSplices(text: string, renamer: TagRenamer, parses: FrontmatterParses | undefined): Splice[] {
  // Invalid YAML has no frontmatter for Obsidian either, so no frontmatter tags to rename; frontmatter
  // over the size limit is not parsed, and has no tags in the index either.
  const { split, document } = parseFrontmatter(text, parses);
  if (document === null || document.errors.length > 0 || !isMap(document.contents)) return [];
  const splices: Splice[] = [];
  for (const pair of document.contents.items) {
    if (!isScalar(pair.key) || !TAGS_KEY.test(String(pair.key.value))) continue;
    const values = isSeq(pair.value) ? pair.value.items : [pair.value];
    for (const node of values) {
      if (!isScalar(node) || typeof node.value !== "string" || !node.range) continue;
      const hashes = /^#*/.exec(node.value)![0];
      const renamed = renamer.rename(node.value.slice(hashes.length));
      if (renamed === null) continue;
      const source = scalarSource(node, hashes + renamed);
      if (source === null) continue;
      splices.push({ start: split.yamlStart + node.range[0], end: split.yamlStart + node.range[1], text: source });
    }
  }
  return splices;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) starts.push(at + 1);
  return starts;
}

/** Offsets of the cached inline tags in `text`, or null when the cache no longer describes this text. */
function locate(text: string, tags: readonly TagCache[]): Array<{ tag: string; start: number }> | null {
  const starts = lineStarts(text);
  const located: Array<{ tag: string; start: number }> = [];
  for (const tag of tags) {
    const lineStart = starts[tag.position.start.line];
    if (lineStart === undefined) return null;
    const start = lineStart + tag.position.start.col;
    if (text.slice(start, start + tag.tag.length) !== tag.tag) return null;
    located.push({ tag: tag.tag, start });
  }
  return located;
}

function inlineSplices(text: string, cache: CachedMetadata | null, renamer: TagRenamer, parses: FrontmatterParses | undefined): Splice[] {
  // Lines and columns survive the write path's CRLF→LF and BOM handling; offsets would not. A cache
  // older than the text (a write in between) is replaced by the same parser's view of the text.
  const located = (cache && locate(text, cache.tags ?? [])) ?? locate(text, parseNote(text, parses).tags ?? []) ?? [];
  const splices: Splice[] = [];
  for (const { tag, start } of located) {
    const renamed = renamer.rename(tag.slice(1));
    if (renamed !== null) splices.push({ start, end: start + tag.length, text: `#${renamed}` });
  }
  return splices;
}

/** `parses`: the write's frontmatter parses, when renaming inside one. */
export function renameTagsInText(
  text: string,
  cache: CachedMetadata | null,
  renamer: TagRenamer,
  parses?: FrontmatterParses,
): { text: string; occurrences: number } {
  const splices = [...frontmatterSplices(text, renamer, parses), ...inlineSplices(text, cache, renamer, parses)];
  return { text: applySplices(text, splices), occurrences: splices.length };
}

function knownTags(engine: VaultEngine): Map<string, number> {
  const counts = new Map<string, number>();
  for (const file of engine.files()) {
    if (!file.isNote) continue;
    for (const tag of engine.summary(file.path)?.tags ?? []) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  }
  return counts;
}

function notFound(engine: VaultEngine, from: string): ToolError {
  const wanted = identity(from);
  const near = [...knownTags(engine).entries()]
    .filter(([tag]) => tag.includes(wanted) || wanted.includes(tag))
    .sort((a, b) => b[1] - a[1])
    .slice(0, SUGGESTIONS)
    .map(([tag]) => `#${tag}`);
  const hint = near.length > 0 ? ` Similar tags: ${near.join(", ")}.` : "";
  return new ToolError("not_found", `No note in vault "${engine.name}" carries #${from} (or a tag nested under it).${hint} Call tag_list to see the vault's tags.`, {
    details: { from },
  });
}

export const tagRename = defineTool({
  name: "tag_rename",
  title: "Rename a tag everywhere",
  description:
    "Renames a tag in every note: frontmatter `tags` (list or single value, with or without # in the YAML) and inline `#tag`, including nested children (`#from/x` becomes `#to/x`). Matching ignores case, as Obsidian does; the new tag is written exactly as you pass it. Never touches code blocks, inline code, `word#tag` (no space before #) or longer tags (`#fromish`). Only the renamed values change: the rest of the YAML and the body stay byte for byte. Try dry_run: true first to see every diff. `limit` refuses, before writing anything, when more notes would change. One history commit for the whole rename. Returns per note `path`, `occurrences` and `diff`. To change one note's tags use note_frontmatter; to see the tags use tag_list.",
  group: "maintain",
  input: object({
    vault: vaultField,
    from: string({ description: "The tag to rename, with or without #, e.g. `project/alpha`.", maxLength: 200 }),
    to: string({ description: "The new tag, with or without #, written in the case given, e.g. `projects/Alpha`.", maxLength: 200 }),
    limit: optional(integer({ description: "Refuse (writing nothing) when more notes than this would change.", minimum: 1, maximum: 100000 })),
    dry_run: dryRunField,
    reason: reasonField,
  }),
  annotations: WRITES_NOTE,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const from = tagArgument(args.from, "from");
    const to = tagArgument(args.to, "to");
    if (from === to) {
      throw new ToolError("invalid_argument", `from and to are the same tag (#${from}), so nothing would change. Pass the new name as to (a change of letter case alone is allowed).`);
    }
    const renamer = new TagRenamer(from, to);
    const candidates = engine.files().filter((file) => file.isNote && (engine.summary(file.path)?.tags ?? []).some((tag) => renamer.covers(tag)));
    if (candidates.length === 0) throw notFound(engine, from);

    const affected: string[] = [];
    for (const file of candidates) {
      const text = await transformText(engine, file.path);
      if (text !== null && renameTagsInText(text, engine.cache(file.path), renamer).occurrences > 0) affected.push(file.path);
    }
    if (affected.length === 0) {
      throw new ToolError(
        "invalid_argument",
        `Every occurrence of #${from} in the ${candidates.length} note(s) carrying it already reads #${to}; nothing to change. Call tag_list to check the tag names.`,
      );
    }
    enforceLimit("tag_rename", affected, args.limit, "Run it with dry_run: true and without limit to see every diff");

    const outcome = await applyBulkEdit({
      engine,
      ctx,
      tool: "tag_rename",
      paths: affected,
      dryRun: args.dry_run,
      rewrite: (path, text, parses) => renameTagsInText(text, engine.cache(path), renamer, parses),
      subject: (notes) => `tag_rename: #${from} -> #${to} (${notes} note${notes === 1 ? "" : "s"})`.slice(0, 140),
      reason: args.reason,
    });
    const count = outcome.notes.length;
    return {
      vault: engine.name,
      from,
      to,
      dry_run: args.dry_run,
      total: count,
      returned: count,
      notes: outcome.notes,
      occurrences: outcome.occurrences,
      warnings: outcome.warnings,
      message: args.dry_run
        ? `Dry run: nothing was written. ${outcome.occurrences} occurrence(s) in ${count} note(s) would be renamed; call again without dry_run to apply these diffs.`
        : `Renamed #${from} to #${to}: ${outcome.occurrences} occurrence(s) in ${count} note(s), recorded as one history commit.`,
    };
  },
});
