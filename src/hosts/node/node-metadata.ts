// The Node host's metadataCache: notes are parsed by the same parser whose shapes the plugin gets from
// Obsidian, and links are resolved by Obsidian's rules, so both hosts answer every tool alike.
// Link maps are recomputed per source on demand; a changed note invalidates only itself, and a created
// or deleted file only the notes whose links could name it.
import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { CachedMetadata, Pos } from "../../core/notes/metadata";
import { basename, extname } from "../../core/notes/paths";
import { parseNote, stripBom } from "../../core/notes/structure";
import type { LinkMap, MetadataPort } from "../../core/ports";
import { LinkResolver, stripSubpath } from "../../core/notes/link-resolver";

const STATE_FORMAT = "secondbrain-node-metadata";
const STATE_VERSION = 2;

/**
 * Each note keeps its linkpaths in the clear, so link maps are ready without decoding anything, and its
 * cache packed: JSON (positions as six-number arrays), deflated, in base64 — under half the JSON's size,
 * in memory and in the snapshot — decoded only when first asked for. A warm start then pays for reading
 * the state and resolving links, and each note's decode (some 30 µs) only when it is used.
 */
export interface NodeMetadataState {
  format: typeof STATE_FORMAT;
  version: typeof STATE_VERSION;
  notes: Record<string, PackedNote>;
}

export interface PackedNote {
  links: string[];
  cache: string;
}

interface ParsedNote {
  /** Null until a packed cache is first decoded; stays null if it does not decode. */
  cache: CachedMetadata | null;
  packed: string | null;
  /** Targets of links, embeds and frontmatter links, subpaths stripped, in order. */
  linkpaths: readonly string[];
  /** Their lowercased last segments: the file names resolution looks up (plus `.md`). */
  names: ReadonlySet<string>;
}

interface SourceLinks {
  resolved: Readonly<Record<string, number>>;
  unresolved: Readonly<Record<string, number>>;
}

interface LinkMaps {
  resolved: LinkMap;
  unresolved: LinkMap;
}

const EMPTY: Readonly<Record<string, number>> = Object.freeze({});
const NO_LINKS: SourceLinks = { resolved: EMPTY, unresolved: EMPTY };

function isNotePath(path: string): boolean {
  return extname(path) === "md";
}

function linkpathsOf(cache: CachedMetadata): string[] {
  const linkpaths: string[] = [];
  for (const list of [cache.links, cache.embeds, cache.frontmatterLinks]) {
    for (const reference of list ?? []) linkpaths.push(stripSubpath(reference.link));
  }
  return linkpaths;
}

function noteEntry(cache: CachedMetadata | null, packed: string | null, linkpaths: readonly string[]): ParsedNote {
  const names = new Set(linkpaths.map((linkpath) => basename(linkpath.normalize("NFC").toLowerCase())));
  return { cache, packed, linkpaths, names };
}

