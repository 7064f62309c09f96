// Atomic writes on disk: a temp file in the same folder, fsync, rename, then fsync of the folder, so a
// crash at any point leaves the old bytes or the new ones. The write path holds the vault's lock, but
// other programs take no lock: one may append to the note after its last check, right up to the
// rename, and even after it through a handle it opened before. So the file a write replaces is held
// under a second name, compared after the rename with what was checked, and put back when another
// program wrote to it meanwhile; deletes and moves take exactly the file they checked out of the way.
// A replaced file keeps its mode (and its owner when the server runs as root); one that no one may
// write is refused, not replaced.
import { randomBytes } from "node:crypto";
import { constants, promises as fs, type BigIntStats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";
import { ToolError, type ErrorState } from "../../core/errors";
import { contentHash, sameHash } from "../../core/notes/hash";
import type { FileStat, Hasher, WritePort } from "../../core/ports";
import { fsErrorCode, fsToolError, type FsAction } from "./fs-errors";
import { TEMP_FILE_PREFIX, isMissing, type FsVault } from "./fs-vault";

/** link() fails with these where the file system has no hard links (FAT, exFAT, some network shares). */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "EXDEV", "ENOSYS"]);

/** Read so that a trash copy can be restored by the server whatever the note's mode was. */
const OWNER_READ = 0o400;

/**
 * Points where another program's write is hardest to see: after the file was checked and before it is
 * replaced, removed or moved away ("checked"), and right after ("swapped"). Tests write there.
 */
export type WriteStep = "checked" | "swapped";
export type WriteStepHook = (step: WriteStep, relative: string) => Promise<void> | void;

interface Identity { dev: bigint; ino: bigint }
interface Attributes { mode: number; uid: number; gid: number }

/** What was checked of a file: the hash of its bytes, and the size and mtime that a write changes. */
interface Seen extends Attributes { hash: string; size: bigint; mtimeNs: bigint }

