// The text of a merge (note_merge): the source's body goes under a heading at the end of the target,
// its headings nested below that heading, and every link that pointed at the source points at the
// target instead — to the merged section where the whole note was embedded, keeping what the reader
// saw where a plain link showed the source's name. Links inside the moved body keep their targets
// from the target's folder.
import type { CachedMetadata, Reference } from "../notes/metadata";
import { LinkResolver, type NewLinkFormat } from "../notes/link-resolver";
import { basename, extname } from "../notes/paths";
import type { PlannedEdit, PlannedFile } from "./move-plan";

export interface MergePlanInput {
  files: readonly string[];
  source: string;
  target: string;
  /** The heading the source's body goes under; embeds of the whole source point to it. */
  heading: string;
  format: NewLinkFormat;
  cache(path: string): CachedMetadata | null;
}

const WIKILINK = /^(!?)\[\[([^|]*?)((\\?\|)(.*))?\]\]$/;
const MARKDOWN_LINK = /^(!?\[)(.*?)(\]\(\s*)(<[^>]*>|[^\s)]+)(\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?(\s*\))$/;

function splitSubpath(link: string): { path: string; subpath: string } {
  const at = link.indexOf("#");
  return at < 0 ? { path: link, subpath: "" } : { path: link.slice(0, at), subpath: link.slice(at) };
}

function nameOf(path: string): string {
  const name = basename(path);
  return extname(name) === "md" ? name.slice(0, -3) : name;
}

/** Heading text as a link subpath: Obsidian drops the characters a link cannot carry. */
export function headingSubpath(heading: string): string {
  return `#${heading.replace(/[#|^[\]]/g, " ").replace(/\s+/g, " ").trim()}`;
}

function redirected(reference: Reference, linktext: string, sourceName: string, heading: string): string {
  const wiki = WIKILINK.exec(reference.original);
  const { subpath } = splitSubpath(reference.link);
  if (wiki) {
    const [, bang = "", , aliasPart, bar = "|", alias = ""] = wiki;
    if (bang === "!") return `![[${linktext}${subpath === "" ? headingSubpath(heading) : subpath}${aliasPart === undefined ? "" : `${bar}${alias}`}]]`;
    if (aliasPart !== undefined) return `[[${linktext}${subpath}${bar}${alias}]]`;
    // The reader saw the source's name; the name is now an alias of the target.
    return subpath === "" ? `[[${linktext}|${sourceName}]]` : `[[${linktext}${subpath}]]`;
  }
  const markdown = MARKDOWN_LINK.exec(reference.original);
  if (!markdown) return reference.original;
  const [, open = "", label = "", middle = "", written = "", title = "", close = ""] = markdown;
  const full = `${linktext}${open.startsWith("!") && subpath === "" ? headingSubpath(heading) : subpath}`;
  const target = written.startsWith("<") ? `<${full}>` : full.replace(/ /g, "%20");
  return `${open}${label}${middle}${target}${title}${close}`;
}

/**
 * Edits for every note except the source (the target included), and for the source's own body as
 * it will read inside the target (`sourceBody`, by the source's line numbers).
 */
export function planMerge(input: MergePlanInput): { notes: PlannedFile[]; sourceBody: PlannedEdit[] } {
  const before = new LinkResolver(input.files);
  const after = new LinkResolver(input.files.filter((path) => path !== input.source));
  const sourceName = nameOf(input.source);
  const notes: PlannedFile[] = [];
  let sourceBody: PlannedEdit[] = [];
  for (const path of input.files) {
    if (extname(path) !== "md") continue;
    const cache = input.cache(path);
    if (!cache) continue;
    const isSource = path === input.source;
    const seenFrom = isSource ? input.target : path;
    const references: Array<Reference & { position?: { start: { line: number; col: number } } }> = [...(cache.links ?? []), ...(cache.embeds ?? [])];
    // Frontmatter links of the source stay behind with its frontmatter; the target's own are edited.
    if (!isSource) references.push(...(cache.frontmatterLinks ?? []));
    const edits: PlannedEdit[] = [];
    const frontmatterLine = cache.frontmatterPosition?.start.line ?? 0;
    for (const reference of references) {
      const { path: linkpath, subpath } = splitSubpath(reference.link);
      if (linkpath === "") continue;
      const was = before.resolve(linkpath, path);
      if (was === null) continue;
      let text: string;
      if (was === input.source) {
        const linktext = after.fileToLinktext(input.target, seenFrom, input.format, WIKILINK.test(reference.original) || reference.position === undefined);
        text = redirected(reference, linktext, sourceName, input.heading);
      } else {
        if (!isSource || after.resolve(linkpath, seenFrom) === was) continue;
        // A link of the moved body that would resolve elsewhere from the target's folder.
        const linktext = after.fileToLinktext(was, seenFrom, input.format, WIKILINK.test(reference.original)) + subpath;
        const wiki = WIKILINK.exec(reference.original);
        text = wiki ? `${wiki[1] ?? ""}[[${linktext}${wiki[3] ?? ""}]]` : redirected({ ...reference, link: linktext }, linktext.replace(/#.*$/, ""), sourceName, input.heading);
      }
      if (text === reference.original) continue;
      edits.push({
        line: reference.position?.start.line ?? frontmatterLine,
        col: reference.position?.start.col ?? 0,
        before: reference.original,
        after: text,
        frontmatter: reference.position === undefined,
      });
    }
    if (isSource) sourceBody = edits;
    else if (edits.length > 0) notes.push({ path, pathAfter: path, edits });
  }
  return { notes, sourceBody };
}
