// The vault port over a folder on disk. Walks skip every dot-entry (SPEC §6), so hidden folders such
// as .obsidian, .git and .trash never reach the engine. Every file is opened through its open, checked
// folder (contained-fs.ts), so a symbolic link swapped in meanwhile leads nothing out of the vault.
//
// Paths are NFC, as the engine knows them; names on disk may be in another Unicode form (macOS writes
// NFD). The walks note each such name, and a path is mapped to its names on disk before any use, so
// such a file is listed, read and written back under its own name, and never gets an NFC twin.
import { closeSync, promises as fs, lstatSync, readdirSync, readFile, readFileSync, realpathSync, statSync, type Dirent, type Stats } from "node:fs";
import path from "node:path";
import { ToolError } from "../../core/errors";
import { vaultFolderMissing } from "../../core/vault/directory";
import type { FileStat, VaultPort } from "../../core/ports";
import type { VaultEntry } from "../../history/git-history";
import { ContainedFs, errorCode, isInside, TEMP_FILE_PREFIX, type OpenFolder } from "./contained-fs";
import { fsErrorCode, fsToolError } from "./fs-errors";

export { TEMP_FILE_PREFIX };
/** Headless there is no app to ask for its configDir; vaults made by Obsidian use this one. */
export const OBSIDIAN_CONFIG_DIR = ".obsidian";

/** Stats in flight at once while listing a folder. */
const STAT_BATCH = 32;
/** Entries a scan stats between two chances to pause: a few hundred microseconds of work. */
const SCAN_STEP = 64;
/**
 * Files up to this size are read synchronously: a few microseconds for a note, where the promise
 * read costs tens in thread-pool round trips (a search reads ten notes for its snippets). Larger
 * files are read asynchronously, so that a slow disk never holds the event loop for long.
 */
const SYNC_READ_MAX_BYTES = 256 * 1024;
/** Paths in which no segment can have another Unicode form than its NFC one. */
// eslint-disable-next-line no-control-regex -- every ASCII character, control characters included
const ASCII = /^[\x00-\x7f]*$/;

export class FsVault implements VaultPort {
  readonly root: string;
  /** The vault's name, for errors that must not say where its folder lies. */
  readonly name: string | undefined;
  readonly contained: ContainedFs;
  private realRoot: string | null = null;
  /** NFC path → name on disk of its last segment, for the files and folders whose names differ. */
  private names = new Map<string, string>();

  constructor(root: string, name?: string, options: { proc?: boolean } = {}) {
    this.root = path.resolve(root);
    this.name = name;
    this.contained = new ContainedFs(() => this.resolvedRoot(), options);
  }

  private resolvedRoot(): string {
    if (this.realRoot === null) this.realRoot = realpathSync.native(this.root);
    return this.realRoot;
  }

  /** The path with each segment as it is named on disk. */
  diskPath(relative: string): string {
    if (this.names.size === 0) return relative;
    let nfc = "";
    const disk: string[] = [];
    for (const segment of relative.split("/")) {
      nfc = nfc === "" ? segment : `${nfc}/${segment}`;
      disk.push(this.names.get(nfc) ?? segment);
    }
    return disk.join("/");
  }

  absolute(relative: string): string {
    return path.join(this.root, ...this.diskPath(relative).split("/"));
  }

  /**
   * Looks up the names on disk of a path not found under the names known: a file saved since in
   * another Unicode form, or one deleted. Folders are listed only for segments that are not plain
   * ASCII, the only ones whose forms can differ. True when a name known changed.
   */
  private locate(relative: string): boolean {
    if (ASCII.test(relative)) return false;
    let changed = false;
    let nfc = "";
    let disk = this.root;
    for (const segment of relative.split("/")) {
      nfc = nfc === "" ? segment : `${nfc}/${segment}`;
      let name = this.names.get(nfc) ?? segment;
      if (!ASCII.test(segment)) {
        let entries: string[];
        try {
          entries = readdirSync(disk);
        } catch {
          return changed;
        }
        if (!entries.includes(name)) {
          const found = entries.includes(segment) ? segment : entries.find((entry) => entry.normalize("NFC") === segment);
          if (found === undefined) return this.names.delete(nfc) || changed;
          if (found === segment) this.names.delete(nfc);
          else this.names.set(nfc, found);
          changed = true;
          name = found;
        }
      }
      disk = path.join(disk, name);
    }
    return changed;
  }

