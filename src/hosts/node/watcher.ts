// Follows outside edits. Events are debounced; a burst (git checkout, a sync client catching up)
// falls back to one full reconcile, which is cheaper than thousands of single updates.
//
// On Linux every folder gets a watch of its own ("tree"). Node 20's recursive fs.watch there is made
// of one watch per file, on the file's inode: a file replaced by rename (an editor's atomic save,
// `sed -i`, a sync tool, the server's own writes) kept the dead watch of its old inode, and none of its
// later changes were reported. A folder's watch reports every name in it, whatever inode it holds
// now, and needs one watch per folder instead of one per file. macOS and Windows watch a tree
// natively and keep following replaced files.
import { promises as fs, watch, type FSWatcher, type Stats } from "node:fs";
import path from "node:path";
import { TEMP_FILE_PREFIX } from "./fs-vault";

export type WatchMode = "tree" | "recursive";

export function defaultWatchMode(): WatchMode {
  return process.platform === "darwin" || process.platform === "win32" ? "recursive" : "tree";
}

/** The longest a change waits for quiet: steady writes (a log appended to every few ms) still get indexed. */
const MAX_DELAY_MS = 1000;

export interface WatcherOptions {
  root: string;
  debounceMs?: number;
  /** More distinct paths than this in one window count as a burst. */
  burstThreshold?: number;
  mode?: WatchMode;
  /**
   * Whether the index holds this file. A vanished path that it does not hold and that was no watched
   * folder was a passing temp file (`sed -i` makes one per edit): not worth a reconcile.
   */
  isKnown?(path: string): boolean;
  onChanges(paths: string[]): Promise<void>;
  onBurst(): Promise<void>;
  onError(error: unknown): void;
}

interface FolderWatch {
  watcher: FSWatcher;
  ino: number;
}

function ignored(name: string): boolean {
  return name.startsWith(".") || name.startsWith(TEMP_FILE_PREFIX);
}

/** Without the path: the error reaches the log, which never says where the vault lies. */
function watchFailure(error: unknown): Error {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return new Error(`a folder of the vault could not be watched (${typeof code === "string" ? code : "unknown error"}); the periodic check still finds its changes`);
}

export class VaultWatcher {
  private recursive: FSWatcher | null = null;
  /** Tree mode: the watched folders by their path relative to the root as on disk ("" is the root). */
  private readonly folders = new Map<string, FolderWatch>();
  /** Relative paths as on disk. */
  private pending = new Set<string>();
  private firstPendingAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private closed = false;
  private failures = 0;
  private readonly options: Required<Omit<WatcherOptions, "root" | "isKnown">> & Pick<WatcherOptions, "root" | "isKnown">;

  constructor(options: WatcherOptions) {
    this.options = { debounceMs: 200, burstThreshold: 500, mode: defaultWatchMode(), ...options };
  }

  /** Resolves once every folder is watched. */
  async start(): Promise<void> {
    this.closed = false;
    if (this.options.mode === "tree") {
      await this.watchTree("", null);
      return;
    }
    this.recursive = watch(this.options.root, { recursive: true }, (_event, filename) => {
      if (typeof filename !== "string") return;
      const relative = filename.split(/[\\/]/).join("/");
      if (relative.split("/").some(ignored)) return;
      this.add(relative);
    });
    this.recursive.on("error", (error) => this.options.onError(watchFailure(error)));
  }

  /** How many folders have a watch (tree mode). */
  get watchedFolders(): number {
    return this.folders.size;
  }

  private absolute(relative: string): string {
    return relative === "" ? this.options.root : path.join(this.options.root, ...relative.split("/"));
  }

