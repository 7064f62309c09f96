// Atomic writes on disk: a temp file in the same folder, fsync, rename, then fsync of the folder, so a
// crash at any point leaves the old bytes or the new ones. The write path holds the vault's lock, but
// other programs take no lock: one may append to the note after its last check, right up to the
// rename, and even after it through a handle it opened before. So the file a write replaces is held
// under a second name, compared after the rename with what was checked, and put back when another
// program wrote to it meanwhile; deletes and moves take exactly the file they checked out of the way.
// A replaced file keeps its mode (and its owner when the server runs as root); one that no one may
// write is refused, not replaced.
// Every step works in the file's folder as the vault opened and checked it (contained-fs.ts): temp
// files and second names are made there and renamed there, so a symbolic link swapped in on the way
// leads no write, rename or delete out of the vault.
import { closeSync, constants, fstatSync, promises as fs, readSync, type BigIntStats, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { ToolError, type ErrorState } from "../../core/errors";
import { contentHash, sameHash } from "../../core/notes/hash";
import type { FileStat, Hasher, WritePort } from "../../core/ports";
import { errorCode, tempFileName, type ContainedFs, type OpenFolder } from "./contained-fs";
import { fsErrorCode, fsToolError, type FsAction } from "./fs-errors";
import { TEMP_FILE_PREFIX, isMissing, type FsVault } from "./fs-vault";

/** link() fails with these where the file system has no hard links (FAT, exFAT, some network shares). */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "EXDEV", "ENOSYS"]);

/** Read so that a trash copy can be restored by the server whatever the note's mode was. */
const OWNER_READ = 0o400;

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * Points where another program's write is hardest to see: after the file was checked and before it is
 * replaced, removed or moved away ("checked"), right after ("swapped"), and once the other program's
 * version is back in place and what was appended to the server's own file meanwhile was first read, or
 * a deleted file written to meanwhile was first read to be restored ("put_back"). Tests write there.
 */
export type WriteStep = "checked" | "swapped" | "put_back";
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

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  return bytes.length >= prefix.length && Buffer.from(bytes.buffer, bytes.byteOffset, prefix.length).equals(prefix);
}

/**
 * How long a file no name leads to any more (the server's version once the other program's is back, or
 * a deleted note) must stay as it is before its bytes are taken to be kept: a program that opened it
 * just before may be in the middle of a write (a read then sees part of a line) or about to make one.
 * SETTLE_ROUNDS bounds the wait for one that never stops.
 */
const SETTLE_MS = 5;
const SETTLE_ROUNDS = 20;

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
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

