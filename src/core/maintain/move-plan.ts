// The link rewrites a move or rename needs (obsidian-api.md §7, renameFile): every reference whose
// resolution changes when `from` becomes `to` is rewritten, as Obsidian writes it, to point where it
// pointed before — links to the moved note in every spelling (path, name, with or without `.md`,
// subpaths, aliases, embeds, markdown links, relative paths, frontmatter), the moved note's own links
// seen from its new folder, and links the new name would capture from another note. A reference that
// still resolves to the same text (a bare `[[Name]]` that stays unique) is left alone.
import type { CachedMetadata, Reference } from "../notes/metadata";
import { LinkResolver, type NewLinkFormat } from "../notes/link-resolver";
import { basename, extname } from "../notes/paths";

export interface PlannedEdit {
  /** 0-based line in the note before the move; frontmatter links carry the frontmatter's line. */
  line: number;
  col: number;
  before: string;
  after: string;
  /** A frontmatter value (`related: "[[Old]]"`): replaced inside the YAML, nothing else touched. */
  frontmatter: boolean;
}

export interface PlannedFile {
  /** The note's path before the move. */
  path: string;
  /** Its path after the move (differs only for the moved note itself). */
  pathAfter: string;
  edits: PlannedEdit[];
}

export interface MovePlanInput {
  files: readonly string[];
  from: string;
  to: string;
  format: NewLinkFormat;
  cache(path: string): CachedMetadata | null;
  aliases(path: string): readonly string[];
}

const WIKILINK = /^(!?\[\[)([^|]*?)((\\?\|)(.*))?(\]\])$/;
const MARKDOWN_LINK = /^(!?\[)(.*?)(\]\(\s*)(<[^>]*>|[^\s)]+)(\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?(\s*\))$/;

function splitSubpath(link: string): { path: string; subpath: string } {
  const at = link.indexOf("#");
  return at < 0 ? { path: link, subpath: "" } : { path: link.slice(0, at), subpath: link.slice(at) };
}

/** A link's name part: no folder, no extension (what `[[Old|Old]]` repeats as its alias). */
function nameOf(linkpath: string): string {
  const name = basename(linkpath);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}

function withoutExtension(linkpath: string): string {
  const slash = linkpath.lastIndexOf("/");
  const dot = linkpath.lastIndexOf(".");
  return dot > slash + 1 ? linkpath.slice(0, dot) : linkpath;
}

/**
 * The reference's new text. Display text that only repeated the old name follows the new name unless
 * the target lists it among its aliases; any other display text, a title, `<…>` and `\|` are kept.
 */
export function rewriteReference(original: string, oldLink: string, linktext: string, aliases: readonly string[]): string {
  const wiki = WIKILINK.exec(original);
  if (wiki) {
    const [, open = "", inner = "", aliasPart, bar = "|", alias = "", close = ""] = wiki;
    if (aliasPart === undefined) return `${open}${linktext}${close}`;
    const shown = alias.trim() === nameOf(splitSubpath(inner).path) && !aliases.includes(alias.trim()) ? nameOf(splitSubpath(linktext).path) : alias;
    return `${open}${linktext}${bar}${shown}${close}`;
  }
  const markdown = MARKDOWN_LINK.exec(original);
  if (!markdown) return original;
  const [, open = "", label = "", middle = "", target = "", title = "", close = ""] = markdown;
  const oldPath = splitSubpath(oldLink).path;
  const newPath = splitSubpath(linktext).path;
  const trimmed = label.trim();
  let shown = label;
  if (trimmed === nameOf(oldPath)) shown = nameOf(newPath);
  else if (trimmed.includes("/") && trimmed === withoutExtension(oldPath)) shown = withoutExtension(newPath);
  const written = target.startsWith("<") ? `<${linktext}>` : linktext.replace(/ /g, "%20");
  return `${open}${shown}${middle}${written}${title}${close}`;
}

/**
 * The reference pointed at `linktext` with everything the reader saw kept: display text, a markdown
 * link's title, `<…>` and `\|`. For rewrites where the target is a part of the old one (note_split),
 * so the old name shown as an alias is still the right words.
 */
