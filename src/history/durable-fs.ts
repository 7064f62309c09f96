// The private repository's files are written the way git writes them: a temp file beside the target,
// then a rename, so a full disk leaves the old file or the new one, never a part of one. A ref (or any
// other non-object file) is synced before its rename, and every object written before it is synced
// first, so a ref moves only to a commit that is whole on disk. Objects written since the last ref that a
// crash cut short, or that older versions wrote in place, may be truncated: an object file is checked
// once before it counts as present, and a damaged one reads as absent and is written again.
import { normalizeFsPath, relativeTo, type GitFs, type HistoryFs } from "./fenced-fs";

/** `objects/ab/cdef…`, relative to the git directory. */
const LOOSE_OBJECT = /^objects\/([0-9a-f]{2})\/([0-9a-f]{38})$/;
const OBJECT_FOLDER = /^objects\/[0-9a-f]{2}$/;
/** git's own prefix for an object being written: `git fsck` passes over such files. */
const OBJECT_TEMP_PREFIX = "tmp_obj_";
/** Any other file's temp, `<name>.sb<random>.lock`: git never takes a `.lock` file for a ref. */
const FILE_TEMP = /\.sb[0-9a-z]+\.lock$/;
/** Objects known to be whole, so each is checked at most once; cleared when it grows past this. */
const VERIFIED_MAX = 100_000;
/** Object files synced at once before a ref moves: overlaps the waits, far from file-handle limits. */
const SYNC_PARALLEL = 32;
/** Directory fsync is not possible everywhere (Windows, some network file systems): skipped there. */
const NO_DIRECTORY_SYNC = new Set(["EISDIR", "EPERM", "EACCES", "EINVAL", "ENOTSUP", "EBADF"]);

export interface DurableFsOptions {
  /** Called for a damaged object file that will be written again; `path` is relative to the git directory. */
  onDamaged?(path: string): void;
}

export interface DurableFs {
  fs: GitFs;
  /** Removes temp files a crash left behind; resolves to how many. */
  removeTemps(): Promise<number>;
  /** Makes one loose object durable now, its bytes and its folder entries, before any ref names it. */
  syncObject(oid: string): Promise<void>;
  /**
   * Writes a loose object (`object`, deflated by the host's placeSynced or else by `deflate`) synced
   * in the one handle that writes it, then renamed into place; only its folder entry waits for the
   * pass before the next ref moves.
   */
  writeObject(oid: string, object: Uint8Array, deflate: (bytes: Uint8Array) => Promise<Uint8Array>): Promise<void>;
  /**
   * Writes a file that names no object yet (the crash record) durably, without first syncing the
   * objects other work is writing meanwhile, which a ref write must wait for.
   */
  writeRecord(path: string, text: string): Promise<void>;
}

const encoder = new TextEncoder();

export function codeOf(error: unknown): unknown {
  return typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
}

function dirname(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, "");
  const at = Math.max(trimmed.lastIndexOf("/"), trimmed.lastIndexOf("\\"));
  return at < 0 ? "." : at === 0 ? trimmed.slice(0, 1) : trimmed.slice(0, at);
}

function basename(path: string): string {
  return path.replace(/[\\/]+$/, "").replace(/^.*[\\/]/, "");
}

function randomName(): string {
  return Math.random().toString(36).slice(2, 12).padEnd(10, "0");
}

/** With the platform's own zlib and SHA-1 (Node and Electron alike): no second copy of either. */
export async function inflate(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

export async function sha1Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-1", bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function absent(path: string): Error {
  return Object.assign(new Error(`ENOENT: ${path} is damaged and counts as absent until it is written again`), { code: "ENOENT" });
}

