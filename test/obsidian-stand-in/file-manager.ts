// FileManager (obsidian-api.md §7): trashFile by trashOption, renameFile rewriting the references whose
// resolution changed (one process() per touched file), processFrontMatter, generateMarkdownLink.
// The rename rewrite follows the app's own code (X2: gx, wx, bx).
import type { Reference } from "obsidian";
import { parseYaml, stringifyYaml, getFrontMatterInfo, getLinkpath, parseLinktext } from "./utils";
import { parseFrontMatterAliases } from "./metadata/tags";
import type { MetadataCache } from "./metadata-cache";
import { TFile, type TFolder, type DataWriteOptions, type TAbstractFile, type Vault } from "./vault";

const WIKILINK = /^(!?\[\[)(.*?)(\|(.*))?(]])$/;
const MARKDOWN_LINK = /^(!?\[)(.*?)(]\(\s*)((<[^>]*?>|[^ "]+?)(\s+([^ ]+|"[^"]+"|'[^']+'|\([^']+\)))?)?(\s*\))$/;

/** A link, embed or frontmatter link: body references carry a position, frontmatter ones a key. */
type AnyReference = Reference & { position?: { start: { offset: number }; end: { offset: number } }; key?: string };

interface Resolved {
  source: TFile;
  reference: AnyReference;
  target: TFile;
  paths: string[];
}

function encodeSpaces(linktext: string): string {
  return linktext.replace(/ /g, "%20");
}

