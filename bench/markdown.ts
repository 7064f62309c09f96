// How the FTS5 baseline (and the query picker) reads a note: YAML frontmatter split off with the
// `yaml` package, title = frontmatter `title` or the basename, tags = frontmatter tags plus inline
// #tags. Written independently of src/core, as a reference server would, so the baseline does not
// borrow our parser's speed or its edge cases.
import path from "node:path";
import { parse as parseYaml } from "yaml";

export interface PlainNote {
  title: string;
  body: string;
  /** Lower-cased, without `#`. */
  tags: string[];
  /** Tags named in the frontmatter only (both engines agree on those). */
  frontmatterTags: string[];
}

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
const INLINE_TAG = /(?:^|[\s(])#([\p{L}\p{N}_/-]*[\p{L}_/-][\p{L}\p{N}_/-]*)/gu;

export function readPlainNote(relativePath: string, text: string): PlainNote {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const match = FRONTMATTER.exec(source);
  let data: unknown = null;
  if (match) {
    try {
      data = parseYaml(match[1] ?? "");
    } catch {
      data = null;
    }
  }
  const body = match ? source.slice(match[0].length) : source;
  const fields = data !== null && typeof data === "object" && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  const basename = path.basename(relativePath, path.extname(relativePath));
  const title = typeof fields.title === "string" && fields.title.trim() !== "" ? fields.title : basename;
  const frontmatterTags = tagList(fields.tags);
  const tags = new Set(frontmatterTags);
  for (const inline of body.matchAll(INLINE_TAG)) tags.add(normalizeTag(inline[1] ?? ""));
  tags.delete("");
  return { title, body, tags: [...tags], frontmatterTags };
}

function tagList(value: unknown): string[] {
  const items = Array.isArray(value) ? value : typeof value === "string" ? value.split(/[,\s]+/) : [];
  return items.filter((item): item is string => typeof item === "string").map(normalizeTag).filter((tag) => tag !== "");
}

function normalizeTag(tag: string): string {
  return tag.trim().replace(/^#/, "").replace(/^\/+|\/+$/g, "").toLowerCase();
}
