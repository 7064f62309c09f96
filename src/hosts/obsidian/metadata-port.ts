// Structure comes from Obsidian's metadataCache (obsidian-api.md §5): the plugin never parses notes
// for links, headings or tags itself. Paths are mapped between the scope and the whole vault.
import { type TFile, type App, type EventRef, type CachedMetadata as ObsidianCachedMetadata } from "obsidian";
import type { CachedMetadata } from "../../core/notes/metadata";
import type { LinkMap, MetadataPort } from "../../core/ports";
import { LinkResolver } from "../../core/notes/link-resolver";
import type { FolderScope } from "./scope";

/** Both describe the same object (the core's type is a transcription of obsidian.d.ts). */
function toCore(cache: ObsidianCachedMetadata): CachedMetadata {
  return cache;
}

export class ObsidianMetadata implements MetadataPort {
  private readonly app: App;
  private readonly scope: FolderScope;
  /** Ranks every candidate of a linkpath; metadataCache only tells the first one. */
  private resolver: LinkResolver | null = null;
  private readonly refs: EventRef[] = [];

  constructor(app: App, scope: FolderScope) {
    this.app = app;
    this.scope = scope;
    const forget = (): void => {
      this.resolver = null;
    };
    this.refs.push(this.app.vault.on("create", forget), this.app.vault.on("delete", forget), this.app.vault.on("rename", forget));
  }

  detach(): void {
    for (const ref of this.refs) this.app.vault.offref(ref);
    this.refs.length = 0;
  }

  private fileAt(relative: string): TFile | null {
    return this.app.vault.getFileByPath(this.scope.toVault(relative));
  }

  getCache(relative: string): CachedMetadata | null {
    const file = this.fileAt(relative);
    if (!file) return null;
    const cache = this.app.metadataCache.getFileCache(file);
    return cache ? toCore(cache) : null;
  }

  getFirstLinkpathDest(linkpath: string, sourcePath: string): string | null {
    const target = this.app.metadataCache.getFirstLinkpathDest(linkpath, this.scope.toVault(sourcePath));
    return target ? this.scope.fromVault(target.path) : null;
  }

  getLinkpathCandidates(linkpath: string, sourcePath: string): string[] {
    const first = this.getFirstLinkpathDest(linkpath, sourcePath);
    if (first === null) return [];
    this.resolver ??= new LinkResolver(this.app.vault.getFiles().map((file) => file.path));
    const ranked = this.resolver
      .candidates(linkpath, this.scope.toVault(sourcePath))
      .map((path) => this.scope.fromVault(path))
      .filter((path): path is string => path !== null && path !== first);
    return [first, ...ranked];
  }

  resolvedLinks(): LinkMap {
    return this.scoped(this.app.metadataCache.resolvedLinks, true);
  }

  unresolvedLinks(): LinkMap {
    return this.scoped(this.app.metadataCache.unresolvedLinks, false);
  }

  /** The link map restricted to sources in scope; resolved targets outside the scope are left out. */
  private scoped(map: Record<string, Record<string, number>>, targetsArePaths: boolean): LinkMap {
    if (this.scope.prefix === "") return map;
    const result: Record<string, Record<string, number>> = {};
    for (const [source, targets] of Object.entries(map)) {
      const relativeSource = this.scope.fromVault(source);
      if (relativeSource === null) continue;
      if (!targetsArePaths) {
        result[relativeSource] = targets;
        continue;
      }
      const inScope: Record<string, number> = {};
      for (const [target, count] of Object.entries(targets)) {
        const relativeTarget = this.scope.fromVault(target);
        if (relativeTarget !== null) inScope[relativeTarget] = count;
      }
      result[relativeSource] = inScope;
    }
    return result;
  }

  // metadataCache follows the vault on its own.
  update(): void {}
  remove(): void {}
  addFile(): void {}
  async setFiles(): Promise<void> {}
}