  /** One stat of the folder itself: cheap enough for every tool call, which it guards. */
  present(): boolean {
    try {
      if (statSync(this.root, { throwIfNoEntry: false })?.isDirectory()) return true;
    } catch {
      // Not a folder any more, or not reachable: missing all the same.
    }
    this.forgetRealRoot();
    return false;
  }

  /** A folder put back, or put in the vault folder's place, may be another one (a restored copy, a symlink to elsewhere). */
  forgetRealRoot(): void {
    this.realRoot = null;
  }

  /**
   * Runs `use` on the open, checked folder that holds `relative` and the file's name on disk in it.
   * With `create`, missing folders are made, one level at a time inside the one before, but never the
   * vault's own folder: a vault moved away while serving must not come back empty at its old place.
   */
  async inFolder<T>(relative: string, create: boolean, use: (folder: OpenFolder, name: string) => Promise<T>): Promise<T> {
    const segments = this.diskPath(relative).split("/");
    const name = segments.pop()!;
    if (create) this.contained.checkNewPath(path.join(this.root, ...segments, name));
    const folder = create ? this.makeFolders(segments) : this.contained.openFolder(path.join(this.root, ...segments));
    try {
      return await use(folder, name);
    } finally {
      folder.close();
    }
  }

  /** inFolder for reads: the folder by its checked real path (what a read opens is checked again). */
  private inFolderSync<T>(relative: string, use: (folder: OpenFolder, name: string) => T): T {
    const segments = this.diskPath(relative).split("/");
    const name = segments.pop()!;
    const folder = this.contained.resolveFolder(path.join(this.root, ...segments));
    try {
      return use(folder, name);
    } finally {
      folder.close();
    }
  }

  private makeFolders(segments: readonly string[]): OpenFolder {
    if (!this.present()) throw vaultFolderMissing(this.name);
    try {
      return this.contained.makeFolders(this.root, segments);
    } catch (error) {
      // A level vanished meanwhile; when it is the vault's folder, that is what to say.
      if (isMissing(error) && !this.present()) throw vaultFolderMissing(this.name);
      throw error;
    }
  }

  /** Creates a folder of the vault and the missing ones above it (never the vault's own folder). */
  async makeFolder(absolute: string): Promise<void> {
    const relative = path.relative(this.root, absolute);
    if (relative.startsWith("..") || path.isAbsolute(relative)) throw new Error("a folder outside the vault was to be created");
    this.makeFolders(relative === "" ? [] : relative.split(path.sep)).close();
    return Promise.resolve();
  }

  /** Opens the vault's folder for a walk; failing, it is an error, since read as empty it would look like every file deleted. */
  private openRoot(): OpenFolder {
    try {
      return this.contained.openFolder(this.root);
    } catch (error) {
      throw folderUnreadable(error);
    }
  }

  async listFiles(): Promise<FileStat[]> {
    const out: FileStat[] = [];
    // Nothing listed; the engine asks present() and refuses to read that as every file deleted.
    if (!this.present()) return out;
    const names = new Map<string, string>();
    const root = this.openRoot();
    try {
      await this.walk(root, "", out, names, new Set([root.real]));
    } finally {
      root.close();
    }
    this.names = names;
    return out;
  }

