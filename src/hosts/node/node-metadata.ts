// The Node host's metadataCache: notes are parsed by the same parser whose shapes the plugin gets from
// Obsidian, and links are resolved by Obsidian's rules, so both hosts answer every tool alike.
// Link maps are recomputed per source on demand; a changed note invalidates only itself, and a created
// or deleted file only the notes whose links could name it.
import type { CachedMetadata } from "../../core/notes/metadata";
import { decodeMetadata, encodeMetadata } from "../../core/notes/metadata-codec";
import { basename, comparePaths, extname } from "../../core/notes/paths";
import { parseNote, stripBom } from "../../core/notes/structure";
import type { LinkMap, MetadataPort, PackedMetadata, StoredMetadata } from "../../core/ports";
import { sortInSlices } from "../../core/time-slice";
import { readStoredMetadata } from "../../core/vault/metadata-file";
import { LinkResolver } from "../../core/notes/link-resolver";
import { linkpathsOf } from "../../core/vault/note-document";

/*
 * Each note keeps its linkpaths in the clear, so link maps are ready without decoding anything, and its
 * cache packed by core/notes/metadata-codec (a sixth of the cache's JSON, a ninth of its parsed size):
 * in memory when parsed here, in the snapshot's metadata file (held open) when it came from a snapshot,
 * decoded when asked for and kept decoded only for the last few hundred notes read. A warm start then
 * pays for resolving links, and each note's read and decode (some 15 µs) only when it is used.
 */
interface ParsedNote {
  /** Null while the packed cache lies in the snapshot (`stored`), or nowhere. */
  packed: Uint8Array | null;
  stored: StoredMetadata | null;
  /** Targets of links, embeds and frontmatter links, subpaths stripped, in order. */
  linkpaths: readonly string[];
}

export interface NodeMetadataOptions {
  /**
   * The note's text, for a note whose packed cache cannot be read from the snapshot (a metadata file
   * missing, cut short or damaged): it is parsed again. Null when the note cannot be read.
   */
  readNote?: (path: string) => string | null;
}

/**
 * Decoded caches kept for readers: a tool reads the same few notes again and again, and one that
 * reads every note's frontmatter (note_query) must not leave a whole vault decoded in memory.
 */
const DECODED_NOTES = 512;
/** Notes whose links are resolved between two pauses of prepareLinks. */
const LINKS_PER_STEP = 256;
/** Files taken into the file set between two pauses of setFiles. */
const FILES_PER_STEP = 2048;

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

function noteEntry(packed: Uint8Array | null, stored: StoredMetadata | null, linkpaths: readonly string[]): ParsedNote {
  return { packed, stored, linkpaths };
}

/** The lowercased file name a linkpath looks up (plus `.md`). */
function lookedUpName(linkpath: string): string {
  return basename(linkpath.normalize("NFC").toLowerCase());
}