export function retargetReference(original: string, linktext: string): string {
  const wiki = WIKILINK.exec(original);
  if (wiki) {
    const [, open = "", , aliasPart = "", , , close = ""] = wiki;
    return `${open}${linktext}${aliasPart}${close}`;
  }
  const markdown = MARKDOWN_LINK.exec(original);
  if (!markdown) return original;
  const [, open = "", label = "", middle = "", target = "", title = "", close = ""] = markdown;
  const written = target.startsWith("<") ? `<${linktext}>` : linktext.replace(/ /g, "%20");
  return `${open}${label}${middle}${written}${title}${close}`;
}

type AnyReference = Reference & { position?: { start: { line: number; col: number } }; key?: string };

export function planMove(input: MovePlanInput): PlannedFile[] {
  const before = new LinkResolver(input.files);
  const after = new LinkResolver(input.files.map((path) => (path === input.from ? input.to : path)));
  const moved = (path: string): string => (path === input.from ? input.to : path);
  const planned: PlannedFile[] = [];
  for (const source of input.files) {
    if (extname(source) !== "md") continue;
    const cache = input.cache(source);
    if (!cache) continue;
    const sourceAfter = moved(source);
    const frontmatterLine = cache.frontmatterPosition?.start.line ?? 0;
    const references: AnyReference[] = [...(cache.links ?? []), ...(cache.embeds ?? []), ...(cache.frontmatterLinks ?? [])];
    const edits: PlannedEdit[] = [];
    for (const reference of references) {
      const { path: linkpath, subpath } = splitSubpath(reference.link);
      // A self-link (`[[#Heading]]`) moves with its note.
      if (linkpath === "") continue;
      const was = before.candidates(linkpath, source);
      const target = was[0];
      if (target === undefined) continue;
      const now = after.candidates(linkpath, sourceAfter);
      if (now.length > 0 && now.length === was.length && now.every((path, index) => path === was[index])) continue;
      const wikilink = WIKILINK.test(reference.original) || reference.position === undefined;
      const linktext = after.fileToLinktext(moved(target), sourceAfter, input.format, wikilink) + subpath;
      if (linktext === reference.link) continue;
      const text = rewriteReference(reference.original, reference.link, linktext, input.aliases(target));
      if (text === reference.original) continue;
      edits.push({
        line: reference.position?.start.line ?? frontmatterLine,
        col: reference.position?.start.col ?? 0,
        before: reference.original,
        after: text,
        frontmatter: reference.position === undefined,
      });
    }
    if (edits.length > 0) planned.push({ path: source, pathAfter: sourceAfter, edits });
  }
  return planned;
}

/**
 * The note's text with the planned edits applied, or null when the text is no longer the one the plan
 * was made on (an edit's text is not where the plan found it). Works on LF text with or without the
 * frontmatter offsets of the host's parser: edits are found by line and column.
 */
export function applyPlannedEdits(text: string, edits: readonly PlannedEdit[]): string | null {
  const lines = text.split("\n");
  const body = edits.filter((edit) => !edit.frontmatter).sort((a, b) => b.line - a.line || b.col - a.col);
  for (const edit of body) {
    const line = lines[edit.line];
    if (line === undefined || line.slice(edit.col, edit.col + edit.before.length) !== edit.before) return null;
    lines[edit.line] = line.slice(0, edit.col) + edit.after + line.slice(edit.col + edit.before.length);
  }
  const fenced = edits.filter((edit) => edit.frontmatter);
  if (fenced.length === 0) return lines.join("\n");
  // Frontmatter values have no column: replace each planned string once, in order, inside the block.
  const close = lines.findIndex((line, index) => index > 0 && line.trimEnd() === "---");
  if (lines[0]?.trimEnd() !== "---" || close < 0) return null;
  let yaml = lines.slice(1, close).join("\n");
  let from = 0;
  for (const edit of fenced) {
    const at = yaml.indexOf(edit.before, from);
    if (at < 0) return null;
    yaml = yaml.slice(0, at) + edit.after + yaml.slice(at + edit.before.length);
    from = at + edit.after.length;
  }
  return [lines[0], ...yaml.split("\n"), ...lines.slice(close)].join("\n");
}
