// The only file system isomorphic-git gets: writes go to the private git directory and nowhere else,
// reads reach the git directory and the vault's visible files. Anything else — the user's own `.git`,
// `.obsidian`, `.gitignore`, the trash — is refused loudly, so no code path inside the library can
// read or change the user's repository, whatever it decides to probe.

/** The subset of `fs.promises` isomorphic-git calls. */
export interface GitFs {
  readFile(path: string, options?: unknown): Promise<Uint8Array | string>;
  writeFile(path: string, data: Uint8Array | string, options?: unknown): Promise<void>;
  unlink(path: string): Promise<void>;
  readdir(path: string, options?: unknown): Promise<string[]>;
  mkdir(path: string, options?: unknown): Promise<unknown>;
  rmdir(path: string, options?: unknown): Promise<void>;
  rm?(path: string, options?: unknown): Promise<void>;
  stat(path: string, options?: unknown): Promise<HistoryStat>;
  lstat(path: string, options?: unknown): Promise<HistoryStat>;
  readlink(path: string, options?: unknown): Promise<string | Uint8Array>;
  symlink(target: string, path: string, type?: string): Promise<void>;
  chmod(path: string, mode: number): Promise<void>;
}

/** What the history needs of `fs.promises`; the host injects it (Node: `node:fs/promises`). */
export interface HistoryFs extends GitFs {
  rename(from: string, to: string): Promise<void>;
  open(path: string, flags: string): Promise<HistoryFileHandle>;
  /**
   * Creates `temp` (EEXIST if it is there), writes the bytes, syncs them and renames it to `path`,
   * removing `temp` if a step fails, in the host's cheapest calls; without it, through `open`'s handle.
   * With `deflate`, the bytes written are the zlib deflate of `data` (a loose object's file).
   */
  placeSynced?(temp: string, path: string, data: Uint8Array, options?: { deflate?: boolean }): Promise<void>;
  /** Opens the file or folder read-only and syncs it; without it, through `open`'s handle. */
  syncPath?(path: string): Promise<void>;
}

export interface HistoryFileHandle {
  writeFile(data: Uint8Array | string, options?: unknown): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

export interface HistoryStat {
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
  size: number;
  mtimeMs: number;
}

/** The shape isomorphic-git takes (`PromiseFsClient`); `promises` must be an enumerable own property. */
export interface FencedFsClient {
  promises: GitFs;
}

export class FenceError extends Error {
  readonly code = "EACCES";
  constructor(operation: string, path: string) {
    super(`the history may not ${operation} ${path}`);
    this.name = "FenceError";
  }
}

/** `\` to `/`, no empty or `.` segments, `..` applied; a leading `/` kept. */
export function normalizeFsPath(input: string): string {
  const slashed = input.replace(/\\/g, "/");
  const segments: string[] = [];
  for (const segment of slashed.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(segment);
  }
  return (slashed.startsWith("/") ? "/" : "") + segments.join("/");
}

/** The part of `path` below `root`, "" for the root itself, or null when it lies elsewhere. */
export function relativeTo(root: string, path: string): string | null {
  if (path === root) return "";
  const prefix = root.endsWith("/") ? root : `${root}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : null;
}

export function hasHiddenSegment(relative: string): boolean {
  return relative.split("/").some((segment) => segment.startsWith("."));
}

type Access = "read" | "write";

const NO_PATH: Promise<never> = Promise.reject(Object.assign(new Error("readFile needs a path"), { code: "EINVAL" }));
// Handled here once: each caller gets the same settled promise, and the probe ignores its reason.
NO_PATH.catch(() => undefined);

export interface Fence {
  client: FencedFsClient;
  /** Refusals so far; tests and logs show that nothing tried to leave the fence. */
  readonly refusals: number;
}

export function fenceFs(fs: GitFs, roots: { dir: string; gitdir: string }): Fence {
  const gitdir = normalizeFsPath(roots.gitdir);
  const dir = normalizeFsPath(roots.dir);
  let refusals = 0;
  const check = (operation: string, raw: string, access: Access): string => {
    const path = normalizeFsPath(raw);
    if (relativeTo(gitdir, path) !== null) return raw;
    const inVault = relativeTo(dir, path);
    if (access === "read" && inVault !== null && !hasHiddenSegment(inVault)) return raw;
    refusals += 1;
    throw new FenceError(operation, raw);
  };
  const promises: GitFs = {
    // isomorphic-git calls readFile() without a path on every command to see whether it returns a
    // promise: answered at once, without building an error and its stack each time.
    readFile: (path, options) => (typeof path === "string" ? Promise.resolve().then(() => fs.readFile(check("read", path, "read"), options)) : NO_PATH),
    writeFile: async (path, data, options) => fs.writeFile(check("write", path, "write"), data, options),
    unlink: async (path) => fs.unlink(check("remove", path, "write")),
    readdir: async (path, options) => fs.readdir(check("list", path, "read"), options),
    mkdir: async (path, options) => fs.mkdir(check("create", path, "write"), options),
    rmdir: async (path, options) => fs.rmdir(check("remove", path, "write"), options),
    rm: async (path, options) => {
      const checked = check("remove", path, "write");
      if (fs.rm) await fs.rm(checked, options);
      else await fs.rmdir(checked, options);
    },
    stat: async (path, options) => fs.stat(check("stat", path, "read"), options),
    lstat: async (path, options) => fs.lstat(check("stat", path, "read"), options),
    readlink: async (path, options) => fs.readlink(check("read", path, "read"), options),
    symlink: async (target, path, type) => fs.symlink(target, check("link", path, "write"), type),
    chmod: async (path, mode) => fs.chmod(check("chmod", path, "write"), mode),
  };
  return {
    client: { promises },
    get refusals() {
      return refusals;
    },
  };
}