function sameFile(a: Identity, b: Identity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

function sameSeen(a: Seen, b: Seen): boolean {
  return a.size === b.size && a.mtimeNs === b.mtimeNs && a.hash === b.hash;
}

function hasNoHardLinks(error: unknown): boolean {
  const code = fsErrorCode(error);
  return code !== undefined && NO_HARD_LINKS.has(code);
}

function runsAsRoot(): boolean {
  return process.geteuid?.() === 0;
}

/** A temp name beside the file; the prefix is all the startup cleanup looks for. */
function besideName(absolute: string): string {
  // Short and of fixed length (23 bytes), so a file name up to the 255-byte limit still gets one.
  return path.join(path.dirname(absolute), `${TEMP_FILE_PREFIX}${randomBytes(8).toString("hex")}`);
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  return bytes.length >= prefix.length && Buffer.from(bytes.buffer, bytes.byteOffset, prefix.length).equals(prefix);
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A handle's whole file from its start, whatever the handle read before. */
async function readAll(handle: FileHandle): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let position = 0;
  for (;;) {
    const buffer = Buffer.allocUnsafe(64 * 1024);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    chunks.push(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  return new Uint8Array(Buffer.concat(chunks));
}

async function lstatOrNull(absolute: string): Promise<BigIntStats | null> {
  try {
    return await fs.lstat(absolute, { bigint: true });
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

/** The old file's mode on the new one, and its owner when the server may give it (as root). */
async function keepAttributes(handle: FileHandle, original: Attributes, addBits = 0): Promise<void> {
  // chown first: it clears set-user-ID bits, which the chmod sets again.
  if (runsAsRoot()) {
    await handle.chown(original.uid, original.gid);
  } else if (process.platform !== "win32") {
    // The group stays when the server's user is in it; otherwise the file takes the server's group.
    await handle.chown(-1, original.gid).catch((error: unknown) => {
      if (fsErrorCode(error) !== "EPERM") throw error;
    });
  }
  await handle.chmod((original.mode & 0o7777) | addBits);
}

/**
 * Refuses a file that its permissions keep from being written, rather than replacing it by a rename
 * (which needs only the folder's permission). No write bit at all is "read-only" for every user, root
 * included; a server that is not root also needs write permission of its own.
 */
async function refuseUnwritable(absolute: string, relative: string, original: Attributes, action: "write" | "delete"): Promise<void> {
  if ((original.mode & 0o222) === 0) {
    const octal = (original.mode & 0o777).toString(8).padStart(3, "0");
    throw new ToolError(
      "forbidden",
      `read-only file: ${relative} — its permissions (${octal}) let no one write it, so the server does not ${action === "write" ? "replace" : "delete"} it. Make it writable first (e.g. chmod u+w on the host), then call again.`,
      { details: { path: relative, cause: "read_only" } },
    );
  }
  if (!runsAsRoot() && process.platform !== "win32") await fs.access(absolute, constants.W_OK);
}

function changedMeanwhile(relative: string, actual: string | null): ToolError {
  return new ToolError(
    "conflict",
    `"${relative}" was changed by someone else while this write was prepared (content_hash is now ${actual ?? "none: the file is gone"}). Read it again and redo the change.`,
    { retry: "inspect_state", details: { path: relative, content_hash: actual } },
  );
}

/**
 * Creates a file's folders inside the vault, never the vault's own folder; a file standing where a
 * folder should be is reported as such.
 */
async function makeFolders(vault: FsVault, dir: string): Promise<void> {
  try {
    await vault.makeFolder(dir);
  } catch (error) {
    if (fsErrorCode(error) === "EEXIST") throw Object.assign(new Error("a file stands where a folder should be"), { code: "ENOTDIR" });
    throw error;
  }
}

/** Runs a file-system step on `relative`, its failure turned into an instructive, host-free ToolError. */
async function onFile<T>(relative: string, action: FsAction, step: () => Promise<T>, state: ErrorState = "not_applied"): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw fsToolError(error, relative, action, state);
  }
}

/**
 * The file a write is about to replace, held so that what the rename displaced can be compared with
 * what was checked and put back whole: under a second name (a hard link beside it), or, on a file
 * system without hard links, by an open handle. Windows cannot replace a file that is open, so there
 * a file system without hard links keeps the window between the check and the rename.
 */
class HeldFile {
  private aside: string | null;
  private readonly handle: FileHandle | null;
  /** The file as the path named it when it was taken; null when nothing holds it. */
  private readonly identity: BigIntStats | null;
  private readonly absolute: string;
  private readonly hash: (bytes: Uint8Array) => string;

  private constructor(absolute: string, hash: (bytes: Uint8Array) => string, aside: string | null, handle: FileHandle | null, identity: BigIntStats | null) {
    this.absolute = absolute;
    this.hash = hash;
    this.aside = aside;
    this.handle = handle;
    this.identity = identity;
  }

  static async take(absolute: string, hash: (bytes: Uint8Array) => string): Promise<HeldFile> {
    const aside = besideName(absolute);
    let linked = true;
    try {
      await fs.link(absolute, aside);
    } catch (error) {
      if (!hasNoHardLinks(error)) throw error;
      linked = false;
    }
    if (linked) {
      try {
        return new HeldFile(absolute, hash, aside, null, await fs.lstat(aside, { bigint: true }));
      } catch (error) {
        await fs.rm(aside, { force: true });
        throw error;
      }
    }
    if (process.platform === "win32") return new HeldFile(absolute, hash, null, null, null);
    const handle = await fs.open(absolute, "r");
    try {
      return new HeldFile(absolute, hash, null, handle, await handle.stat({ bigint: true }));
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** The held file's bytes and state, read now. */
  async look(): Promise<Seen> {
    let stats: BigIntStats;
    let bytes: Uint8Array;
    if (this.handle) {
      stats = await this.handle.stat({ bigint: true });
      bytes = await readAll(this.handle);
    } else {
      const source = this.aside ?? this.absolute;
      stats = await fs.stat(source, { bigint: true });
      bytes = new Uint8Array(await fs.readFile(source));
    }
    return { hash: this.hash(bytes), size: stats.size, mtimeNs: stats.mtimeNs, mode: Number(stats.mode), uid: Number(stats.uid), gid: Number(stats.gid) };
  }

  /** Whether the path still names the held file: another program's own atomic save may have replaced it. */
  async isAt(): Promise<boolean> {
    if (!this.identity) return true;
    const now = this.aside ? await lstatOrNull(this.absolute) : await fs.stat(this.absolute, { bigint: true }).catch((error: unknown) => {
      if (isMissing(error)) return null;
      throw error;
    });
    return now !== null && sameFile(now, this.identity);
  }

  /** The held file's state now, when it differs from `seen`: written to since. */
  async changedSince(seen: Seen): Promise<Seen | null> {
    if (!this.identity) return null;
    const now = await this.look();
    return sameSeen(now, seen) ? null : now;
  }

  /** Puts the held file back at its path in one step, in place of what is there now. */
  async putBack(): Promise<void> {
    if (this.aside) {
      await fs.rename(this.aside, this.absolute);
      this.aside = null;
      return;
    }
    if (!this.handle) return;
    // Without a second name the file can only come back as a copy, mode and owner included.
    const bytes = await readAll(this.handle);
    const stats = await this.handle.stat();
    const temp = besideName(this.absolute);
    const copy = await fs.open(temp, "wx", 0o600);
    try {
      try {
        await copy.writeFile(bytes);
        await keepAttributes(copy, stats);
        await copy.sync();
      } finally {
        await copy.close();
      }
      await fs.rename(temp, this.absolute);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
  }

  /** Lets go of the held file; its second name is only a temp file, removed at the next start at the latest. */
  async release(): Promise<void> {
    if (this.aside) await fs.rm(this.aside, { force: true }).catch(() => undefined);
    this.aside = null;
    await this.handle?.close().catch(() => undefined);
  }
}

export class FsWriter implements WritePort {
  private readonly vault: FsVault;
  private readonly hasher: Hasher;
  private readonly step: WriteStepHook | undefined;

  constructor(vault: FsVault, hasher: Hasher, step?: WriteStepHook) {
    this.vault = vault;
    this.hasher = hasher;
    this.step = step;
  }

  private readonly hash = (bytes: Uint8Array): string => contentHash(bytes, (b) => this.hasher.sha256Hex(b));

  private async currentHash(absolute: string): Promise<string | null> {
    try {
      return this.hash(new Uint8Array(await fs.readFile(absolute)));
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  private async checkUnchanged(absolute: string, relative: string, expectedHash: string | null): Promise<void> {
    const actual = await this.currentHash(absolute);
    const unchanged = expectedHash === null ? actual === null : actual !== null && sameHash(actual, expectedHash);
    if (!unchanged) throw changedMeanwhile(relative, actual);
  }

  async writeFile(relative: string, bytes: Uint8Array, expectedHash: string | null): Promise<FileStat> {
    const absolute = this.vault.absolute(relative);
    await onFile(relative, "write", () => (expectedHash === null ? this.create(absolute, relative, bytes) : this.replace(absolute, relative, bytes, expectedHash)));
    const stat = await this.vault.stat(relative);
    if (!stat) throw new ToolError("internal", `"${relative}" vanished right after it was written; another program may have moved it. Call note_list to look for it.`, { state: "unknown", retry: "inspect_state" });
    return stat;
  }

  /** A new file, with the folder's default mode; one another program made meanwhile is never replaced. */
  private async create(absolute: string, relative: string, bytes: Uint8Array): Promise<void> {
    await makeFolders(this.vault, path.dirname(absolute));
    const temp = besideName(absolute);
    const handle = await fs.open(temp, "wx");
    try {
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await this.step?.("checked", relative);
      // link() refuses an existing file atomically, where rename() would replace one made since the check.
      try {
        await fs.link(temp, absolute);
      } catch (error) {
        if (fsErrorCode(error) === "EEXIST") {
          // A folder there fails the read as "is a folder"; anything else was made meanwhile and stays.
          const actual = await this.currentHash(absolute);
          throw new ToolError(
            "conflict",
            `"${relative}" was made by someone else while this write was prepared${actual === null ? "" : ` (content_hash ${actual})`}; it was left as it is. Read it, then change it with a hash-checked edit or choose another path.`,
            { retry: "inspect_state", details: { path: relative, content_hash: actual } },
          );
        }
        if (!hasNoHardLinks(error)) throw error;
        await this.checkUnchanged(absolute, relative, null);
        await fs.rename(temp, absolute);
      }
    } finally {
      // Whatever happened (a full disk mid-write, a conflict, the link made), the temp name goes now.
      await fs.rm(temp, { force: true });
    }
    // In place: from here on a failure leaves the new bytes, perhaps not yet durable.
    await onFile(relative, "write", () => syncDirectory(path.dirname(absolute)), "unknown");
  }

  /**
   * Replaces a file whose bytes must still hash to `expectedHash`. The file is taken hold of, checked,
   * and renamed over only while its path still names it; after the rename, what it displaced must be
   * as checked, or it is put back and the write is a conflict that applied nothing.
   */
  private async replace(absolute: string, relative: string, bytes: Uint8Array, expectedHash: string): Promise<void> {
    let before: Attributes;
    try {
      before = await fs.stat(absolute);
    } catch (error) {
      if (isMissing(error)) throw changedMeanwhile(relative, null);
      throw error;
    }
    await refuseUnwritable(absolute, relative, before, "write");
    const temp = besideName(absolute);
    // Private until it has the old file's mode: it holds the new bytes of what may be a private note.
    const handle = await fs.open(temp, "wx+", 0o600);
    let renamed = false;
    try {
      await handle.writeFile(bytes);
      await keepAttributes(handle, before);
      await handle.sync();
      const ours = await handle.stat({ bigint: true });
      let held: HeldFile;
      try {
        held = await HeldFile.take(absolute, this.hash);
      } catch (error) {
        if (isMissing(error)) throw changedMeanwhile(relative, null);
        throw error;
      }
      try {
        const seen = await held.look();
        if (!sameHash(seen.hash, expectedHash)) throw changedMeanwhile(relative, seen.hash);
        if (seen.mode !== before.mode || seen.uid !== before.uid || seen.gid !== before.gid) {
          await refuseUnwritable(absolute, relative, seen, "write");
          await keepAttributes(handle, seen);
        }
        await this.step?.("checked", relative);
        if (!(await held.isAt())) throw changedMeanwhile(relative, await this.currentHash(absolute));
        await fs.rename(temp, absolute);
        renamed = true;
        try {
          // Made durable first: the moment that takes lets a program that opened the old file just
          // before the rename finish its write to it, which the comparison below then sees.
          await syncDirectory(path.dirname(absolute));
          await this.step?.("swapped", relative);
          // A program that opened the old file before the rename may have written to it up to now.
          if (await held.changedSince(seen)) await this.putBack(absolute, relative, held, ours, handle, bytes);
        } catch (error) {
          throw fsToolError(error, relative, "write", "unknown");
        }
      } finally {
        await held.release();
      }
    } finally {
      await handle.close();
      if (!renamed) await fs.rm(temp, { force: true });
    }
  }

  /**
   * The other program's version goes back in place of this write's, and whatever was appended to this
   * write's file in the moment between goes on its end: nothing another program wrote is lost.
   */
  private async putBack(absolute: string, relative: string, held: HeldFile, ours: Identity, handle: FileHandle, bytes: Uint8Array): Promise<never> {
    const current = await lstatOrNull(absolute);
    if (current === null || !sameFile(current, ours)) {
      throw new ToolError(
        "conflict",
        `"${relative}" was changed by another program while this write was made, and then replaced by it once more; its newest version is in place and this write is not. Read it again and redo the change.`,
        { state: "unknown", retry: "inspect_state", details: { path: relative, content_hash: await this.currentHash(absolute) } },
      );
    }
    await held.putBack();
    const after = await readAll(handle);
    const appended = after.length > bytes.length && startsWith(after, bytes);
    if (appended) await fs.appendFile(absolute, after.subarray(bytes.length));
    await syncDirectory(path.dirname(absolute));
    const actual = await this.currentHash(absolute);
    // This write's file rewritten (not appended to) in that moment: that rewrite is gone with it.
    const whole = appended || after.length === bytes.length;
    throw new ToolError(
      "conflict",
      `"${relative}" was changed by another program while this write was made: that program's version is back in place and this write was not applied (content_hash is now ${actual ?? "none"}). Read it again and redo the change.`,
      { state: whole ? "not_applied" : "unknown", retry: "inspect_state", details: { path: relative, content_hash: actual } },
    );
  }

  async removeFile(relative: string, expectedHash: string): Promise<void> {
    const absolute = this.vault.absolute(relative);
    await onFile(relative, "delete", () => this.remove(absolute, relative, expectedHash));
    await onFile(relative, "delete", () => syncDirectory(path.dirname(absolute)), "unknown");
  }

  /**
   * Deletes a file whose bytes must still hash to `expectedHash`. A rename takes exactly the file that
   * is there out of the way before it is checked, so a version another program saves meanwhile is
   * never removed; one that still writes to the taken file gets it back.
   */
  private async remove(absolute: string, relative: string, expectedHash: string): Promise<void> {
    let before: Attributes;
    try {
      before = await fs.stat(absolute);
    } catch (error) {
      if (isMissing(error)) throw changedMeanwhile(relative, null);
      throw error;
    }
    await refuseUnwritable(absolute, relative, before, "delete");
    const aside = besideName(absolute);
    try {
      await fs.rename(absolute, aside);
    } catch (error) {
      if (isMissing(error)) throw changedMeanwhile(relative, null);
      throw error;
    }
    let handle: FileHandle;
    try {
      handle = await fs.open(aside, "r");
    } catch (error) {
      await this.returnTaken(aside, absolute, relative);
      throw error;
    }
    try {
      const look = async (): Promise<Seen> => {
        const stats = await handle.stat({ bigint: true });
        const bytes = await readAll(handle);
        return { hash: this.hash(bytes), size: stats.size, mtimeNs: stats.mtimeNs, mode: Number(stats.mode), uid: Number(stats.uid), gid: Number(stats.gid) };
      };
      const seen = await look();
      if (!sameHash(seen.hash, expectedHash)) {
        await this.returnTaken(aside, absolute, relative);
        throw changedMeanwhile(relative, seen.hash);
      }
      await this.step?.("checked", relative);
      await fs.unlink(aside);
      await this.step?.("swapped", relative);
      // Written to through a handle opened before: its bytes come back, as a copy, since the file is gone.
      const now = await look();
      if (!sameSeen(now, seen)) {
        try {
          await this.restoreCopy(absolute, relative, await readAll(handle), now);
        } catch (error) {
          throw fsToolError(error, relative, "delete", "unknown");
        }
        throw new ToolError(
          "conflict",
          `"${relative}" was changed by another program while it was being deleted; that version is back in place and nothing was deleted (content_hash is now ${now.hash}). Read it again and decide then.`,
          { state: "not_applied", retry: "inspect_state", details: { path: relative, content_hash: now.hash } },
        );
      }
    } finally {
      await handle.close();
    }
  }

  /** Puts a file taken aside back at its path, where another program may have made a new one since. */
  private async returnTaken(aside: string, absolute: string, relative: string): Promise<void> {
    try {
      await fs.link(aside, absolute);
      await fs.rm(aside, { force: true });
      return;
    } catch (error) {
      const code = fsErrorCode(error);
      if (code !== "EEXIST" && !hasNoHardLinks(error)) throw fsToolError(error, relative, "delete", "unknown");
    }
    // A file made at the path in that moment holds only what was written since: it goes on the end of the older one.
    const newer = await fs.readFile(absolute).catch((error: unknown) => {
      if (isMissing(error)) return null;
      throw error;
    });
    if (newer !== null) await fs.appendFile(aside, newer);
    await fs.rename(aside, absolute);
  }

  /** A deleted file's last bytes back at its path, with its mode (and owner, as root); a file made there since stays and gets them on its end. */
  private async restoreCopy(absolute: string, relative: string, bytes: Uint8Array, original: Attributes): Promise<void> {
    const temp = besideName(absolute);
    const handle = await fs.open(temp, "wx", 0o600);
    try {
      try {
        await handle.writeFile(bytes);
        await keepAttributes(handle, original);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await this.returnTaken(temp, absolute, relative);
    } finally {
      await fs.rm(temp, { force: true });
    }
  }

  async renameFile(from: string, to: string): Promise<void> {
    const source = this.vault.absolute(from);
    const target = this.vault.absolute(to);
    const linked = await onFile(to, "move", () => this.placeAt(source, target, to));
    // The file is at its new path: a failure from here on may leave it at both.
    await onFile(from, "move", async () => {
      if (linked) await this.releaseSource(source, target, from, linked);
      await syncDirectory(path.dirname(target));
      if (path.dirname(source) !== path.dirname(target)) await syncDirectory(path.dirname(source));
    }, "unknown");
  }

  /**
   * Puts the file at its new path, by a hard link (the file linked, as it was then) or a rename (null);
   * refuses an existing target.
   */
  private async placeAt(source: string, target: string, to: string): Promise<BigIntStats | null> {
    await makeFolders(this.vault, path.dirname(target));
    // link() refuses an existing target atomically, where rename() would replace it.
    try {
      await fs.link(source, target);
      return await fs.lstat(target, { bigint: true });
    } catch (error) {
      if (fsErrorCode(error) === "EEXIST") throw new ToolError("conflict", `"${to}" already exists; nothing was moved.`, { state: "not_applied" });
      // File systems without hard links (FAT, some network shares): check, then rename.
      if (!hasNoHardLinks(error)) throw error;
    }
    if (await fs.lstat(target).then(() => true, () => false)) throw new ToolError("conflict", `"${to}" already exists; nothing was moved.`, { state: "not_applied" });
    await fs.rename(source, target);
    return null;
  }

  /**
   * Removes the old name of a file moved by a hard link, but only while it still names that file: a
   * version another program saved there since is newer, stays, and the move is taken back.
   */
  private async releaseSource(source: string, target: string, from: string, linked: Identity): Promise<void> {
    await this.step?.("checked", from);
    const aside = besideName(source);
    try {
      await fs.rename(source, aside);
    } catch (error) {
      // Deleted meanwhile by someone else: the file lives on at its new path.
      if (isMissing(error)) return;
      throw error;
    }
    if (sameFile(await fs.lstat(aside, { bigint: true }), linked)) {
      await fs.unlink(aside);
      return;
    }
    await this.returnTaken(aside, source, from);
    // The new name goes only while it still names the linked file: it was not there before.
    const undo = besideName(target);
    await fs.rename(target, undo);
    if (sameFile(await fs.lstat(undo, { bigint: true }), linked)) await fs.unlink(undo);
    else await this.returnTaken(undo, target, from);
    throw new ToolError(
      "conflict",
      `"${from}" was replaced by another program while it was being moved; that version stays at "${from}" and nothing was moved. Read it again, then move it.`,
      { state: "not_applied", retry: "inspect_state", details: { path: from } },
    );
  }

  async writeHidden(relative: string, bytes: Uint8Array, copyOf?: string): Promise<boolean> {
    return onFile(relative, "write", () => this.writeHiddenFile(relative, bytes, copyOf));
  }

  private async writeHiddenFile(relative: string, bytes: Uint8Array, copyOf: string | undefined): Promise<boolean> {
    const absolute = this.vault.absolute(relative);
    await makeFolders(this.vault, path.dirname(absolute));
    // A copy of a private note stays private: the note's mode (and owner, as root), not the default.
    const original = copyOf === undefined ? null : await fs.stat(this.vault.absolute(copyOf)).catch(() => null);
    let created = false;
    try {
      const handle = await fs.open(absolute, "wx", original ? 0o600 : 0o666);
      created = true;
      try {
        await handle.writeFile(bytes);
        if (original) await keepAttributes(handle, original, OWNER_READ);
        await handle.sync();
      } finally {
        await handle.close();
      }
      return true;
    } catch (error) {
      if (!created && (error as { code?: string }).code === "EEXIST") return false;
      // A copy cut short (a full disk) is no copy: it would pass for a trashed empty or shortened note.
      if (created) await fs.rm(absolute, { force: true });
      throw error;
    }
  }

  async readHidden(relative: string): Promise<Uint8Array | null> {
    try {
      return new Uint8Array(await fs.readFile(this.vault.absolute(relative)));
    } catch (error) {
      if (isMissing(error)) return null;
      throw fsToolError(error, relative, "read");
    }
  }

  async listHidden(folder: string): Promise<FileStat[]> {
    let names: string[];
    try {
      names = await fs.readdir(this.vault.absolute(folder));
    } catch {
      return [];
    }
    const out: FileStat[] = [];
    for (const name of names) {
      try {
        const stats = await fs.stat(this.vault.absolute(`${folder}/${name}`));
        if (stats.isFile()) out.push({ path: `${folder}/${name}`, size: stats.size, mtime: Math.floor(stats.mtimeMs), ctime: Math.floor(stats.ctimeMs) });
      } catch {
        // Purged meanwhile.
      }
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : 1));
  }

  async removeHidden(relative: string): Promise<void> {
    await onFile(relative, "delete", () => fs.rm(this.vault.absolute(relative), { force: true }));
  }

  /** Leftovers of writes cut short by a crash; they never hold the only copy of anything. */
  async removeStaleTempFiles(): Promise<number> {
    let removed = 0;
    const walk = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory() && !entry.name.startsWith(".")) await walk(full);
        else if (entry.isFile() && entry.name.startsWith(TEMP_FILE_PREFIX)) {
          await fs.rm(full, { force: true });
          removed += 1;
        }
      }
    };
    await walk(this.vault.root);
    return removed;
  }
}
