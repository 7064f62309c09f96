// The vault port over a folder on disk. Walks skip every dot-entry (SPEC §6), so hidden folders such
// as .obsidian, .git and .trash never reach the engine.
import { promises as fs, readdirSync, readFileSync, realpathSync, statSync, type Stats } from "node:fs";
import path from "node:path";
import { ToolError } from "../../core/errors";
import { vaultFolderMissing } from "../../core/vault/directory";
import type { FileStat, VaultPort } from "../../core/ports";
import { fsErrorCode, fsToolError } from "./fs-errors";

/** Temp files of in-flight atomic writes; never part of the vault. */
export const TEMP_FILE_PREFIX = ".sbtmp-";
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

export class FsVault implements VaultPort {
  readonly root: string;
  /** The vault's name, for errors that must not say where its folder lies. */
  readonly name: string | undefined;
  private realRoot: string | null = null;

  constructor(root: string, name?: string) {
    this.root = path.resolve(root);
    this.name = name;
  }

  private async resolvedRoot(): Promise<string> {
    if (this.realRoot === null) this.realRoot = await fs.realpath(this.root);
    return this.realRoot;
  }

  absolute(relative: string): string {
    return path.join(this.root, ...relative.split("/"));
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
   * Creates a folder of the vault and the missing ones above it, but never the vault's own folder:
   * a vault moved away while serving must not come back empty at its old place. Each level is made
   * on its own, so a folder that vanishes meanwhile fails the next level instead of being remade.
   */
  async makeFolder(absolute: string): Promise<void> {
    const relative = path.relative(this.root, absolute);
    if (relative.startsWith("..") || path.isAbsolute(relative)) throw new Error("a folder outside the vault was to be created");
    if (await fs.stat(absolute).then((stats) => stats.isDirectory(), () => false)) return;
    if (!this.present()) throw vaultFolderMissing(this.name);
    let current = this.root;
    for (const segment of relative === "" ? [] : relative.split(path.sep)) {
      current = path.join(current, segment);
      try {
        await fs.mkdir(current);
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === "ENOENT") throw vaultFolderMissing(this.name);
        if (code !== "EEXIST") throw error;
      }
    }
  }

  async listFiles(): Promise<FileStat[]> {
    const out: FileStat[] = [];
    // Nothing listed; the engine asks present() and refuses to read that as every file deleted.
    if (!this.present()) return out;
    const root = await this.resolvedRoot();
    await this.walk("", out, root);
    return out;
  }

  /**
   * listFiles with synchronous stats, a few microseconds each against a warm cache where a promise
   * stat costs tens: on 20,000 notes 150 ms of CPU time instead of 450-650.
   */
  async scanFiles(pause: () => Promise<void>): Promise<FileStat[]> {
    const out: FileStat[] = [];
    if (!this.present()) return out;
    const realRoot = await this.resolvedRoot();
    let visited = 0;
    // Paths are joined by hand: path.join per file cost more than the stat.
    const walk = async (relativeDir: string, absoluteDir: string): Promise<void> => {
      let entries;
      try {
        entries = readdirSync(absoluteDir, { withFileTypes: true });
      } catch (error) {
        if (relativeDir === "") throw folderUnreadable(error);
        return;
      }
      for (const entry of entries) {
        if (entry.name.startsWith(".")) continue;
        const relative = relativeDir ? `${relativeDir}/${entry.name}` : entry.name;
        const absolute = `${absoluteDir}${path.sep}${entry.name}`;
        if (entry.isFile()) {
          const stats = statOrNull(absolute);
          if (stats?.isFile()) out.push(toStat(relative.normalize("NFC"), stats));
        } else if (entry.isSymbolicLink()) {
          const target = containedTargetSync(absolute, realRoot);
          if (target?.isDirectory()) await walk(relative, absolute);
          else if (target?.isFile()) out.push(toStat(relative.normalize("NFC"), target));
        } else if (entry.isDirectory()) {
          await walk(relative, absolute);
        }
        if (++visited % SCAN_STEP === 0) await pause();
      }
    };
    await walk("", this.root);
    return out;
  }