/** A descriptor's whole file from its start. */
function readAllFd(fd: number): Uint8Array {
  const chunks: Buffer[] = [];
  let position = 0;
  for (;;) {
    const buffer = Buffer.allocUnsafe(64 * 1024);
    const bytesRead = readSync(fd, buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    chunks.push(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  return new Uint8Array(Buffer.concat(chunks));
}

/** The state and hash of the file a descriptor holds, read now. */
function seenOf(fd: number, hash: (bytes: Uint8Array) => string): Seen {
  const stats = fstatSync(fd, { bigint: true });
  const bytes = readAllFd(fd);
  return { hash: hash(bytes), size: stats.size, mtimeNs: stats.mtimeNs, mode: Number(stats.mode), uid: Number(stats.uid), gid: Number(stats.gid) };
}

async function statOrNull(absolute: string, follow: boolean): Promise<BigIntStats | null> {
  try {
    return follow ? await fs.stat(absolute, { bigint: true }) : await fs.lstat(absolute, { bigint: true });
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

/** Appends to a file of the folder, never through a link in its name, nor into a folder moved out meanwhile. */
async function appendTo(folder: OpenFolder, name: string, bytes: Uint8Array): Promise<void> {
  const handle = await fs.open(folder.at(name), constants.O_WRONLY | constants.O_APPEND | O_NOFOLLOW);
  try {
    folder.recheck();
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
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
async function refuseUnwritable(folder: OpenFolder, name: string, relative: string, original: Attributes, action: "write" | "delete"): Promise<void> {
  if ((original.mode & 0o222) === 0) {
    const octal = (original.mode & 0o777).toString(8).padStart(3, "0");
    throw new ToolError(
      "forbidden",
      `read-only file: ${relative} — its permissions (${octal}) let no one write it, so the server does not ${action === "write" ? "replace" : "delete"} it. Make it writable first (e.g. chmod u+w on the host), then call again.`,
      { details: { path: relative, cause: "read_only" } },
    );
  }
  if (!runsAsRoot() && process.platform !== "win32") await fs.access(folder.at(name), constants.W_OK);
}

function changedMeanwhile(relative: string, actual: string | null): ToolError {
  return new ToolError(
    "conflict",
    `"${relative}" was changed by someone else while this write was prepared (content_hash is now ${actual ?? "none: the file is gone"}). Read it again and redo the change.`,
    { retry: "inspect_state", details: { path: relative, content_hash: actual } },
  );
}

function systemError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/**
 * The stats of the note `name` in the folder, a link followed while it stays inside. A note gone is
 * a conflict; a link that leads outside is refused as such.
 */
function noteStats(contained: ContainedFs, folder: OpenFolder, name: string, relative: string): Stats {
  const stats = contained.statEntry(folder, name);
  if (stats?.isFile()) return stats;
  if (stats?.isDirectory()) throw systemError("EISDIR", "a folder");
  if (stats) throw systemError("EINVAL", "not a regular file");
  // Missing, or a link that leads outside or nowhere: opening it says which.
  let opened: { fd: number };
  try {
    opened = contained.openRead(folder, name);
  } catch (error) {
    if (isMissing(error)) throw changedMeanwhile(relative, null);
    throw error;
  }
  closeSync(opened.fd);
  throw changedMeanwhile(relative, null);
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
 * what was checked and put back whole: under a second name (a hard link beside it, in the same open
 * folder), or, on a file system without hard links, by an open descriptor. Windows cannot replace a
 * file that is open, so there a file system without hard links keeps the window between the check and
 * the rename.
 */
class HeldFile {
  private aside: string | null;

  private constructor(
    private readonly contained: ContainedFs,
    private readonly folder: OpenFolder,
    private readonly name: string,
    private readonly hash: (bytes: Uint8Array) => string,
    aside: string | null,
    private fd: number | null,
    /** The file as its name named it when it was taken; null when nothing holds it. */
    private readonly identity: BigIntStats | null,
  ) {
    this.aside = aside;
  }

  static async take(contained: ContainedFs, folder: OpenFolder, name: string, hash: (bytes: Uint8Array) => string): Promise<HeldFile> {
    const aside = tempFileName();
    let linked = true;
    try {
      await fs.link(folder.at(name), folder.at(aside));
    } catch (error) {
      if (!hasNoHardLinks(error)) throw error;
      linked = false;
    }
    if (linked) {
      try {
        return new HeldFile(contained, folder, name, hash, aside, null, await fs.lstat(folder.at(aside), { bigint: true }));
      } catch (error) {
        await fs.rm(folder.at(aside), { force: true });
        throw error;
      }
    }
    if (process.platform === "win32") return new HeldFile(contained, folder, name, hash, null, null, null);
    const { fd } = contained.openRead(folder, name);
    try {
      return new HeldFile(contained, folder, name, hash, null, fd, fstatSync(fd, { bigint: true }));
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** The held file's bytes and state, read now, from what was opened and checked to lie inside. */
  look(): Seen {
    if (this.fd !== null) return seenOf(this.fd, this.hash);
    const { fd } = this.contained.openRead(this.folder, this.aside ?? this.name);
    try {
      return seenOf(fd, this.hash);
    } finally {
      closeSync(fd);
    }
  }

  /** Whether the name still names the held file: another program's own atomic save may have replaced it. */
  async isAt(): Promise<boolean> {
    if (!this.identity) return true;
    const now = await statOrNull(this.folder.at(this.name), this.aside === null);
    return now !== null && sameFile(now, this.identity);
  }

  /** The held file's state now, when it differs from `seen`: written to since. */
  changedSince(seen: Seen): Seen | null {
    if (!this.identity) return null;
    const now = this.look();
    return sameSeen(now, seen) ? null : now;
  }

  /** Puts the held file back under its name in one step, in place of what is there now. */
  async putBack(): Promise<void> {
    if (this.aside) {
      this.folder.recheck();
      await fs.rename(this.folder.at(this.aside), this.folder.at(this.name));
      this.aside = null;
      return;
    }
    if (this.fd === null) return;
    // Without a second name the file can only come back as a copy, mode and owner included.
    const bytes = readAllFd(this.fd);
    const stats = fstatSync(this.fd);
    const { handle: copy, path: temp } = await this.contained.createTemp(this.folder, { mode: 0o600 });
    try {
      try {
        await copy.writeFile(bytes);
        await keepAttributes(copy, stats);
        await copy.sync();
      } finally {
        await copy.close();
      }
      this.folder.recheck();
      await fs.rename(temp, this.folder.at(this.name));
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
  }

  /** Lets go of the held file; its second name is only a temp file, removed at the next start at the latest. */
  async release(): Promise<void> {
    if (this.aside) await fs.rm(this.folder.at(this.aside), { force: true }).catch(() => undefined);
    this.aside = null;
    if (this.fd !== null) {
      try {
        closeSync(this.fd);
      } catch {
        // Closed already.
      }
      this.fd = null;
    }
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

  private get contained(): ContainedFs {
    return this.vault.contained;
  }

  private readonly hash = (bytes: Uint8Array): string => contentHash(bytes, (b) => this.hasher.sha256Hex(b));

  private async currentHash(folder: OpenFolder, name: string): Promise<string | null> {
    const bytes = await this.vault.readEntry(folder, name);
    return bytes === null ? null : this.hash(bytes);
  }

  private async checkUnchanged(folder: OpenFolder, name: string, relative: string, expectedHash: string | null): Promise<void> {
    const actual = await this.currentHash(folder, name);
    const unchanged = expectedHash === null ? actual === null : actual !== null && sameHash(actual, expectedHash);
    if (!unchanged) throw changedMeanwhile(relative, actual);
  }

  async writeFile(relative: string, bytes: Uint8Array, expectedHash: string | null): Promise<FileStat> {
    const stat = await onFile(relative, "write", () =>
      this.vault.inFolder(relative, true, async (folder, name) => {
        if (expectedHash === null) await this.create(folder, name, relative, bytes);
        else await this.replace(folder, name, relative, bytes, expectedHash);
        // The file as written, in the folder it was written to, not wherever its path leads by now.
        return this.vault.statIn(folder, name, relative);
      }),
    );
    if (!stat) throw new ToolError("internal", `"${relative}" vanished right after it was written; another program may have moved it. Call note_list to look for it.`, { state: "unknown", retry: "inspect_state" });
    return stat;
  }

  /** A new file, with the folder's default mode; one another program made meanwhile is never replaced. */
  private async create(folder: OpenFolder, name: string, relative: string, bytes: Uint8Array): Promise<void> {
    const { handle, path: temp } = await this.contained.createTemp(folder);
    try {
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await this.step?.("checked", relative);
      // A folder moved out of the vault since it was opened takes no new file.
      folder.recheck();
      // link() refuses an existing file atomically, where rename() would replace one made since the check.
      try {
        await fs.link(temp, folder.at(name));
      } catch (error) {
        if (fsErrorCode(error) === "EEXIST") {
          // A folder there fails the read as "is a folder"; anything else was made meanwhile and stays.
          const actual = await this.currentHash(folder, name);
          throw new ToolError(
            "conflict",
            `"${relative}" was made by someone else while this write was prepared${actual === null ? "" : ` (content_hash ${actual})`}; it was left as it is. Read it, then change it with a hash-checked edit or choose another path.`,
            { retry: "inspect_state", details: { path: relative, content_hash: actual } },
          );
        }
        if (!hasNoHardLinks(error)) throw error;
        await this.checkUnchanged(folder, name, relative, null);
        folder.recheck();
        await fs.rename(temp, folder.at(name));
      }
    } finally {
      // Whatever happened (a full disk mid-write, a conflict, the link made), the temp name goes now.
      await fs.rm(temp, { force: true });
    }
    // In place: from here on a failure leaves the new bytes, perhaps not yet durable.
    await onFile(relative, "write", () => folder.sync(), "unknown");
  }

  /**
   * Replaces a file whose bytes must still hash to `expectedHash`. The file is taken hold of, checked,
   * and renamed over only while its name still names it; after the rename, what it displaced must be
   * as checked, or it is put back and the write is a conflict that applied nothing.
   */
  private async replace(folder: OpenFolder, name: string, relative: string, bytes: Uint8Array, expectedHash: string): Promise<void> {
    const before = noteStats(this.contained, folder, name, relative);
    await refuseUnwritable(folder, name, relative, before, "write");
    // Private until it has the old file's mode: it holds the new bytes of what may be a private note.
    const { handle, path: temp } = await this.contained.createTemp(folder, { mode: 0o600, read: true });
    let renamed = false;
    try {
      await handle.writeFile(bytes);
      await keepAttributes(handle, before);
      await handle.sync();
      const ours = await handle.stat({ bigint: true });
      let held: HeldFile;
      try {
        held = await HeldFile.take(this.contained, folder, name, this.hash);
      } catch (error) {
        if (isMissing(error)) throw changedMeanwhile(relative, null);
        throw error;
      }
      try {
        const seen = held.look();
        if (!sameHash(seen.hash, expectedHash)) throw changedMeanwhile(relative, seen.hash);
        if (seen.mode !== before.mode || seen.uid !== before.uid || seen.gid !== before.gid) {
          await refuseUnwritable(folder, name, relative, seen, "write");
          await keepAttributes(handle, seen);
        }
        await this.step?.("checked", relative);
        // A folder moved out of the vault since it was opened takes no rename.
        folder.recheck();
        if (!(await held.isAt())) throw changedMeanwhile(relative, await this.currentHash(folder, name));
        await fs.rename(temp, folder.at(name));
        renamed = true;
        try {
          // Made durable first: the moment that takes lets a program that opened the old file just
          // before the rename finish its write to it, which the comparison below then sees.
          await folder.sync();
          await this.step?.("swapped", relative);
          // A program that opened the old file before the rename may have written to it up to now.
          if (held.changedSince(seen)) await this.putBack(folder, name, relative, held, ours, handle, bytes);
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
  private async putBack(folder: OpenFolder, name: string, relative: string, held: HeldFile, ours: Identity, handle: FileHandle, bytes: Uint8Array): Promise<never> {
    const current = await statOrNull(folder.at(name), false);
    if (current === null || !sameFile(current, ours)) {
      throw new ToolError(
        "conflict",
        `"${relative}" was changed by another program while this write was made, and then replaced by it once more; its newest version is in place and this write is not. Read it again and redo the change.`,
        { state: "unknown", retry: "inspect_state", details: { path: relative, content_hash: await this.currentHash(folder, name) } },
      );
    }
    await held.putBack();
    const after = await this.settled(() => readAll(handle), relative);
    const appended = after.length > bytes.length && startsWith(after, bytes);
    if (appended) await appendTo(folder, name, after.subarray(bytes.length));
    await folder.sync();
    const actual = await this.currentHash(folder, name);
    // This write's file rewritten (not appended to) in that moment: that rewrite is gone with it.
    const whole = appended || after.length === bytes.length;
    throw new ToolError(
      "conflict",
      `"${relative}" was changed by another program while this write was made: that program's version is back in place and this write was not applied (content_hash is now ${actual ?? "none"}). Read it again and redo the change.`,
      { state: whole ? "not_applied" : "unknown", retry: "inspect_state", details: { path: relative, content_hash: actual } },
    );
  }

  /** A file's bytes once they stopped changing for SETTLE_MS (or after SETTLE_ROUNDS of change). */
  private async settled(read: () => Promise<Uint8Array> | Uint8Array, relative: string): Promise<Uint8Array> {
    let last = await read();
    await this.step?.("put_back", relative);
    for (let round = 0; round < SETTLE_ROUNDS; round++) {
      await pause(SETTLE_MS);
      const now = await read();
      if (Buffer.from(now.buffer, now.byteOffset, now.length).equals(last)) break;
      last = now;
    }
    return last;
  }

  async removeFile(relative: string, expectedHash: string): Promise<void> {
    await onFile(relative, "delete", () =>
      this.vault.inFolder(relative, false, async (folder, name) => {
        await this.remove(folder, name, relative, expectedHash);
        await onFile(relative, "delete", () => folder.sync(), "unknown");
      }),
    );
  }

  /**
   * Deletes a file whose bytes must still hash to `expectedHash`. A rename takes exactly the file that
   * is there out of the way before it is checked, so a version another program saves meanwhile is
   * never removed; one that still writes to the taken file gets it back.
   */
  private async remove(folder: OpenFolder, name: string, relative: string, expectedHash: string): Promise<void> {
    const before = noteStats(this.contained, folder, name, relative);
    await refuseUnwritable(folder, name, relative, before, "delete");
    const aside = tempFileName();
    folder.recheck();
    try {
      await fs.rename(folder.at(name), folder.at(aside));
    } catch (error) {
      if (isMissing(error)) throw changedMeanwhile(relative, null);
      throw error;
    }
    let fd: number;
    try {
      fd = this.contained.openRead(folder, aside).fd;
    } catch (error) {
      await this.returnTaken(folder, aside, name, relative);
      throw error;
    }
    try {
      const seen = seenOf(fd, this.hash);
      if (!sameHash(seen.hash, expectedHash)) {
        await this.returnTaken(folder, aside, name, relative);
        throw changedMeanwhile(relative, seen.hash);
      }
      await this.step?.("checked", relative);
      await fs.unlink(folder.at(aside));
      await this.step?.("swapped", relative);
      // Written to through a handle opened before: its bytes come back, as a copy, since the file is gone.
      const now = seenOf(fd, this.hash);
      if (!sameSeen(now, seen)) {
        let restored: string;
        try {
          const bytes = await this.settled(() => readAllFd(fd), relative);
          restored = this.hash(bytes);
          await this.restoreCopy(folder, name, relative, bytes, fstatSync(fd));
        } catch (error) {
          throw fsToolError(error, relative, "delete", "unknown");
        }
        throw new ToolError(
          "conflict",
          `"${relative}" was changed by another program while it was being deleted; that version is back in place and nothing was deleted (content_hash is now ${restored}). Read it again and decide then.`,
          { state: "not_applied", retry: "inspect_state", details: { path: relative, content_hash: restored } },
        );
      }
    } finally {
      closeSync(fd);
    }
  }

  /** Puts a file taken aside back under its name, where another program may have made a new one since. */
  private async returnTaken(folder: OpenFolder, aside: string, name: string, relative: string): Promise<void> {
    try {
      folder.recheck();
      await fs.link(folder.at(aside), folder.at(name));
      await fs.rm(folder.at(aside), { force: true });
      return;
    } catch (error) {
      const code = fsErrorCode(error);
      if (code !== "EEXIST" && !hasNoHardLinks(error)) throw fsToolError(error, relative, "delete", "unknown");
    }
    // A file made at the name in that moment holds only what was written since: it goes on the end of the older one.
    const newer = await this.vault.readEntry(folder, name);
    if (newer !== null) await appendTo(folder, aside, newer);
    folder.recheck();
    await fs.rename(folder.at(aside), folder.at(name));
  }

  /** A deleted file's last bytes back under its name, with its mode (and owner, as root); a file made there since stays and gets them on its end. */
  private async restoreCopy(folder: OpenFolder, name: string, relative: string, bytes: Uint8Array, original: Attributes): Promise<void> {
    const { handle, name: temp } = await this.contained.createTemp(folder, { mode: 0o600 });
    try {
      try {
        await handle.writeFile(bytes);
        await keepAttributes(handle, original);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await this.returnTaken(folder, temp, name, relative);
    } finally {
      await fs.rm(folder.at(temp), { force: true });
    }
  }

  async renameFile(from: string, to: string): Promise<void> {
    await onFile(from, "move", () =>
      this.vault.inFolder(from, false, (sourceFolder, fromName) =>
        onFile(to, "move", () =>
          this.vault.inFolder(to, true, async (targetFolder, toName) => {
            const linked = await this.placeAt(sourceFolder, fromName, targetFolder, toName, to);
            // The file is at its new path: a failure from here on may leave it at both.
            await onFile(from, "move", async () => {
              if (linked) await this.releaseSource(sourceFolder, fromName, targetFolder, toName, from, linked);
              await targetFolder.sync();
              if (sourceFolder.real !== targetFolder.real) await sourceFolder.sync();
            }, "unknown");
          }),
        ),
      ),
    );
  }

  /**
   * Puts the file at its new name, by a hard link (the file linked, as it was then) or a rename (null);
   * refuses an existing target.
   */
  private async placeAt(sourceFolder: OpenFolder, fromName: string, targetFolder: OpenFolder, toName: string, to: string): Promise<BigIntStats | null> {
    const source = sourceFolder.at(fromName);
    const target = targetFolder.at(toName);
    sourceFolder.recheck();
    targetFolder.recheck();
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
  private async releaseSource(sourceFolder: OpenFolder, fromName: string, targetFolder: OpenFolder, toName: string, from: string, linked: Identity): Promise<void> {
    await this.step?.("checked", from);
    const aside = tempFileName();
    sourceFolder.recheck();
    try {
      await fs.rename(sourceFolder.at(fromName), sourceFolder.at(aside));
    } catch (error) {
      // Deleted meanwhile by someone else: the file lives on at its new path.
      if (isMissing(error)) return;
      throw error;
    }
    if (sameFile(await fs.lstat(sourceFolder.at(aside), { bigint: true }), linked)) {
      await fs.unlink(sourceFolder.at(aside));
      return;
    }
    await this.returnTaken(sourceFolder, aside, fromName, from);
    // The new name goes only while it still names the linked file: it was not there before.
    const undo = tempFileName();
    targetFolder.recheck();
    await fs.rename(targetFolder.at(toName), targetFolder.at(undo));
    if (sameFile(await fs.lstat(targetFolder.at(undo), { bigint: true }), linked)) await fs.unlink(targetFolder.at(undo));
    else await this.returnTaken(targetFolder, undo, toName, from);
    throw new ToolError(
      "conflict",
      `"${from}" was replaced by another program while it was being moved; that version stays at "${from}" and nothing was moved. Read it again, then move it.`,
      { state: "not_applied", retry: "inspect_state", details: { path: from } },
    );
  }

  async writeHidden(relative: string, bytes: Uint8Array, copyOf?: string): Promise<boolean> {
    return onFile(relative, "write", () => this.writeHiddenFile(relative, bytes, copyOf));
  }

  /** The mode and owner of a vault file, reached through its checked folder; null when it cannot be read. */
  private async attributesOf(relative: string): Promise<Attributes | null> {
    try {
      return await this.vault.inFolder(relative, false, (folder, name) => Promise.resolve(this.contained.statEntry(folder, name)));
    } catch {
      return null;
    }
  }

  private async writeHiddenFile(relative: string, bytes: Uint8Array, copyOf: string | undefined): Promise<boolean> {
    // A copy of a private note stays private: the note's mode (and owner, as root), not the default.
    const original = copyOf === undefined ? null : await this.attributesOf(copyOf);
    return this.vault.inFolder(relative, true, async (folder, name) => {
      let created = false;
      try {
        const handle = await this.contained.createNew(folder, name, { mode: original ? 0o600 : 0o666 });
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
        if (!created && errorCode(error) === "EEXIST") return false;
        // A copy cut short (a full disk) is no copy: it would pass for a trashed empty or shortened note.
        if (created) await fs.rm(folder.at(name), { force: true });
        throw error;
      }
    });
  }
  async readHidden(relative: string): Promise<Uint8Array | null> {
    return this.vault.readIfPresent(relative);
  }

  async listHidden(folder: string): Promise<FileStat[]> {
    let open: OpenFolder;
    try {
      open = this.vault.contained.openFolder(this.vault.absolute(folder));
    } catch {
      return [];
    }
    try {
      let names: string[];
      try {
        names = await fs.readdir(open.path);
      } catch {
        return [];
      }
      const out: FileStat[] = [];
      for (const name of names) {
        try {
          const stats = await fs.lstat(open.at(name));
          if (stats.isFile()) out.push({ path: `${folder}/${name}`, size: stats.size, mtime: Math.floor(stats.mtimeMs), ctime: Math.floor(stats.ctimeMs) });
        } catch {
          // Purged meanwhile.
        }
      }
      return out.sort((a, b) => (a.path < b.path ? -1 : 1));
    } finally {
      open.close();
    }
  }

  async removeHidden(relative: string): Promise<void> {
    await onFile(relative, "delete", async () => {
      try {
        await this.vault.inFolder(relative, false, (folder, name) => fs.rm(folder.at(name), { force: true }));
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    });
  }

  /** Leftovers of writes cut short by a crash; they never hold the only copy of anything. */
  async removeStaleTempFiles(): Promise<number> {
    let removed = 0;
    const contained = this.vault.contained;
    const walk = async (folder: OpenFolder): Promise<void> => {
      let entries;
      try {
        entries = await fs.readdir(folder.path, { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries) {
        if (entry.isDirectory() && !entry.name.startsWith(".")) {
          let child: OpenFolder;
          try {
            child = contained.openChild(folder, entry.name);
          } catch {
            continue;
          }
          try {
            await walk(child);
          } finally {
            child.close();
          }
        } else if (entry.isFile() && entry.name.startsWith(TEMP_FILE_PREFIX)) {
          await fs.rm(folder.at(entry.name), { force: true });
          removed += 1;
        }
      }
    };
    let root: OpenFolder;
    try {
      root = contained.openFolder(this.vault.root);
    } catch {
      return 0;
    }
    try {
      await walk(root);
    } finally {
      root.close();
    }
    return removed;
  }
}
