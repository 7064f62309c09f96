// The Node host's metadataCache: notes are parsed by the same parser whose shapes the plugin gets from
// Obsidian, and links are resolved by Obsidian's rules, so both hosts answer every tool alike.
// Link maps are recomputed per source on demand; a changed note invalidates only itself, and a created
// or deleted file only the notes whose links could name it.
import type { CachedMetadata } from "../../core/notes/metadata";
import { decodeMetadata, encodeMetadata } from "../../core/notes/metadata-codec";
import { basename, extname } from "../../core/notes/paths";
import { parseNote, stripBom } from "../../core/notes/structure";
import type { LinkMap, MetadataPort, PackedMetadata } from "../../core/ports";
import { LinkResolver, stripSubpath } from "../../core/notes/link-resolver";

const STATE_FORMAT = "secondbrain-node-metadata";
const STATE_VERSION = 3;

/**
 * Each note keeps its linkpaths in the clear, so link maps are ready without decoding anything, and its
 * cache packed by core/notes/metadata-codec (a sixth of the cache's JSON, a ninth of its parsed size), in
 * memory and in the snapshot, decoded only when first asked for. A warm start then pays for reading the
 * packed notes and resolving links, and each note's decode (some 10 µs) only when it is used. This JSON
 * form (the packed caches in base64) is what exportState gives; exportNote gives the bytes.
 */
export interface NodeMetadataState {
  format: typeof STATE_FORMAT;
  version: typeof STATE_VERSION;
  notes: Record<string, PackedNote>;
}

export interface PackedNote {
  links: string[];
  /** The packed cache in base64, so that the state is JSON. */
  cache: string;
}

interface ParsedNote {
  /** Null until a packed cache is first decoded; stays null if it does not decode. */
  cache: CachedMetadata | null;
  packed: Uint8Array | null;
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

function noteEntry(cache: CachedMetadata | null, packed: Uint8Array | null, linkpaths: readonly string[]): ParsedNote {
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
      note.cache = decodeMetadata(note.packed);
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
   * notes stay packed in memory, as with exportNote.
   */
  exportState(paths?: readonly string[]): NodeMetadataState {
    const notes: Record<string, PackedNote> = {};
    const add = (path: string): void => {
      const packed = this.exportNote(path);
      if (packed) notes[path] = { links: [...packed.links], cache: toBase64(packed.packed) };
    };
    if (paths) for (const path of paths) add(path);
    else for (const path of this.notes.keys()) add(path);
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
      imported.set(path, noteEntry(null, fromBase64(packed.cache), packed.links));
    }
    for (const [path, note] of imported) {
      this.notes.set(path, note);
      this.sourceLinks.delete(path);
    }
    this.maps = null;
    return true;
  }

  /**
   * The note's linkpaths and packed cache, for the index snapshot; null for a note not in the file set
   * or whose packed cache did not decode. The note stays packed in memory too until a reader asks for
   * its cache: after a build, most notes are never asked for again.
   */
  exportNote(path: string): PackedMetadata | null {
    const note = this.notes.get(path);
    if (!note || !this.resolver.hasFile(path)) return null;
    if (note.packed === null && note.cache !== null) {
      note.packed = encodeMetadata(note.cache);
      note.cache = null;
    }
    return note.packed === null ? null : { links: note.linkpaths, packed: note.packed };
  }

  /**
   * Adds one parsed note without re-parsing it, replacing a known one of the same path; the file set
   * stays what setFiles said, and a path that is not a note's is ignored. A packed cache that does not
   * decode later reads as null, as a note Obsidian failed to parse. The bytes are kept, not copied.
   */
  importNote(path: string, note: PackedMetadata): void {
    if (!isNotePath(path)) return;
    this.notes.set(path, noteEntry(null, note.packed, note.links));
    this.sourceLinks.delete(path);
    this.maps = null;
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

function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

function fromBase64(text: string): Uint8Array {
  return Buffer.from(text, "base64");
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
