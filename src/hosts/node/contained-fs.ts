// Reads and writes that stay inside the vault even when a folder on the way is swapped for a symbolic
// link while they run (SPEC §6). Checking a path and then using it resolves it twice, and a link
// swapped in between leads the second time elsewhere. So every operation opens the folder it works
// in, learns where that folder really is, and reaches the folder's entries through the open folder;
// a file's own name is never followed as a link (O_NOFOLLOW), a link is resolved by hand instead.
//
// Linux: /proc/self/fd/<n> names exactly what descriptor n holds. A path through it starts at the
// open folder, whatever its path leads to by now (as openat(2) would, which Node lacks), and reading
// the link tells where the descriptor's folder or file really is. A swapped link, at any moment,
// leads no read, write, rename or mkdir out of the vault.
//
// Elsewhere (macOS, Windows, or /proc not mounted) a folder is reached by its real path, checked
// before the operation and again after it opened the file (the file's device and inode against the
// path's, and the folder's real path once more). A link swapped in and back out between those checks
// can go unnoticed there; a swap that stays in place is caught.
import { randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, fsync, lstatSync, mkdirSync, openSync, promises as fs, readlinkSync, realpathSync, statSync, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
// A FIFO or device named like a note must not hang the open.
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
/** Links followed one after another before a path counts as a loop (the kernel allows 40). */
const MAX_LINKS = 8;
/** Linux's PATH_MAX, the terminating NUL included. */
const PATH_MAX_BYTES = 4096;

/** Temp files of in-flight atomic writes; never part of the vault. */
export const TEMP_FILE_PREFIX = ".sbtmp-";

/** A new temp file's name, for a temp file or a second name a write holds a file under. */
export function tempFileName(): string {
  // Short and of fixed length (23 bytes), so a file name up to the 255-byte limit still gets a temp
  // name beside it; the prefix is all the startup cleanup looks for.
  return `${TEMP_FILE_PREFIX}${randomBytes(8).toString("hex")}`;
}

/** `mode`: the new file's permissions before the umask (0o666); `read`: opened for reading as well. */
export interface NewFileOptions {
  mode?: number;
  read?: boolean;
}

/** The path, or what was opened through it, lies outside the vault's folder. */
export class OutsideVaultError extends Error {
  constructor() {
    super("the path leads outside the vault");
    this.name = "OutsideVaultError";
  }
}

function systemError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

export function errorCode(error: unknown): string | undefined {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : undefined;
}

/** O_NOFOLLOW met a link: Linux and macOS say ELOOP, FreeBSD EMLINK. */
function isLinkRefusal(error: unknown): boolean {
  const code = errorCode(error);
  return code === "ELOOP" || code === "EMLINK";
}

export function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

let procWorks: boolean | null = null;

/** Whether /proc/self/fd names what a descriptor holds here (Linux with /proc mounted). */
export function procFdWorks(): boolean {
  if (procWorks !== null) return procWorks;
  procWorks = false;
  if (process.platform !== "linux") return false;
  let fd: number | null = null;
  try {
    fd = openSync("/", constants.O_RDONLY | O_DIRECTORY);
    procWorks = readlinkSync(`/proc/self/fd/${fd}`) === "/" && statSync(`/proc/self/fd/${fd}/.`).isDirectory();
  } catch {
    procWorks = false;
  } finally {
    if (fd !== null) closeSync(fd);
  }
  return procWorks;
}

/** A folder of the vault, open: its entries are reached through it until close(). */
export interface OpenFolder {
  /** The folder itself, as a path. */
  readonly path: string;
  /** Where the folder really was when it was opened. */
  readonly real: string;
  /** The path of an entry of this folder. */
  at(name: string): string;
  /** Throws OutsideVaultError when the folder is no longer inside the vault (moved out meanwhile). */
  recheck(): void;
  /** Makes a rename, link or unlink in the folder durable. */
  sync(): Promise<void>;
  close(): void;
}

class ProcFolder implements OpenFolder {
  readonly path: string;
  private open = true;

  constructor(
    private readonly fd: number,
    readonly real: string,
    private readonly inside: (real: string) => boolean,
  ) {
    this.path = `/proc/self/fd/${fd}`;
  }

  at(name: string): string {
    return `${this.path}/${name}`;
  }

  recheck(): void {
    if (!this.inside(readlinkSync(this.path))) throw new OutsideVaultError();
  }

  sync(): Promise<void> {
    return new Promise((resolve, reject) => fsync(this.fd, (error) => (error ? reject(error) : resolve())));
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    closeSync(this.fd);
  }
}

class PathFolder implements OpenFolder {
  constructor(readonly real: string) {}

  get path(): string {
    return this.real;
  }

  at(name: string): string {
    return path.join(this.real, name);
  }

  recheck(): void {
    if (realpathSync.native(this.real) !== this.real) throw new OutsideVaultError();
  }

  async sync(): Promise<void> {
    const handle = await fs.open(this.real, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  close(): void {}
}

export class ContainedFs {
  private readonly realRoot: () => string;
  private readonly proc: boolean;

  /** `realRoot`: the vault folder's real path. `proc: false` takes the path-based way (tests). */
  constructor(realRoot: () => string, options: { proc?: boolean } = {}) {
    this.realRoot = realRoot;
    this.proc = options.proc ?? procFdWorks();
  }

  inside(real: string): boolean {
    return isInside(this.realRoot(), real);
  }

  /**
   * Refuses (ENAMETOOLONG) a new file or folder whose full path the system could not take: through an
   * open folder the path handed to each call is short, so the kernel would let it be made, and then no
   * other program (nor a later walk by path) could reach it.
   */
  checkNewPath(absolute: string): void {
    if (this.proc && Buffer.byteLength(absolute) >= PATH_MAX_BYTES) throw systemError("ENAMETOOLONG", "path too long");
  }

  /** Opens a folder by its path, links on the way followed, refusing one that lies outside the vault. */
  openFolder(absolute: string): OpenFolder {
    if (this.proc) {
      const fd = openSync(absolute, constants.O_RDONLY | O_DIRECTORY);
      try {
        const real = readlinkSync(`/proc/self/fd/${fd}`);
        if (!this.inside(real)) throw new OutsideVaultError();
        return new ProcFolder(fd, real, (where) => this.inside(where));
      } catch (error) {
        closeSync(fd);
        throw error;
      }
    }
    const real = realpathSync.native(absolute);
    if (!statSync(real).isDirectory()) throw systemError("ENOTDIR", "not a folder");
    if (!this.inside(real)) throw new OutsideVaultError();
    return new PathFolder(real);
  }

  /**
   * A folder to read from, by its real path, checked to lie inside; no descriptor is held. A read
   * needs no more: what it opens is checked again (verifyOpened), and a folder swapped meanwhile shows
   * there. Writes take openFolder, since what they create must land in the folder that was checked.
   */
  resolveFolder(absolute: string): OpenFolder {
    const real = realpathSync.native(absolute);
    if (!this.inside(real)) throw new OutsideVaultError();
    return new PathFolder(real);
  }

  /** A folder in an open folder; a link is followed when it stays inside. */
  openChild(parent: OpenFolder, name: string): OpenFolder {
    return this.openFolder(parent.at(name));
  }

  /**
   * The folder `segments` below the vault's folder `root`, each missing level made inside the one
   * before, which was opened and checked: a link swapped in anywhere on the way leads no mkdir out of
   * the vault. The vault's own folder is never made (ENOENT when it is gone).
   */
  makeFolders(root: string, segments: readonly string[]): OpenFolder {
    let folder = this.openFolder(root);
    try {
      for (const segment of segments) {
        let child: OpenFolder;
        try {
          child = this.openChild(folder, segment);
        } catch (error) {
          if (errorCode(error) !== "ENOENT") throw error;
          try {
            mkdirSync(folder.at(segment));
          } catch (made) {
            // Made meanwhile by someone else: fine, if it is a folder (the open below says).
            if (errorCode(made) !== "EEXIST") throw made;
          }
          child = this.openChild(folder, segment);
        }
        folder.close();
        folder = child;
      }
      return folder;
    } catch (error) {
      folder.close();
      throw error;
    }
  }

  /**
   * Resolves a link in the folder by hand and hands its target's folder (opened and checked like any
   * other) and name on. A link that leads outside throws OutsideVaultError.
   */
  private throughLink<T>(folder: OpenFolder, name: string, then: (folder: OpenFolder, name: string) => T): T {
    const target = path.resolve(folder.real, readlinkSync(folder.at(name)));
    const parent = this.resolveFolder(path.dirname(target));
    try {
      return then(parent, path.basename(target));
    } finally {
      parent.close();
    }
  }

  /** After an open: throws OutsideVaultError unless the file opened lies inside the vault. */
  private verifyOpened(fd: number, folder: OpenFolder, name: string): void {
    if (this.proc) {
      if (!this.inside(readlinkSync(`/proc/self/fd/${fd}`))) throw new OutsideVaultError();
      return;
    }
    const opened = fstatSync(fd);
    const there = lstatSync(folder.at(name));
    if (opened.dev !== there.dev || opened.ino !== there.ino) throw new OutsideVaultError();
    folder.recheck();
  }

  /**
   * Opens a file of the folder for reading; a link is followed only when it stays inside. The caller
   * closes the descriptor.
   */
  openRead(folder: OpenFolder, name: string, links = 0): { fd: number; stats: Stats } {
    let fd: number;
    try {
      fd = openSync(folder.at(name), constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    } catch (error) {
      if (!isLinkRefusal(error) || links >= MAX_LINKS) throw error;
      return this.throughLink(folder, name, (target, base) => this.openRead(target, base, links + 1));
    }
    try {
      this.verifyOpened(fd, folder, name);
      const stats = fstatSync(fd);
      if (stats.isDirectory()) throw systemError("EISDIR", "a folder");
      if (!stats.isFile()) throw systemError("EINVAL", "not a regular file");
      return { fd, stats };
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /**
   * The stats of an entry of the folder, a link followed when it stays inside; null when it is missing
   * or its link leads outside (or nowhere).
   */
  statEntry(folder: OpenFolder, name: string, links = 0): Stats | null {
    const stats = lstatSync(folder.at(name), { throwIfNoEntry: false });
    if (!stats?.isSymbolicLink()) return stats ?? null;
    if (links >= MAX_LINKS) return null;
    try {
      return this.throughLink(folder, name, (target, base) => this.statEntry(target, base, links + 1));
    } catch {
      return null;
    }
  }

  /** What a link in the folder leads to when it stays inside: a file's stats or the open folder. */
  followLink(folder: OpenFolder, name: string): { stats: Stats } | { folder: OpenFolder } | null {
    try {
      const stats = this.statEntry(folder, name);
      if (stats?.isFile()) return { stats };
      if (stats?.isDirectory()) return { folder: this.openChild(folder, name) };
    } catch {
      // Gone, or swapped to lead outside meanwhile: nothing to follow.
    }
    return null;
  }

  /**
   * Creates a file that must not exist yet (O_EXCL; a link in its place is not followed) and checks
   * where it landed; one that landed outside is removed again before the refusal.
   */
  async createNew(folder: OpenFolder, name: string, options: NewFileOptions = {}): Promise<FileHandle> {
    const file = folder.at(name);
    const access = options.read ? constants.O_RDWR : constants.O_WRONLY;
    const handle = await fs.open(file, access | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW, options.mode ?? 0o666);
    try {
      this.verifyOpened(handle.fd, folder, name);
    } catch (error) {
      await handle.close();
      await fs.rm(file, { force: true });
      throw error;
    }
    return handle;
  }

  /** A temp file for an atomic write, new in the folder; `path` is valid while the folder is open. */
  async createTemp(folder: OpenFolder, options: NewFileOptions = {}): Promise<{ handle: FileHandle; path: string; name: string }> {
    const name = tempFileName();
    return { handle: await this.createNew(folder, name, options), path: folder.at(name), name };
  }
}