  private async walk(relativeDir: string, out: FileStat[], realRoot: string): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(relativeDir ? this.absolute(relativeDir) : this.root, { withFileTypes: true });
    } catch (error) {
      // A folder deleted while walking has no files; the vault's own folder failing is an error, since
      // read as empty it would look like every file deleted.
      if (relativeDir === "") throw folderUnreadable(error);
      return;
    }
    // Files are stat'ed a batch at a time: one stat after another left the thread pool idle for most
    // of a large vault's listing.
    const files: Array<{ relative: string; normalized: string }> = [];
    const flush = async (): Promise<void> => {
      const stats = await Promise.all(files.map(({ relative }) => fs.stat(this.absolute(relative)).catch(() => null)));
      stats.forEach((stats, i) => {
        // null: deleted while walking.
        if (stats) out.push(toStat(files[i]!.normalized, stats));
      });
      files.length = 0;
    };
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue;
      const relative = relativeDir ? `${relativeDir}/${entry.name}` : entry.name;
      const normalized = relative.normalize("NFC");
      if (entry.isFile()) {
        files.push({ relative, normalized });
        if (files.length >= STAT_BATCH) await flush();
        continue;
      }
      await flush();
      if (entry.isSymbolicLink()) {
        const target = await this.containedTarget(relative, realRoot);
        if (!target) continue;
        if (target.isDirectory()) await this.walk(relative, out, realRoot);
        else if (target.isFile()) out.push(toStat(normalized, target));
        continue;
      }
      if (entry.isDirectory()) await this.walk(relative, out, realRoot);
    }
    await flush();
  }

  private async containedTarget(relative: string, realRoot: string): Promise<Stats | null> {
    try {
      const real = await fs.realpath(this.absolute(relative));
      if (!isInside(realRoot, real)) return null;
      return await fs.stat(real);
    } catch {
      return null;
    }
  }

  async stat(relative: string): Promise<FileStat | null> {
    try {
      const stats = await fs.stat(this.absolute(relative));
      return stats.isFile() ? toStat(relative, stats) : null;
    } catch {
      return null;
    }
  }

  async readBytes(relative: string): Promise<Uint8Array> {
    const file = this.absolute(relative);
    try {
      if (statSync(file).size <= SYNC_READ_MAX_BYTES) return new Uint8Array(readFileSync(file));
      return new Uint8Array(await fs.readFile(file));
    } catch (error) {
      if (isMissing(error)) {
        throw new ToolError("not_found", `File "${relative}" does not exist. Call note_list to see the vault's files.`);
      }
      throw fsToolError(error, relative, "read");
    }
  }

  async isContained(relative: string): Promise<boolean> {
    const realRoot = await this.resolvedRoot();
    // A vault folder that is gone (renamed away, unmounted) holds nothing that could escape; the read
    // that follows reports the file as missing.
    if (!(await fs.stat(this.root).then(() => true, () => false))) return true;
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
    return this.readOptionalText(`${OBSIDIAN_CONFIG_DIR}/${name}`);
  }

  async readOptionalText(relative: string): Promise<string | null> {
    try {
      return await fs.readFile(this.absolute(relative), "utf8");
    } catch {
      return null;
    }
  }
}

function statOrNull(absolute: string): Stats | null {
  try {
    return statSync(absolute, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

function containedTargetSync(absolute: string, realRoot: string): Stats | null {
  try {
    const real = realpathSync(absolute);
    return isInside(realRoot, real) ? statSync(real) : null;
  } catch {
    return null;
  }
}

/** Without the path: errors reach logs, which never name where the vault lies. */
function folderUnreadable(error: unknown): Error {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return new Error(`the vault folder cannot be read (${typeof code === "string" ? code : "unknown error"})`);
}

function toStat(relative: string, stats: Stats): FileStat {
  return { path: relative, size: stats.size, mtime: Math.floor(stats.mtimeMs), ctime: Math.floor(stats.birthtimeMs || stats.ctimeMs) };
}

function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

export function isMissing(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: string }).code === "ENOENT";
}
