// capture: a quick note into the inbox, named by time and slug so captures sort by when they came in
// and never collide. No dry run (SPEC §10): a capture is always new, so there is nothing to preview.
import { formatMoment } from "../../core/dates-format";
import { ToolError } from "../../core/errors";
import { normalizeTag } from "../../core/notes/structure";
import { editFrontmatter } from "../../core/write/frontmatter-edit";
import { vaultField } from "../common";
import { object, optional, string, stringList } from "../schema";
import { defineTool } from "../types";
import { actorOf, reasonField, WRITES_NOTE, writeResult } from "./common";
import { slugify } from "./note-from-template";

export const INBOX_FOLDER = "inbox/";
export const INBOX_TAG = "inbox";
const TITLE_MAX = 80;
const SLUG_WORDS = 6;
const SLUG_MAX = 50;
const MAX_SUFFIX = 100;

/** The first line of the text without Markdown markers, cut to a title's length at a word. */
export function titleFromText(text: string): string {
  const first = text.split("\n").find((line) => line.trim() !== "") ?? "";
  const plain = first
    .trim()
    .replace(/^(?:#{1,6}\s+|>\s*|[-*+]\s+(?:\[.\]\s+)?|\d+[.)]\s+)/, "")
    .replace(/[*_`~]|\[\[|\]\]/g, "")
    .trim();
  if (plain.length <= TITLE_MAX) return plain;
  const cut = plain.slice(0, TITLE_MAX);
  const space = cut.lastIndexOf(" ");
  return `${(space > TITLE_MAX / 2 ? cut.slice(0, space) : cut).trim()}…`;
}

export function captureSlug(title: string): string {
  const words = title.split(/\s+/).slice(0, SLUG_WORDS).join(" ");
  return slugify(words, SLUG_MAX) || "capture";
}

export function capturePath(now: number, slug: string, attempt: number): string {
  return `${INBOX_FOLDER}${formatMoment(now, "YYYY-MM-DD-HHmm")}-${slug}${attempt > 1 ? `-${attempt}` : ""}.md`;
}

function captureTags(given: readonly string[] | undefined): string[] {
  const tags = [INBOX_TAG];
  for (const raw of given ?? []) {
    const tag = normalizeTag(raw);
    if (tag === "") continue;
    if (/\s/.test(tag)) throw new ToolError("invalid_argument", `The tag "${raw}" contains whitespace; tags are single words like project/alpha.`);
    if (!tags.includes(tag)) tags.push(tag);
  }
  return tags;
}

export const capture = defineTool({
  name: "capture",
  title: "Capture into the inbox",
  description:
    "Saves a quick thought, link or snippet as a new note `inbox/YYYY-MM-DD-HHMM-<slug>.md` (slug from the title, or from the first words of the text; `-2`, `-3`… when that name is taken), with frontmatter title, tags (always including `inbox`) and captured (local ISO time). The text is stored as given. Always writes (no dry run). Use it when you do not yet know where something belongs; process the inbox later. For a note with a known place use note_create; for today's log use journal.",
  group: "write",
  input: object({
    vault: vaultField,
    text: string({ description: "The content to capture (Markdown, kept as given).", raw: true }),
    title: optional(string({ description: "A title; default: the first line of the text." })),
    tags: optional(stringList({ description: "Extra tags (without `#`); `inbox` is always added." })),
    reason: reasonField,
  }),
  annotations: WRITES_NOTE,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const body = args.text.replace(/\r\n?/g, "\n").replace(/\s+$/, "");
    if (body.trim() === "") throw new ToolError("invalid_argument", "text is empty; pass what should be captured.");
    const title = args.title !== undefined && args.title !== "" ? args.title : titleFromText(body) || "Capture";
    const tags = captureTags(args.tags);
    const now = ctx.now();
    const slug = captureSlug(title);
    const content = editFrontmatter(
      `${body}\n`,
      [
        { key: "title", value: title },
        { key: "tags", value: tags },
        { key: "captured", value: formatMoment(now, "YYYY-MM-DDTHH:mm:ssZ") },
      ],
      { createIfMissing: true },
    );
    for (let attempt = 1; attempt <= MAX_SUFFIX; attempt++) {
      const { path, stat } = await engine.resolve(capturePath(now, slug, attempt));
      if (stat) continue;
      try {
        const result = await engine.writes.write({
          path,
          tool: "capture",
          actor: actorOf(ctx),
          mode: "create",
          dry_run: false,
          ...(args.reason !== undefined ? { reason: args.reason } : {}),
          transform: () => content,
        });
        return writeResult(result, { title, tags });
      } catch (error) {
        // Another capture took the name between the check and the write: try the next suffix.
        if (error instanceof ToolError && error.code === "conflict") continue;
        throw error;
      }
    }
    throw new ToolError("conflict", `More than ${MAX_SUFFIX} captures named "${slug}" this minute; pass a different title.`);
  },
});
