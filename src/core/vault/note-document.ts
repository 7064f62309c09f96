// What the index takes of a note or a canvas, from its text and (notes) its parsed metadata. One
// function for every way a file is ingested — in the engine's own thread, with the metadata its host
// provides, or in a host's worker thread, with the metadata parsed there — so both index it alike.
import { splitFrontmatter } from "../notes/frontmatter";
import type { CachedMetadata } from "../notes/metadata";
import { stripSubpath } from "../notes/paths";
import { countWords, noteFacts, type NoteFacts } from "../notes/structure";
import type { IndexDoc } from "../search/index-builder";
import { canvasText } from "./canvas";

export interface PreparedDocument {
  facts: NoteFacts;
  doc: IndexDoc;
}

export function noteDocument(path: string, text: string, cache: CachedMetadata): PreparedDocument {
  const facts = noteFacts(text, cache, path);
  const split = splitFrontmatter(text);
  const base = baseTitle(path);
  return {
    facts,
    doc: {
      path,
      title: facts.title === base ? facts.title : `${facts.title} ${base}`,
      aliases: facts.aliases,
      headings: (cache.headings ?? []).map((heading) => heading.heading),
      tags: facts.tags,
      body: split.exists ? text.slice(split.contentStart) : text,
    },
  };
}

export function canvasDocument(path: string, text: string): PreparedDocument {
  const body = canvasText(text);
  const title = baseTitle(path);
  return { facts: { title, tags: [], aliases: [], tasks: [], words: countWords(body) }, doc: { path, title, aliases: [], headings: [], tags: [], body } };
}

/** Targets of a note's links, embeds and frontmatter links, subpaths stripped, in order. */
export function linkpathsOf(cache: CachedMetadata): string[] {
  const linkpaths: string[] = [];
  for (const list of [cache.links, cache.embeds, cache.frontmatterLinks]) {
    for (const reference of list ?? []) linkpaths.push(stripSubpath(reference.link));
  }
  return linkpaths;
}

export function baseTitle(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}