  /**
   * listFiles with synchronous stats, a few microseconds each against a warm cache where a promise
   * stat costs tens: on 20,000 notes 150 ms of CPU time instead of 450-650.
   */
  async scanFiles(pause: () => Promise<void>): Promise<FileStat[]> {
    const out: FileStat[] = [];
    if (!this.present()) return out;
    const names = new Map<string, string>();
    const visiting = new Set<string>();
    let visited = 0;
    const walk = async (folder: OpenFolder, dir: string): Promise<void> => {
      let entries;
      try {
        entries = readdirSync(folder.path, { withFileTypes: true });
      } catch (error) {
        if (dir === "") throw folderUnreadable(error);
        return;
      }
      visiting.add(folder.real);
      const shadowed = shadowedNames(entries);
      for (const entry of entries) {
        const relative = visibleEntry(entry, dir, shadowed, names);
        if (relative === null) continue;
        if (entry.isFile()) {
          // lstat: a file swapped for a link since the listing is not followed (the next walk sees the link).
          const stats = lstatOrNull(folder.at(entry.name));
          if (stats?.isFile()) out.push(toStat(relative, stats));
        } else if (entry.isSymbolicLink()) {
          const target = this.contained.followLink(folder, entry.name);
          if (target && "stats" in target) out.push(toStat(relative, target.stats));
          else if (target) await this.within(target.folder, visiting, () => walk(target.folder, relative));
        } else if (entry.isDirectory()) {
          const child = this.openChild(folder, entry.name);
          if (child) await this.within(child, visiting, () => walk(child, relative));
        }
        if (++visited % SCAN_STEP === 0) await pause();
      }
      visiting.delete(folder.real);
    };
    const root = this.openRoot();
    try {
      await walk(root, "");
    } finally {
      root.close();
    }
    this.names = names;
    return out;
  }

  private openChild(folder: OpenFolder, name: string): OpenFolder | null {
    try {
      return this.contained.openChild(folder, name);
    } catch {
      // Deleted while walking, or swapped for a link leading outside: nothing of it is listed.
      return null;
    }
  }

  /** Walks an open folder, unless it is one being walked already (a link to a folder above it), then closes it. */
  private async within(folder: OpenFolder, visiting: ReadonlySet<string>, walk: () => Promise<void>): Promise<void> {
    try {
      if (!visiting.has(folder.real)) await walk();
    } finally {
      folder.close();
    }
  }