  /**
   * Watches a folder and every folder below it. `found` collects the files met on the way: a folder
   * moved in brings files whose creation no watch saw.
   */
  private async watchTree(relative: string, found: string[] | null): Promise<void> {
    if (this.closed) return;
    const absolute = this.absolute(relative);
    let watcher: FSWatcher;
    try {
      watcher = watch(absolute, (_event, name) => {
        if (typeof name !== "string" || ignored(name)) return;
        this.add(relative === "" ? name : `${relative}/${name}`);
      });
    } catch (error) {
      // Gone already (its parent reports that), or the system's watch limit is reached.
      if ((error as { code?: string }).code !== "ENOENT") this.failed(error);
      return;
    }
    watcher.on("error", (error) => {
      this.unwatch(relative);
      this.failed(error);
    });
    // Stat'ed after the watch is set: the inode recorded is the one watched, or a newer one, which the
    // next event of the parent folder then takes for a replaced folder and watches anew.
    const stats = await fs.lstat(absolute).catch(() => null);
    if (!stats?.isDirectory() || this.closed) {
      watcher.close();
      return;
    }
    this.folders.get(relative)?.watcher.close();
    this.folders.set(relative, { watcher, ino: stats.ino });
    const entries = await fs.readdir(absolute, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (ignored(entry.name)) continue;
      const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) await this.watchTree(child, found);
      else if (found && (entry.isFile() || entry.isSymbolicLink())) found.push(child);
    }
  }

  /** Told once: over the system's watch limit every further folder fails the same way. */
  private failed(error: unknown): void {
    if (this.failures++ === 0) this.options.onError(watchFailure(error));
  }

  /** Drops the watches of a folder and every folder below it. */
  private unwatch(relative: string): void {
    const below = `${relative}/`;
    for (const [folder, watched] of this.folders) {
      if (folder === relative || relative === "" || folder.startsWith(below)) {
        watched.watcher.close();
        this.folders.delete(folder);
      }
    }
  }

  private add(relative: string): void {
    if (this.closed) return;
    if (this.pending.size === 0) this.firstPendingAt = Date.now();
    this.pending.add(relative);
    this.schedule();
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    const waited = Date.now() - this.firstPendingAt;
    this.timer = setTimeout(() => this.flush(), Math.max(0, Math.min(this.options.debounceMs, MAX_DELAY_MS - waited)));
  }

  private flush(): void {
    this.timer = null;
    const paths = [...this.pending];
    this.pending.clear();
    this.running = this.running.then(() => this.process(paths)).catch((error: unknown) => this.options.onError(error));
  }

  private async process(paths: readonly string[]): Promise<void> {
    if (paths.length > this.options.burstThreshold) {
      // New folders in the burst need their watches before the reconcile lists them.
      if (this.options.mode === "tree") await this.rewatch();
      await this.options.onBurst();
      return;
    }
    const report = new Set<string>();
    if (this.options.mode === "tree") {
      for (const relative of paths) await this.classify(relative, report);
    } else {
      for (const relative of paths) report.add(relative);
    }
    if (report.size === 0) return;
    const changed = [...report].map((relative) => relative.normalize("NFC"));
    if (changed.length > this.options.burstThreshold) await this.options.onBurst();
    else await this.options.onChanges(changed);
  }

  /** Tree mode: what a reported name now is decides what the index hears and which watches change. */
  private async classify(relative: string, report: Set<string>): Promise<void> {
    const stats: Stats | null = await fs.lstat(this.absolute(relative)).catch(() => null);
    const watched = this.folders.get(relative);
    if (stats?.isDirectory()) {
      // A folder's own changes come from its own watch.
      if (watched?.ino === stats.ino) return;
      if (watched) {
        // Replaced by another folder: what the old one held is reconciled away.
        this.unwatch(relative);
        report.add(relative);
      } else if (this.isKnown(relative)) {
        report.add(relative);
      }
      const found: string[] = [];
      await this.watchTree(relative, found);
      for (const file of found) report.add(file);
      return;
    }
    if (watched) {
      // A folder moved away or deleted: the index drops its files in a reconcile.
      this.unwatch(relative);
      report.add(relative);
      return;
    }
    if (!stats) {
      if (this.isKnown(relative)) report.add(relative);
      return;
    }
    if (stats.isFile() || stats.isSymbolicLink()) report.add(relative);
  }

  private isKnown(relative: string): boolean {
    return this.options.isKnown?.(relative.normalize("NFC")) ?? true;
  }

  /** Sets every folder's watch anew (after a burst, whose events were not looked at one by one). */
  private async rewatch(): Promise<void> {
    this.unwatch("");
    await this.watchTree("", null);
  }

  /** Resolves once every reported change has been applied. */
  async idle(): Promise<void> {
    while (this.timer || this.pending.size > 0) {
      await new Promise((resolve) => setTimeout(resolve, this.options.debounceMs));
    }
    await this.running;
  }

  async stop(): Promise<void> {
    this.recursive?.close();
    this.recursive = null;
    this.unwatch("");
    if (this.timer) {
      clearTimeout(this.timer);
      this.flush();
    }
    this.closed = true;
    await this.running;
  }
}
