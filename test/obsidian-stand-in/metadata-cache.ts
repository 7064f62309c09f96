// MetadataCache (obsidian-api.md §5, checklist 7–9): parses asynchronously after a vault event, fires
// `changed`, then `resolve` for each file whose links were recomputed, then one `resolved` when the
// queue drains. Structure comes from the stand-in's own parser, not from the code under test.
import type { CachedMetadata } from "obsidian";
import { Events } from "./events";
import { getLinkpathDest, fileToLinktext as linktextFor } from "./metadata/resolve";
import { parseMarkdownMetadata } from "./metadata/parse";
import { TFile, type CallCounts, type TAbstractFile, type Vault } from "./vault";

type LinkMap = Record<string, Record<string, number>>;

function count(calls: CallCounts, name: string): void {
  calls[name] = (calls[name] ?? 0) + 1;
}

function linkpathOf(link: string): string {
  const hash = link.indexOf("#");
  return hash < 0 ? link : link.slice(0, hash);
}

export class MetadataCache extends Events {
  private readonly vault: Vault;
  private readonly caches = new Map<string, CachedMetadata>();
  private readonly resolved: LinkMap = {};
  private readonly unresolved: LinkMap = {};
  readonly calls: CallCounts = {};
  private readonly queue = new Set<string>();
  private readonly deletedQueue: Array<{ file: TAbstractFile; prev: CachedMetadata | null }> = [];
  private scheduled = false;
  private working: Promise<void> = Promise.resolve();
  private idleWaiters: Array<() => void> = [];

  constructor(vault: Vault) {
    super();
    this.vault = vault;
  }

  get resolvedLinks(): LinkMap {
    count(this.calls, "resolvedLinks");
    return this.resolved;
  }

  get unresolvedLinks(): LinkMap {
    count(this.calls, "unresolvedLinks");
    return this.unresolved;
  }

  /** Parses every note and resolves every link (the app's startup; the app fires `resolved` after layout-ready). */
  async initialize(): Promise<void> {
    for (const file of this.vault.getMarkdownFiles()) this.caches.set(file.path, parseMarkdownMetadata(await this.vault.cachedRead(file)));
    this.resolveAll();
  }

  /** Follows the vault's events; call once the tree is loaded. */
  follow(): void {
    const onChange = (file: TAbstractFile): void => {
      if (file instanceof TFile && file.extension === "md") this.enqueue(file.path);
      else this.schedule();
    };
    this.vault.on("create", onChange);
    this.vault.on("modify", onChange);
    this.vault.on("delete", (file: TAbstractFile) => {
      if (!(file instanceof TFile)) return;
      const prev = this.caches.get(file.path) ?? null;
      this.caches.delete(file.path);
      this.queue.delete(file.path);
      this.deletedQueue.push({ file, prev });
      this.schedule();
    });
    this.vault.on("rename", (file: TAbstractFile, oldPath: string) => {
      if (!(file instanceof TFile)) return;
      const cache = this.caches.get(oldPath);
      if (cache) {
        this.caches.delete(oldPath);
        this.caches.set(file.path, cache);
      }
      for (const map of [this.resolved, this.unresolved]) {
        if (map[oldPath]) {
          map[file.path] = map[oldPath]!;
          delete map[oldPath];
        }
      }
      this.schedule();
    });
  }

  private enqueue(vaultPath: string): void {
    this.queue.add(vaultPath);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // Never in the same tick as the write.
    setTimeout(() => {
      this.scheduled = false;
      this.working = this.working.then(() => this.drain());
    }, 0);
  }

  private async drain(): Promise<void> {
    const paths = [...this.queue];
    this.queue.clear();
    const deleted = this.deletedQueue.splice(0);
    for (const { file, prev } of deleted) this.trigger("deleted", file, prev);
    const changed: TFile[] = [];
    for (const vaultPath of paths) {
      const file = this.vault.getFileByPath(vaultPath);
      if (!file) continue;
      const data = await this.vault.cachedRead(file);
      const cache = parseMarkdownMetadata(data);
      this.caches.set(vaultPath, cache);
      this.trigger("changed", file, data, cache);
      changed.push(file);
    }
    await new Promise((resolve) => setTimeout(resolve, 0));
    const recomputed = this.resolveAll();
    for (const file of changed) {
      recomputed.add(file.path);
      for (const source of this.sourcesNaming(file.basename)) recomputed.add(source);
    }
    for (const vaultPath of recomputed) {
      const file = this.vault.getFileByPath(vaultPath);
      if (file) this.trigger("resolve", file);
    }
    if (this.queue.size > 0 || this.deletedQueue.length > 0) return;
    this.trigger("resolved");
    for (const waiter of this.idleWaiters.splice(0)) waiter();
  }