  private async walk(folder: OpenFolder, dir: string, out: FileStat[], names: Map<string, string>, visiting: Set<string>): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(folder.path, { withFileTypes: true });
    } catch (error) {
      // A folder deleted while walking has no files; the vault's own folder failing is an error, since
      // read as empty it would look like every file deleted.
      if (dir === "") throw folderUnreadable(error);
      return;
    }
    visiting.add(folder.real);
    const shadowed = shadowedNames(entries);
    // Files are stat'ed a batch at a time: one stat after another left the thread pool idle for most
    // of a large vault's listing.
    const files: Array<{ name: string; relative: string }> = [];
    const flush = async (): Promise<void> => {
      const stats = await Promise.all(files.map(({ name }) => fs.lstat(folder.at(name)).catch(() => null)));
      stats.forEach((stats, i) => {
        // null: deleted while walking.
        if (stats?.isFile()) out.push(toStat(files[i]!.relative, stats));
      });
      files.length = 0;
    };
    for (const entry of entries) {
      const relative = visibleEntry(entry, dir, shadowed, names);
      if (relative === null) continue;
      if (entry.isFile()) {
        files.push({ name: entry.name, relative });
        if (files.length >= STAT_BATCH) await flush();
        continue;
      }
      await flush();
      if (entry.isSymbolicLink()) {
        const target = this.contained.followLink(folder, entry.name);
        if (target && "stats" in target) out.push(toStat(relative, target.stats));
        else if (target) await this.within(target.folder, visiting, () => this.walk(target.folder, relative, out, names, visiting));
        continue;
      }
      if (entry.isDirectory()) {
        const child = this.openChild(folder, entry.name);
        if (child) await this.within(child, visiting, () => this.walk(child, relative, out, names, visiting));
      }
    }
    await flush();
    visiting.delete(folder.real);
  }

  /** Stats of the file at `relative`, through its checked folder; null when missing or not inside. */
  private statDisk(relative: string): Stats | null {
    try {
      return this.inFolderSync(relative, (folder, name) => this.contained.statEntry(folder, name));
    } catch {
      return null;
    }
  }

  /** The stat of a file in an open folder, under its vault path; null when it is not a file there. */
  statIn(folder: OpenFolder, name: string, relative: string): FileStat | null {
    try {
      const stats = this.contained.statEntry(folder, name);
      return stats?.isFile() ? toStat(relative, stats) : null;
    } catch {
      return null;
    }
  }

  async stat(relative: string): Promise<FileStat | null> {
    let stats = this.statDisk(relative);
    if (!stats && this.locate(relative)) stats = this.statDisk(relative);
    return Promise.resolve(stats?.isFile() ? toStat(relative, stats) : null);
  }

  /** The file's bytes, read from what was opened and checked to lie inside the vault. */
  private async readDisk(relative: string): Promise<Uint8Array> {
    const { fd, stats } = this.inFolderSync(relative, (folder, name) => this.contained.openRead(folder, name));
    return readOpened(fd, stats.size);
  }

  async readBytes(relative: string): Promise<Uint8Array> {
    try {
      try {
        return await this.readDisk(relative);
      } catch (error) {
        if (!isMissing(error) || !this.locate(relative)) throw error;
        return await this.readDisk(relative);
      }
    } catch (error) {
      if (isMissing(error)) {
        throw new ToolError("not_found", `File "${relative}" does not exist. Call note_list to see the vault's files.`);
      }
      throw fsToolError(error, relative, "read");
    }
  }

  /** A file's bytes or null when it is missing; other failures throw (a ToolError, as readBytes). */
  async readIfPresent(relative: string): Promise<Uint8Array | null> {
    try {
      return await this.readBytes(relative);
    } catch (error) {
      if (error instanceof ToolError && error.code === "not_found") return null;
      throw error;
    }
  }

  /** The bytes of a file in an open folder, read from what was opened and checked; null when it is missing. */
  async readEntry(folder: OpenFolder, name: string): Promise<Uint8Array | null> {
    let opened;
    try {
      opened = this.contained.openRead(folder, name);
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
    return readOpened(opened.fd, opened.stats.size);
  }

  /** A note's text read synchronously (the metadata port's fallback); null when it cannot be read. */
  readTextSync(relative: string): string | null {
    try {
      const { fd } = this.inFolderSync(relative, (folder, name) => this.contained.openRead(folder, name));
      try {
        return readFileSync(fd, "utf8");
      } finally {
        closeSync(fd);
      }
    } catch {
      return null;
    }
  }

  /** The names of a folder's visible entries, NFC; null when there is no folder at `relative`. */
  private listFolder(relative: string): string[] | null {
    let folder: OpenFolder;
    try {
      folder = this.contained.openFolder(this.absolute(relative));
    } catch (error) {
      if (!isMissing(error) || !this.locate(relative)) return null;
      return this.listFolder(relative);
    }
    try {
      const entries = readdirSync(folder.path, { withFileTypes: true });
      const shadowed = shadowedNames(entries);
      return entries.filter((entry) => !entry.name.startsWith(".") && !shadowed?.has(entry.name)).map((entry) => entry.name.normalize("NFC"));
    } catch {
      return null;
    } finally {
      folder.close();
    }
  }

  /** A path as the history records it: a file's bytes, a folder's visible entries, or null for neither. */
  async historyEntry(relative: string): Promise<VaultEntry> {
    if (await this.stat(relative)) {
      const bytes = await this.readIfPresent(relative);
      return bytes ? { file: bytes } : null;
    }
    const names = this.listFolder(relative);
    return names ? { folder: names } : null;
  }

  async isContained(relative: string): Promise<boolean> {
    // A vault folder that is gone (renamed away, unmounted) holds nothing that could escape; the read
    // that follows reports the file as missing.
    if (!(await fs.stat(this.root).then(() => true, () => false))) return true;
    const realRoot = this.resolvedRoot();
    // The deepest existing ancestor decides: a missing file below a symlinked folder still escapes.
    let candidate = this.absolute(relative);
    for (;;) {
      try {
        const real = await fs.realpath(candidate);
        return isInside(realRoot, real);
      } catch (error) {
        // A file where a folder is expected holds nothing either: its own folder decides.
        if (!isMissing(error) && fsErrorCode(error) !== "ENOTDIR") throw fsToolError(error, relative, "reach");
        const parent = path.dirname(candidate);
        if (parent === candidate) return false;
        candidate = parent;
      }
    }
  }

  async readAppConfig(name: string): Promise<string | null> {
    if (!/^[A-Za-z0-9_-]+\.json$/.test(name)) return null;
    // Read by its path, not through the vault's checked folders: a shared configuration folder
    // linked in from elsewhere is a common setup, and it holds settings, not notes.
    try {
      return await fs.readFile(path.join(this.root, OBSIDIAN_CONFIG_DIR, name), "utf8");
    } catch {
      return null;
    }
  }

  async readOptionalText(relative: string): Promise<string | null> {
    return Promise.resolve(this.readTextSync(relative));
  }
}