function countInto(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

export class NodeMetadata implements MetadataPort {
  private readonly resolver = new LinkResolver();
  private readonly notes = new Map<string, ParsedNote>();
  private readonly sourceLinks = new Map<string, SourceLinks>();
  /** Lowercased names of files created or deleted since the maps were last built. */
  private readonly changedNames = new Set<string>();
  private notePaths: string[] | null = null;
  private maps: LinkMaps | null = null;

  getCache(path: string): CachedMetadata | null {
    if (!this.resolver.hasFile(path)) return null;
    if (!isNotePath(path)) return {};
    const note = this.notes.get(path);
    if (!note) return null;
    if (note.cache === null && note.packed !== null) {
      note.cache = unpackCache(note.packed);
      note.packed = null;
    }
    return note.cache;
  }

  getFirstLinkpathDest(linkpath: string, sourcePath: string): string | null {
    return this.resolver.resolve(linkpath, sourcePath);
  }

  getLinkpathCandidates(linkpath: string, sourcePath: string): string[] {
    return this.resolver.candidates(linkpath, sourcePath);
  }

  resolvedLinks(): LinkMap {
    return this.linkMaps().resolved;
  }

  unresolvedLinks(): LinkMap {
    return this.linkMaps().unresolved;
  }

  update(path: string, text: string): void {
    if (isNotePath(path)) {
      const cache = parseNote(stripBom(text));
      this.notes.set(path, noteEntry(cache, null, linkpathsOf(cache)));
    }
    this.forgetSource(path);
    if (this.resolver.hasFile(path)) return;
    this.resolver.addFile(path);
    this.fileSetChanged(path);
  }

  remove(path: string): void {
    this.notes.delete(path);
    this.forgetSource(path);
    if (!this.resolver.hasFile(path)) return;
    this.resolver.removeFile(path);
    this.fileSetChanged(path);
  }

  setFiles(paths: readonly string[]): void {
    this.resolver.setFiles(paths);
    for (const path of [...this.notes.keys()]) {
      if (!this.resolver.hasFile(path)) this.notes.delete(path);
    }
    this.sourceLinks.clear();
    this.changedNames.clear();
    this.notePaths = null;
    this.maps = null;
  }

  /**
   * The parsed notes of the current file set (only `paths` when given); JSON-serialisable. Exported
   * notes stay packed in memory too (a third of their parsed size) until a reader asks for their cache:
   * after a build, most notes are never asked for again.
   */
  exportState(paths?: readonly string[]): NodeMetadataState {
    const notes: Record<string, PackedNote> = {};
    const add = (path: string, note: ParsedNote | undefined): void => {
      if (!note || !this.resolver.hasFile(path)) return;
      if (note.packed === null && note.cache !== null) {
        note.packed = packCache(note.cache);
        note.cache = null;
      }
      if (note.packed !== null) notes[path] = { links: [...note.linkpaths], cache: note.packed };
    };
    if (paths) for (const path of paths) add(path, this.notes.get(path));
    else for (const [path, note] of this.notes) add(path, note);
    return { format: STATE_FORMAT, version: STATE_VERSION, notes };
  }

  /**
   * Adds parsed notes without re-parsing, replacing known ones of the same path; the file set stays
   * what setFiles said. False (and nothing changed) when the state has the wrong shape. A packed cache
   * that does not decode later reads as null, as a note Obsidian failed to parse.
   */
  importState(state: unknown): boolean {
    if (!isRecord(state) || state["format"] !== STATE_FORMAT || state["version"] !== STATE_VERSION) return false;
    const notes = state["notes"];
    if (!isRecord(notes)) return false;
    const imported = new Map<string, ParsedNote>();
    for (const [path, packed] of Object.entries(notes)) {
      if (!isNotePath(path) || !isPackedNote(packed)) return false;
      imported.set(path, noteEntry(null, packed.cache, packed.links));
    }
    for (const [path, note] of imported) {
      this.notes.set(path, note);
      this.sourceLinks.delete(path);
    }
    this.maps = null;
    return true;
  }

  private fileSetChanged(path: string): void {
    this.changedNames.add(basename(path).toLowerCase());
    this.notePaths = null;
    this.maps = null;
  }

  // Like Obsidian's updateRelatedLinks, but batched: a burst of creates (a git checkout, a sync) costs
  // one pass over the notes' looked-up names when the maps are next read.
  private forgetNotesNamingChangedFiles(): void {
    if (this.changedNames.size === 0) return;
    for (const source of [...this.sourceLinks.keys()]) {
      for (const name of this.notes.get(source)?.names ?? []) {
        if (this.changedNames.has(name) || this.changedNames.has(`${name}.md`)) {
          this.sourceLinks.delete(source);
          break;
        }
      }
    }
    this.changedNames.clear();
  }

  private forgetSource(path: string): void {
    this.sourceLinks.delete(path);
    this.maps = null;
  }

  private linksOf(path: string): SourceLinks {
    const known = this.sourceLinks.get(path);
    if (known) return known;
    const linkpaths = this.notes.get(path)?.linkpaths ?? [];
    if (linkpaths.length === 0) return NO_LINKS;
    const resolved: Record<string, number> = {};
    const unresolved: Record<string, number> = {};
    let resolvedAny = false;
    let unresolvedAny = false;
    for (const linkpath of linkpaths) {
      const destination = this.resolver.resolve(linkpath, path);
      if (destination !== null) {
        countInto(resolved, destination);
        resolvedAny = true;
      } else {
        countInto(unresolved, linkpath);
        unresolvedAny = true;
      }
    }
    const links: SourceLinks = {
      resolved: resolvedAny ? Object.freeze(resolved) : EMPTY,
      unresolved: unresolvedAny ? Object.freeze(unresolved) : EMPTY,
    };
    this.sourceLinks.set(path, links);
    return links;
  }

  private linkMaps(): LinkMaps {
    if (this.maps) return this.maps;
    this.forgetNotesNamingChangedFiles();
    this.notePaths ??= this.resolver
      .allFiles()
      .filter(isNotePath)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const resolved: Record<string, Readonly<Record<string, number>>> = {};
    const unresolved: Record<string, Readonly<Record<string, number>>> = {};
    for (const path of this.notePaths) {
      const links = this.linksOf(path);
      resolved[path] = links.resolved;
      unresolved[path] = links.unresolved;
    }
    this.maps = { resolved: Object.freeze(resolved), unresolved: Object.freeze(unresolved) };
    return this.maps;
  }
}

// Packing touches only the parser's own structures: `frontmatter` is user data, so a user value that
// happens to look like a position is never rewritten.
const POSITION_KEYS = new Set(["position", "frontmatterPosition"]);

function isPos(value: unknown): value is Pos {
  return isRecord(value) && isLoc(value["start"]) && isLoc(value["end"]);
}

function isLoc(value: unknown): boolean {
  return (
    isRecord(value) &&
    typeof value["line"] === "number" &&
    typeof value["col"] === "number" &&
    typeof value["offset"] === "number"
  );
}

function isPackedPos(value: unknown): value is [number, number, number, number, number, number] {
  return Array.isArray(value) && value.length === 6 && value.every((item) => typeof item === "number");
}

function packPos(value: unknown): unknown {
  if (!isPos(value)) return value;
  const { start, end } = value;
  return [start.line, start.col, start.offset, end.line, end.col, end.offset];
}

function unpackPos(value: unknown): unknown {
  if (!isPackedPos(value)) return value;
  const [startLine, startCol, startOffset, endLine, endCol, endOffset] = value;
  return {
    start: { line: startLine, col: startCol, offset: startOffset },
    end: { line: endLine, col: endCol, offset: endOffset },
  };
}

// Plain loops rather than Object.entries and spreads: this runs over every note of a large vault.
function packValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(packValue);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key in value) {
    const item = value[key];
    out[key] = POSITION_KEYS.has(key) ? packPos(item) : packValue(item);
  }
  return out;
}