export function durableFs(fs: HistoryFs, gitdir: string, options: DurableFsOptions = {}): DurableFs {
  const root = normalizeFsPath(gitdir);
  const verified = new Set<string>();
  /** Folders whose new entries are not yet known to be on disk. */
  const dirty = new Set<string>();
  /**
   * Object files written through `fs.writeFile` (by isomorphic-git) and renamed into place whose bytes
   * are not yet synced: they are synced in one parallel pass before the ref that names them moves (or
   * any other non-object file is written). One cut short by a crash in between is caught as damaged and
   * written again, and no ref names it. The history's own objects (`writeObject`) are synced as written.
   */
  const unsynced = new Set<string>();
  const inGitdir = (path: string): string | null => relativeTo(root, normalizeFsPath(path));

  const remember = (relative: string): void => {
    if (verified.size >= VERIFIED_MAX) verified.clear();
    verified.add(relative);
  };

  const syncDirectory = async (dir: string): Promise<void> => {
    if (fs.syncPath) {
      await fs.syncPath(dir).catch((error: unknown) => {
        if (!NO_DIRECTORY_SYNC.has(String(codeOf(error)))) throw error;
      });
      return;
    }
    let handle;
    try {
      handle = await fs.open(dir, "r");
    } catch (error) {
      if (NO_DIRECTORY_SYNC.has(String(codeOf(error)))) return;
      throw error;
    }
    try {
      await handle.sync();
    } catch (error) {
      if (!NO_DIRECTORY_SYNC.has(String(codeOf(error)))) throw error;
    } finally {
      await handle.close();
    }
  };

  /** Opened read-only, as directories are; Windows flushes only a handle open for writing, so there it is reopened. */
  const syncFile = async (path: string, flags = "r"): Promise<void> => {
    if (flags === "r" && fs.syncPath) {
      try {
        await fs.syncPath(path);
      } catch (error) {
        // Replaced since (a damaged object's file is written again): nothing of this one to sync.
        if (codeOf(error) === "ENOENT") return;
        if (!["EPERM", "EBADF", "EACCES"].includes(String(codeOf(error)))) throw error;
        await syncFile(path, "r+");
      }
      return;
    }
    let handle;
    try {
      handle = await fs.open(path, flags);
    } catch (error) {
      // Replaced since (a damaged object's file is written again): nothing of this one to sync.
      if (codeOf(error) === "ENOENT") return;
      throw error;
    }
    try {
      await handle.sync();
    } catch (error) {
      if (flags !== "r" || !["EPERM", "EBADF", "EACCES"].includes(String(codeOf(error)))) throw error;
      await handle.close();
      handle = null;
      await syncFile(path, "r+");
    } finally {
      await handle?.close();
    }
  };

  /** Makes every object and new directory entry so far durable: run before a ref (or any non-object file) names them. */
  const flush = async (): Promise<void> => {
    const files = [...unsynced];
    for (let start = 0; start < files.length; start += SYNC_PARALLEL) {
      const batch = files.slice(start, start + SYNC_PARALLEL);
      await Promise.all(batch.map((file) => syncFile(file)));
      for (const file of batch) unsynced.delete(file);
    }
    const dirs = [...dirty];
    dirty.clear();
    try {
      await Promise.all(dirs.map(syncDirectory));
    } catch (error) {
      for (const dir of dirs) dirty.add(dir);
      throw error;
    }
  };

  /** Temp beside the target, written and synced, then renamed over it; the temp never outlives a failure. */
  const replace = async (path: string, data: Uint8Array | string, writeOptions: unknown, object: boolean, synced = !object, deflate = false): Promise<void> => {
    const dir = dirname(path);
    for (;;) {
      const temp = object ? `${dir}/${OBJECT_TEMP_PREFIX}${randomName()}` : `${dir}/${basename(path)}.sb${randomName()}.lock`;
      if (synced && fs.placeSynced) {
        try {
          await fs.placeSynced(temp, path, typeof data === "string" ? encoder.encode(data) : data, { deflate });
        } catch (error) {
          if (codeOf(error) === "EEXIST") continue;
          throw error;
        }
      } else {
        let handle;
        try {
          handle = await fs.open(temp, "wx");
        } catch (error) {
          if (codeOf(error) === "EEXIST") continue;
          throw error;
        }
        try {
          try {
            await handle.writeFile(data, writeOptions);
            if (synced) await handle.sync();
          } finally {
            await handle.close();
          }
          await fs.rename(temp, path);
        } catch (error) {
          await fs.unlink(temp).catch(() => undefined);
          throw error;
        }
      }
      dirty.add(dir);
      if (!synced) unsynced.add(normalizeFsPath(path));
      return;
    }
  };

  /** Whether the loose object's file inflates to content whose hash is its name. */
  const intact = async (file: string, oid: string): Promise<boolean> => {
    try {
      const stored = await fs.readFile(file);
      return (await sha1Hex(await inflate(typeof stored === "string" ? new TextEncoder().encode(stored) : stored))) === oid;
    } catch {
      // Cut short (zlib's "unexpected end of file"), or unreadable: written again either way.
      return false;
    }
  };

  const checked = async <T>(path: string, stat: () => Promise<T>): Promise<T> => {
    const stats = await stat();
    const relative = inGitdir(path);
    const match = relative === null ? null : LOOSE_OBJECT.exec(relative);
    if (relative === null || !match || verified.has(relative)) return stats;
    if (await intact(path, match[1]! + match[2]!)) {
      remember(relative);
      return stats;
    }
    options.onDamaged?.(relative);
    throw absent(path);
  };

  const promises: GitFs = {
    readFile: (path, readOptions) => fs.readFile(path, readOptions),
    writeFile: async (path, data, writeOptions) => {
      const relative = inGitdir(path);
      if (relative === null || relative === "") return fs.writeFile(path, data, writeOptions);
      const object = LOOSE_OBJECT.test(relative);
      // A ref (or config) may name objects just written: their directory entries go to disk first.
      if (!object) await flush();
      await replace(path, data, writeOptions, object);
      if (object) remember(relative);
      else await flush();
    },
    unlink: (path) => fs.unlink(path),
    readdir: (path, readOptions) => fs.readdir(path, readOptions),
    mkdir: async (path, mkdirOptions) => {
      const made = await fs.mkdir(path, mkdirOptions);
      if (inGitdir(path) !== null) dirty.add(dirname(path));
      return made;
    },
    rmdir: (path, rmOptions) => fs.rmdir(path, rmOptions),
    stat: (path, statOptions) => checked(path, () => fs.stat(path, statOptions)),
    lstat: (path, statOptions) => checked(path, () => fs.lstat(path, statOptions)),
    readlink: (path, readOptions) => fs.readlink(path, readOptions),
    symlink: (target, path, type) => fs.symlink(target, path, type),
    chmod: (path, mode) => fs.chmod(path, mode),
  };
  if (fs.rm) {
    const rm = fs.rm.bind(fs);
    promises.rm = (path, rmOptions) => rm(path, rmOptions);
  }

  const removeTemps = async (): Promise<number> => {
    let removed = 0;
    const walk = async (dir: string, relative: string): Promise<void> => {
      let names: string[];
      try {
        names = await fs.readdir(dir);
      } catch {
        return;
      }
      // Object folders hold thousands of files: only names are looked at there, never stat'ed.
      const objects = OBJECT_FOLDER.test(relative);
      for (const name of names) {
        const full = `${dir}/${name}`;
        const temp = objects ? name.startsWith(OBJECT_TEMP_PREFIX) : FILE_TEMP.test(name);
        if (temp) {
          await fs.unlink(full).then(
            () => (removed += 1),
            () => undefined,
          );
          continue;
        }
        if (objects) continue;
        const child = relative === "" ? name : `${relative}/${name}`;
        if (child === "objects/pack" || child === "objects/info") continue;
        const stats = await fs.lstat(full).catch(() => null);
        if (stats?.isDirectory()) await walk(full, child);
      }
    };
    await walk(root, "");
    return removed;
  };

  const syncObject = async (oid: string): Promise<void> => {
    const file = `${root}/objects/${oid.slice(0, 2)}/${oid.slice(2)}`;
    await syncFile(file);
    unsynced.delete(file);
    await syncDirectory(`${root}/objects/${oid.slice(0, 2)}`);
    await syncDirectory(`${root}/objects`);
  };

  const writeObject = async (oid: string, object: Uint8Array, deflate: (bytes: Uint8Array) => Promise<Uint8Array>): Promise<void> => {
    const folder = `${root}/objects/${oid.slice(0, 2)}`;
    const file = `${folder}/${oid.slice(2)}`;
    const place = async (): Promise<void> => {
      if (fs.placeSynced) await replace(file, object, undefined, true, true, true);
      else await replace(file, await deflate(object), undefined, true, true);
    };
    try {
      await place();
    } catch (error) {
      if (codeOf(error) !== "ENOENT") throw error;
      await fs.mkdir(folder).catch((made: unknown) => {
        if (codeOf(made) !== "EEXIST") throw made;
      });
      dirty.add(`${root}/objects`);
      await place();
    }
    remember(`objects/${oid.slice(0, 2)}/${oid.slice(2)}`);
  };

  const writeRecord = async (path: string, text: string): Promise<void> => {
    await replace(path, text, "utf8", false);
    await syncDirectory(dirname(path));
  };

  return { fs: promises, removeTemps, syncObject, writeObject, writeRecord };
}