function countInto(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

export class NodeMetadata implements MetadataPort {
  private readonly options: NodeMetadataOptions;
  private resolver = new LinkResolver();
  /**
   * Files added (true) or removed (false) while setFiles builds the next file set: they go into the
   * current one at once and into the next one before it takes over.
   */
  private filesMeanwhile: Map<string, boolean> | null = null;
  /** Counts setFiles calls: a build that a later call overtook is dropped. */
  private fileSets = 0;
  private readonly notes = new Map<string, ParsedNote>();
  private readonly sourceLinks = new Map<string, SourceLinks>();
  /** Lowercased names of files created or deleted since the maps were last built. */
  private readonly changedNames = new Set<string>();
  private notePaths: string[] | null = null;
  /** Counts the times the link maps were dropped: prepareLinks keeps its maps only if they were not meanwhile. */
  private mapsDropped = 0;
  private maps: LinkMaps | null = null;
  /**
   * One copy of each linkpath: links follow a few popular targets, so most of a vault's hundreds of
   * thousands of linkpaths are repeats.
   */
  private readonly linkpathCopies = new Map<string, string>();
  /** Least recently read first. */
  private readonly decoded = new Map<string, CachedMetadata | null>();

  constructor(options: NodeMetadataOptions = {}) {
    this.options = options;
  }

  private shared(linkpaths: readonly string[]): string[] {
    return linkpaths.map((linkpath) => {
      const known = this.linkpathCopies.get(linkpath);
      if (known !== undefined) return known;
      this.linkpathCopies.set(linkpath, linkpath);
      return linkpath;
    });
  }

  getCache(path: string): CachedMetadata | null {
    if (!this.resolver.hasFile(path)) return null;
    if (!isNotePath(path)) return {};
    const note = this.notes.get(path);
    if (!note) return null;
    let cache = this.decoded.get(path);
    if (cache === undefined) {
      const packed = this.packedOf(note);
      cache = packed ? decodeMetadata(packed) : this.parse(path);
    } else this.decoded.delete(path);
    this.remember(path, cache);
    return cache;
  }

  /** The note's packed cache, read from the snapshot when it lies there; null when it cannot be. */
  private packedOf(note: ParsedNote): Uint8Array | null {
    return note.packed ?? (note.stored ? readStoredMetadata(note.stored) : null);
  }

  private parse(path: string): CachedMetadata | null {
    const text = this.options.readNote?.(path) ?? null;
    return text === null ? null : parseNote(stripBom(text));
  }

  private remember(path: string, cache: CachedMetadata | null): void {
    this.decoded.set(path, cache);
    if (this.decoded.size > DECODED_NOTES) this.decoded.delete(this.decoded.keys().next().value!);
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
      this.notes.set(path, noteEntry(encodeMetadata(cache), null, this.shared(linkpathsOf(cache))));
      this.decoded.delete(path);
      this.remember(path, cache);
    }
    this.forgetSource(path);
    this.addFile(path);
  }

  addFile(path: string): void {
    this.filesMeanwhile?.set(path, true);
    if (this.resolver.hasFile(path)) return;
    this.resolver.addFile(path);
    this.fileSetChanged(path);
  }

  remove(path: string): void {
    this.notes.delete(path);
    this.decoded.delete(path);
    this.forgetSource(path);
    this.filesMeanwhile?.set(path, false);
    if (!this.resolver.hasFile(path)) return;
    this.resolver.removeFile(path);
    this.fileSetChanged(path);
  }

  async setFiles(paths: readonly string[], pause: () => Promise<void>): Promise<void> {
    const call = ++this.fileSets;
    const meanwhile = new Map<string, boolean>();
    this.filesMeanwhile = meanwhile;
    const next = new LinkResolver();
    for (let at = 0; at < paths.length; at++) {
      next.addFile(paths[at]!);
      if (at % FILES_PER_STEP === FILES_PER_STEP - 1) {
        await pause();
        if (call !== this.fileSets) return;
      }
    }
    for (const [path, added] of meanwhile) {
      if (added) next.addFile(path);
      else next.removeFile(path);
    }
    this.filesMeanwhile = null;
    this.resolver = next;
    this.sourceLinks.clear();
    this.changedNames.clear();
    this.notePaths = null;
    this.dropMaps();
    // Only deletes follow: a note that comes back meanwhile is parsed again by update().
    let checked = 0;
    for (const path of [...this.notes.keys()]) {
      if (!this.resolver.hasFile(path)) {
        this.notes.delete(path);
        this.decoded.delete(path);
      }
      if (++checked % FILES_PER_STEP === 0) await pause();
    }
  }

  /** The note's linkpaths and packed cache, for the index snapshot; null for a note not in the file set. */
  exportNote(path: string): PackedMetadata | null {
    const note = this.notes.get(path);
    if (!note || !this.resolver.hasFile(path)) return null;
    let packed = this.packedOf(note);
    if (!packed) {
      const cache = this.parse(path);
      if (!cache) return null;
      packed = encodeMetadata(cache);
    }
    return { links: note.linkpaths, packed, source: note };
  }

  /**
   * Adds one parsed note without re-parsing it, replacing a known one of the same path; the file set
   * stays what setFiles said, and a path that is not a note's is ignored. A packed cache that does not
   * decode later reads as null, as a note Obsidian failed to parse. The bytes are kept, not copied.
   */
  importNote(path: string, note: PackedMetadata): void {
    if (!isNotePath(path)) return;
    this.notes.set(path, noteEntry(note.packed, null, this.shared(note.links)));
    this.decoded.delete(path);
    this.sourceLinks.delete(path);
    this.dropMaps();
  }

  importStored(path: string, links: readonly string[], stored: StoredMetadata | null, replacing?: PackedMetadata): void {
    if (!isNotePath(path)) return;
    if (replacing) {
      const current = this.notes.get(path);
      // Changed since it was exported: its newer cache stays. The linkpaths are the same.
      if (!current || current !== replacing.source) return;
      this.notes.set(path, noteEntry(null, stored, current.linkpaths));
      return;
    }
    this.notes.set(path, noteEntry(null, stored, this.shared(links)));
    this.decoded.delete(path);
    this.sourceLinks.delete(path);
    this.dropMaps();
  }

  private fileSetChanged(path: string): void {
    this.changedNames.add(basename(path).toLowerCase());
    this.notePaths = null;
    this.dropMaps();
  }

  // Like Obsidian's updateRelatedLinks, but batched: a burst of creates (a git checkout, a sync) costs
  // one pass over the notes' looked-up names when the maps are next read.
  private forgetNotesNamingChangedFiles(): void {
    if (this.changedNames.size === 0) return;
    for (const source of [...this.sourceLinks.keys()]) {
      for (const linkpath of this.notes.get(source)?.linkpaths ?? []) {
        const name = lookedUpName(linkpath);
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
    this.dropMaps();
  }

  async prepareLinks(pause: () => Promise<void>): Promise<void> {
    this.forgetNotesNamingChangedFiles();
    let done = 0;
    for (const path of [...this.notes.keys()]) {
      if (this.resolver.hasFile(path)) this.linksOf(path);
      if (++done % LINKS_PER_STEP === 0) await pause();
    }
    // The maps too, a stretch at a time: sorting 50,000 paths and filling two objects with 50,000
    // keys held the event loop 40-80 ms when the first resolvedLinks() did it in one piece.
    if (this.maps) return;
    this.forgetNotesNamingChangedFiles();
    const dropped = this.mapsDropped;
    const notePaths = this.notePaths ?? (await sortInSlices(this.resolver.allFiles().filter(isNotePath), comparePaths, pause));
    const steps = this.mapSteps(notePaths);
    for (;;) {
      const step = steps.next();
      // Dropped meanwhile, or built by a resolvedLinks() that could not wait: nothing to keep.
      if (this.mapsDropped !== dropped || this.maps) return;
      if (step.done) {
        this.notePaths = notePaths;
        this.maps = step.value;
        return;
      }
      await pause();
    }
  }

  private dropMaps(): void {
    this.maps = null;
    this.mapsDropped += 1;
  }

  private linksOf(path: string): SourceLinks {
    const known = this.sourceLinks.get(path);
    if (known) return known;
    const linkpaths = this.notes.get(path)?.linkpaths ?? [];
    if (linkpaths.length === 0) return NO_LINKS;
    const resolved = linkCounts();
    const unresolved = linkCounts();
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
    this.notePaths ??= this.resolver.allFiles().filter(isNotePath).sort(comparePaths);
    const steps = this.mapSteps(this.notePaths);
    for (;;) {
      const step = steps.next();
      if (step.done) return (this.maps = step.value);
    }
  }

  /** The link maps of the notes, built in steps of LINKS_PER_STEP notes: run through, or with pauses. */
  private *mapSteps(notePaths: readonly string[]): Generator<void, LinkMaps, void> {
    const resolved: Record<string, Readonly<Record<string, number>>> = {};
    const unresolved: Record<string, Readonly<Record<string, number>>> = {};
    for (let at = 0; at < notePaths.length; at++) {
      const links = this.linksOf(notePaths[at]!);
      resolved[notePaths[at]!] = links.resolved;
      unresolved[notePaths[at]!] = links.unresolved;
      if (at % LINKS_PER_STEP === LINKS_PER_STEP - 1) yield;
    }
    return { resolved: Object.freeze(resolved), unresolved: Object.freeze(unresolved) };
  }
}


/**
 * An empty object for a note's link counts, kept as a hash table from the start. Keyed by note paths,
 * plain objects each took a hidden class of their own, with transition trees around them: at 20,000
 * notes resolving every link made 30 MB of garbage that outlived the young generation, and took 60 %
 * longer. An ordinary object to its readers (its prototype is Object.prototype).
 */
function linkCounts(): Record<string, number> {
  return Object.setPrototypeOf(Object.create(null), Object.prototype) as Record<string, number>;
}