/**
 * Names in a folder that are another Unicode form of a name the folder also holds in NFC: the NFC one
 * is the file the vault shows. Null when the folder has no such names (the usual case, checked cheaply).
 */
function shadowedNames(entries: readonly Dirent[]): Set<string> | null {
  if (entries.every((entry) => ASCII.test(entry.name) || entry.name === entry.name.normalize("NFC"))) return null;
  const all = new Set(entries.map((entry) => entry.name));
  const shadowed = new Set<string>();
  for (const entry of entries) {
    const nfc = entry.name.normalize("NFC");
    if (nfc !== entry.name && all.has(nfc)) shadowed.add(entry.name);
  }
  return shadowed;
}

/** The entry's NFC vault path, its name on disk noted when it differs; null for an entry not listed. */
function visibleEntry(entry: Dirent, dir: string, shadowed: ReadonlySet<string> | null, names: Map<string, string>): string | null {
  if (entry.name.startsWith(".") || shadowed?.has(entry.name)) return null;
  const nfc = ASCII.test(entry.name) ? entry.name : entry.name.normalize("NFC");
  const relative = dir === "" ? nfc : `${dir}/${nfc}`;
  if (nfc !== entry.name) names.set(relative, entry.name);
  return relative;
}

/** Reads an opened file to its end and closes it: synchronously when small (see SYNC_READ_MAX_BYTES). */
async function readOpened(fd: number, size: number): Promise<Uint8Array> {
  try {
    if (size <= SYNC_READ_MAX_BYTES) return new Uint8Array(readFileSync(fd));
    return new Uint8Array(await new Promise<Buffer>((resolve, reject) => readFile(fd, (error, data) => (error ? reject(error) : resolve(data)))));
  } finally {
    closeSync(fd);
  }
}

function lstatOrNull(absolute: string): Stats | null {
  try {
    return lstatSync(absolute, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

/** Without the path: errors reach logs, which never name where the vault lies. */
function folderUnreadable(error: unknown): Error {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return new Error(`the vault folder cannot be read (${typeof code === "string" ? code : "unknown error"})`);
}

/** `ctime` is the birth time; where the file system keeps none (0), the modification time, never the status change time. */
function toStat(relative: string, stats: Stats): FileStat {
  return { path: relative, size: stats.size, mtime: Math.floor(stats.mtimeMs), ctime: Math.floor(stats.birthtimeMs || stats.mtimeMs) };
}

export function isMissing(error: unknown): boolean {
  return errorCode(error) === "ENOENT";
}
