// note_create: a new note, refusing to replace an existing one unless asked to. `title` and `tags`
// go into the new note's frontmatter, as the reference server's note_create writes them.
import { ToolError } from "../../core/errors";
import { splitFrontmatter } from "../../core/notes/frontmatter";
import { editFrontmatter, type FrontmatterChange } from "../../core/write/frontmatter-edit";
import { pathField, vaultField } from "../common";
import { boolean, object, optional, string, stringList, withDefault } from "../schema";
import { defineTool } from "../types";
import { actorOf, contentField, dryRunField, reasonField, WRITES_NOTE, writeResult } from "./common";
import { toLf } from "./edit-common";

/** Obsidian's tag characters: letters, digits, `_`, `-` and `/` for nesting; not digits alone. */
const TAG = /^[\p{L}\p{N}_\-/]+$/u;
const DIGITS = /^\p{N}+$/u;
const MAX_TAGS = 100;

function normalisedTags(tags: readonly string[]): string[] {
  if (tags.length > MAX_TAGS) {
    throw new ToolError("invalid_argument", `Argument "tags" holds ${tags.length} tags, at most ${MAX_TAGS}: keep the few that place the note.`, {
      details: { argument: "tags" },
    });
  }
  const seen = new Set<string>();
  tags.forEach((raw, index) => {
    const tag = raw.replace(/^#/, "");
    if (!TAG.test(tag) || DIGITS.test(tag) || tag.startsWith("/") || tag.endsWith("/")) {
      throw new ToolError(
        "invalid_argument",
        `Tag ${index + 1} is not a tag Obsidian reads: use letters, digits, _, - and / for nesting (e.g. project/alpha), no spaces, not digits alone; give tags without '#'.`,
        { details: { argument: `tags[${index}]` } },
      );
    }
    seen.add(tag);
  });
  return [...seen];
}

/** The frontmatter keys the arguments set; refused when the content's own frontmatter names them too. */
function frontmatterChanges(content: string, title: string | undefined, tags: readonly string[] | undefined): FrontmatterChange[] {
  const changes: FrontmatterChange[] = [];
  if (title !== undefined) changes.push({ key: "title", value: title });
  if (tags !== undefined && tags.length > 0) changes.push({ key: "tags", value: normalisedTags(tags) });
  if (changes.length === 0) return changes;
  const split = splitFrontmatter(content);
  if (split.exists) {
    const yaml = content.slice(split.yamlStart, split.yamlEnd);
    for (const change of changes) {
      if (new RegExp(`^${change.key}\\s*:`, "m").test(yaml)) {
        throw new ToolError(
          "invalid_argument",
          `The content's frontmatter already has "${change.key}", and the ${change.key} argument sets it too: give it in one place only.`,
          { details: { argument: change.key } },
        );
      }
    }
  }
  return changes;
}

export const noteCreate = defineTool({
  name: "note_create",
  title: "Create a note",
  description:
    "Creates a new note at `path` (`.md` added when missing; folders are created) with `content` as its Markdown. `title` and `tags` (without '#') go into its frontmatter; created/updated are added too (an explicit frontmatter block at the top of content is kept and only gains those keys; a block over 64 KiB is refused as too_large). An existing note is refused: link to it with [[…]] or change it with note_edit / note_section_edit; pass overwrite: true only to replace it entirely (the old version goes to the trash). Returns the write result: path, content_hash, bytes, diff, warnings (e.g. new broken links). For a note from a template use note_from_template; for a quick unsorted thought use capture.",
  group: "write",
  input: object({
    vault: vaultField,
    path: pathField,
    content: contentField,
    title: optional(string({ description: "The note's title, written as `title` in its frontmatter.", minLength: 1, maxLength: 200 })),
    tags: optional(stringList({ description: "Tags written as `tags` in its frontmatter, without '#', e.g. [\"project/alpha\", \"draft\"]." })),
    overwrite: withDefault(boolean({ description: "Replace the note if it already exists (its old content goes to the trash)." }), false),
    dry_run: dryRunField,
    reason: reasonField,
  }),
  annotations: WRITES_NOTE,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const { path } = await engine.resolve(args.path, { note: "only" });
    const given = toLf(args.content);
    const changes = frontmatterChanges(given, args.title, args.tags);
    const content = changes.length === 0 ? given : editFrontmatter(given, changes, { createIfMissing: true });
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