/** The name part of a link path: no folder, no extension. */
function nameOf(linkpath: string): string {
  const name = linkpath.slice(linkpath.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}

function withoutExtension(linkpath: string): string {
  const slash = linkpath.lastIndexOf("/");
  const dot = linkpath.lastIndexOf(".");
  return dot > slash + 1 ? linkpath.slice(0, dot) : linkpath;
}

/**
 * The reference's text pointing at `linktext`. Display text that only repeated the old name follows
 * the new one, unless the target lists it among its aliases; anything else the user wrote is kept.
 */
function rewriteReference(reference: AnyReference, linktext: string, aliases: string[]): string {
  const wiki = WIKILINK.exec(reference.original);
  if (wiki) {
    const [, open, inner = "", , alias = "", close] = wiki;
    if (!alias) return `${open}${linktext}${close}`;
    const bar = /\\\|/.test(reference.original) ? "\\|" : "|";
    const trimmed = alias.trim();
    const shown = nameOf(inner) === trimmed && !aliases.includes(trimmed) ? nameOf(getLinkpath(linktext)) : alias;
    return `${open}${linktext}${bar}${shown}${close}`;
  }
  const markdown = MARKDOWN_LINK.exec(reference.original);
  const target = markdown?.[5]?.startsWith("<") ? `<${linktext}>` : encodeSpaces(linktext);
  if (!markdown) return `${reference.original.startsWith("!") ? "!" : ""}[](${target})`;
  const oldPath = getLinkpath(reference.link);
  let label = markdown[2] ?? "";
  const trimmed = label.trim();
  if (trimmed === nameOf(oldPath)) label = nameOf(getLinkpath(linktext));
  else if (trimmed.includes("/") && trimmed === withoutExtension(oldPath)) label = withoutExtension(getLinkpath(linktext));
  return `${markdown[1]}${label}${markdown[3]}${target}${markdown[6] ?? ""}${markdown[8]}`;
}

/** Sets `value` at a dotted frontmatter key such as `related.0`; a path that is not there is skipped. */
function setAtKey(object: unknown, key: string, value: string): void {
  const parts = key.split(".");
  let at = object;
  while (at !== null && typeof at === "object" && parts.length > 0) {
    const part = parts.shift()!;
    if (Array.isArray(at)) {
      const index = Number.parseInt(part, 10);
      if (Number.isNaN(index) || index < 0 || index >= at.length) return;
      if (parts.length === 0) at[index] = value;
      else at = at[index] as unknown;
    } else if (parts.length === 0) (at as Record<string, unknown>)[part] = value;
    else at = (at as Record<string, unknown>)[part];
  }
}

/** Body edits by offset, last first; then frontmatter edits re-serialized through YAML. */
function applyEdits(data: string, edits: Array<{ reference: AnyReference; text: string }>): string {
  let out = data;
  const positioned = edits.filter((edit) => edit.reference.position).sort((a, b) => b.reference.position!.start.offset - a.reference.position!.start.offset);
  for (const { reference, text } of positioned) out = out.slice(0, reference.position!.start.offset) + text + out.slice(reference.position!.end.offset);
  const keyed = edits.filter((edit) => !edit.reference.position && edit.reference.key !== undefined);
  if (keyed.length === 0) return out;
  const info = getFrontMatterInfo(out);
  if (!info.exists) return out;
  let frontmatter: unknown;
  try {
    frontmatter = parseYaml(info.frontmatter);
  } catch {
    return out;
  }
  for (const { reference, text } of keyed) setAtKey(frontmatter, reference.key!, text);
  return out.slice(0, info.from) + stringifyYaml(frontmatter) + out.slice(info.to);
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

export class FileManager {
  /** Calls per method, so tests can prove a plugin went through the FileManager. */
  readonly calls: Record<string, number> = {};
  private readonly vault: Vault;
  private readonly metadataCache: MetadataCache;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(vault: Vault, metadataCache: MetadataCache) {
    this.vault = vault;
    this.metadataCache = metadataCache;
  }

  async trashFile(file: TAbstractFile): Promise<void> {
    const option = (this.vault.getConfig("trashOption") as string | undefined) ?? "system";
    if (option === "none") await this.vault.delete(file, true);
    else await this.vault.trash(file, option === "system");
  }

  renameFile(file: TAbstractFile, newPath: string): Promise<void> {
    this.calls.renameFile = (this.calls.renameFile ?? 0) + 1;
    const run = this.queue.then(() => this.renameNow(file, newPath));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private resolvedPaths(linkpath: string, source: TFile): string[] {
    return this.metadataCache.getLinkpathDest(linkpath, source.path).map((found) => found.path);
  }

  private async renameNow(file: TAbstractFile, newPath: string): Promise<void> {
    await this.metadataCache.whenIdle();
    const snapshot: Resolved[] = [];
    for (const source of this.vault.getMarkdownFiles()) {
      const cache = this.metadataCache.getFileCache(source);
      const references: AnyReference[] = [...(cache?.links ?? []), ...(cache?.embeds ?? []), ...(cache?.frontmatterLinks ?? [])];
      for (const reference of references) {
        const linkpath = getLinkpath(reference.link);
        // A self-link (`[[#H]]`) moves with its note.
        if (linkpath === "") continue;
        const paths = this.resolvedPaths(linkpath, source);
        const target = paths[0] === undefined ? null : this.vault.getFileByPath(paths[0]);
        if (target) snapshot.push({ source, reference, target, paths });
      }
    }
    await this.vault.rename(file, newPath);
    if (this.vault.getConfig("alwaysUpdateLinks") === false) return;
    const edits = new Map<TFile, Array<{ reference: AnyReference; text: string }>>();
    for (const { source, reference, target, paths } of snapshot) {
      const { path: linkpath, subpath } = parseLinktext(reference.link);
      const now = this.resolvedPaths(linkpath, source);
      if (now.length > 0 && sameList(now, paths)) continue;
      const linktext = this.metadataCache.fileToLinktext(target, source.path, WIKILINK.test(reference.original)) + subpath;
      // Still resolving to the same text means there is nothing to rewrite.
      if (linktext === reference.link) continue;
      const aliases = parseFrontMatterAliases(this.metadataCache.getFileCache(target)?.frontmatter ?? null) ?? [];
      const list = edits.get(source) ?? [];
      list.push({ reference, text: rewriteReference(reference, linktext, aliases) });
      edits.set(source, list);
    }
    for (const [source, list] of edits) await this.vault.process(source, (data) => applyEdits(data, list));
  }

  async processFrontMatter(file: TFile, fn: (frontmatter: Record<string, unknown>) => void, options?: DataWriteOptions): Promise<void> {
    if (file.extension !== "md") return;
    await this.vault.process(
      file,
      (data) => {
        const info = getFrontMatterInfo(data);
        const parsed: unknown = info.exists ? parseYaml(info.frontmatter) : {};
        const object = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
        fn(object);
        if (Object.keys(object).length === 0) return info.exists ? data.slice(info.contentStart) : data;
        const yaml = stringifyYaml(object);
        if (!info.exists) return `---\n${yaml}---\n${data}`;
        return data.slice(0, info.from) + yaml + data.slice(info.to);
      },
      options,
    );
  }

  /** Where a new note goes by `newFileLocation`; a configured folder that does not exist falls back to the root. */
  getNewFileParent(sourcePath: string, newFilePath?: string): TFolder {
    void newFilePath;
    const location = this.vault.getConfig("newFileLocation");
    const folderPath = this.vault.getConfig("newFileFolderPath");
    let folder: TFolder | null = null;
    if (location === "folder" && typeof folderPath === "string") folder = this.vault.getFolderByPath(folderPath);
    else if (location === "current") folder = this.vault.getFolderByPath(sourcePath.slice(0, Math.max(0, sourcePath.lastIndexOf("/"))));
    return folder ?? this.vault.getRoot();
  }

  generateMarkdownLink(file: TFile, sourcePath: string, subpath?: string, alias?: string): string {
    const markdown = this.vault.getConfig("useMarkdownLinks") === true;
    let linktext = this.metadataCache.fileToLinktext(file, sourcePath, !markdown) + (subpath ?? "");
    if (file.path === sourcePath && subpath) linktext = subpath;
    if (markdown) {
      const target = encodeSpaces(linktext);
      return file.extension === "md" ? `[${alias || file.basename}](${target})` : `![${alias || ""}](${target})`;
    }
    let shown = alias || null;
    // An alias differing only in case becomes the link text itself (X2).
    if (shown !== null && shown.toLowerCase() === linktext.toLowerCase()) {
      linktext = shown;
      shown = null;
    }
    const link = shown === null ? `[[${linktext}]]` : `[[${linktext}|${shown}]]`;
    return file.extension === "md" ? link : `!${link}`;
  }
}

export { TFile };