  /** Notes with a link, embed or frontmatter link whose last path segment is `basename`. */
  private sourcesNaming(basename: string): string[] {
    const wanted = basename.toLowerCase();
    const out: string[] = [];
    for (const [source, cache] of this.caches) {
      const references = [...(cache.links ?? []), ...(cache.embeds ?? []), ...(cache.frontmatterLinks ?? [])];
      const names = references.map((reference) => linkpathOf(reference.link).split("/").pop()!.replace(/\.md$/i, "").toLowerCase());
      if (names.includes(wanted)) out.push(source);
    }
    return out;
  }

  /** Recomputes both link maps; returns the sources whose entries changed. */
  private resolveAll(): Set<string> {
    const paths = this.vault.getFiles().map((file) => file.path);
    const changed = new Set<string>();
    const markdown = new Set(this.vault.getMarkdownFiles().map((file) => file.path));
    for (const source of [...Object.keys(this.resolved)]) {
      if (!markdown.has(source)) {
        delete this.resolved[source];
        delete this.unresolved[source];
      }
    }
    for (const source of markdown) {
      const cache = this.caches.get(source) ?? {};
      const resolved: Record<string, number> = {};
      const unresolved: Record<string, number> = {};
      const references = [...(cache.links ?? []), ...(cache.embeds ?? []), ...(cache.frontmatterLinks ?? [])];
      for (const reference of references) {
        const linkpath = linkpathOf(reference.link);
        const target = linkpath === "" ? source : getLinkpathDest(linkpath, source, paths)[0];
        if (target) resolved[target] = (resolved[target] ?? 0) + 1;
        else unresolved[linkpath] = (unresolved[linkpath] ?? 0) + 1;
      }
      if (JSON.stringify(resolved) !== JSON.stringify(this.resolved[source]) || JSON.stringify(unresolved) !== JSON.stringify(this.unresolved[source])) {
        changed.add(source);
      }
      this.resolved[source] = resolved;
      this.unresolved[source] = unresolved;
    }
    return changed;
  }

  /** Test helper: resolves once every queued parse is done and `resolved` has fired. */
  async whenIdle(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (!this.scheduled && this.queue.size === 0) {
      await this.working;
      return;
    }
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  getFileCache(file: TFile): CachedMetadata | null {
    count(this.calls, "getFileCache");
    return this.getCacheFor(file.path);
  }

  getCache(vaultPath: string): CachedMetadata | null {
    count(this.calls, "getCache");
    return this.getCacheFor(vaultPath);
  }

  private getCacheFor(vaultPath: string): CachedMetadata | null {
    const file = this.vault.getFileByPath(vaultPath);
    if (!file) return null;
    if (file.extension !== "md") return {};
    return this.caches.get(vaultPath) ?? null;
  }

  /** The app's undocumented ranked list behind getFirstLinkpathDest (§6); renameFile compares it before and after. */
  getLinkpathDest(linkpath: string, sourcePath: string): TFile[] {
    if (linkpath === "") return [this.vault.getFileByPath(sourcePath)].filter((file): file is TFile => file !== null);
    return getLinkpathDest(linkpath, sourcePath, this.vault.getFiles().map((file) => file.path))
      .map((found) => this.vault.getFileByPath(found))
      .filter((file): file is TFile => file !== null);
  }

  getFirstLinkpathDest(linkpath: string, sourcePath: string): TFile | null {
    count(this.calls, "getFirstLinkpathDest");
    if (linkpath === "") return this.vault.getFileByPath(sourcePath);
    const first = getLinkpathDest(linkpath, sourcePath, this.vault.getFiles().map((file) => file.path))[0];
    return first ? this.vault.getFileByPath(first) : null;
  }

  fileToLinktext(file: TFile, sourcePath: string, omitMdExtension = true): string {
    const format = (this.vault.getConfig("newLinkFormat") as "shortest" | "relative" | "absolute" | undefined) ?? "shortest";
    return linktextFor(file.path, sourcePath, omitMdExtension, format, this.vault.getFiles().map((other) => other.path));
  }
}