/** Works on a freshly parsed JSON tree, so it changes it in place. */
function unpackInPlace(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) unpackInPlace(item);
    return;
  }
  if (!isRecord(value)) return;
  for (const key in value) {
    if (POSITION_KEYS.has(key)) value[key] = unpackPos(value[key]);
    else unpackInPlace(value[key]);
  }
}

function packCache(cache: CachedMetadata): string {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(cache)) {
    out[key] = key === "frontmatter" ? item : POSITION_KEYS.has(key) ? packPos(item) : packValue(item);
  }
  return deflateRawSync(JSON.stringify(out)).toString("base64");
}

function unpackCache(packed: string): CachedMetadata | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(inflateRawSync(Buffer.from(packed, "base64")).toString("utf8"));
  } catch {
    return null;
  }
  if (!isRecord(parsed)) return null;
  for (const key in parsed) {
    if (key === "frontmatter") continue;
    if (POSITION_KEYS.has(key)) parsed[key] = unpackPos(parsed[key]);
    else unpackInPlace(parsed[key]);
  }
  return isCachedMetadata(parsed) ? parsed : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isPackedNote(value: unknown): value is PackedNote {
  return (
    isRecord(value) &&
    typeof value["cache"] === "string" &&
    Array.isArray(value["links"]) &&
    value["links"].every((link) => typeof link === "string")
  );
}

function isReferenceList(value: unknown): boolean {
  if (value === undefined) return true;
  return (
    Array.isArray(value) &&
    value.every((item) => isRecord(item) && typeof item["link"] === "string" && typeof item["original"] === "string")
  );
}

function isCachedMetadata(value: unknown): value is CachedMetadata {
  if (!isRecord(value)) return false;
  for (const key of ["links", "embeds", "frontmatterLinks"]) {
    if (!isReferenceList(value[key])) return false;
  }
  for (const key of ["tags", "headings", "sections", "listItems"]) {
    const list = value[key];
    if (list !== undefined && !(Array.isArray(list) && list.every((item) => isRecord(item) && isPos(item["position"])))) {
      return false;
    }
  }
  for (const key of ["frontmatter", "blocks"]) {
    const entry = value[key];
    if (entry !== undefined && !isRecord(entry)) return false;
  }
  const position = value["frontmatterPosition"];
  return position === undefined || isPos(position);
}
