// Atomic writes on disk: a temp file in the same folder, fsync, rename, then fsync of the folder, so a
// crash at any point leaves the old bytes or the new ones. The write path holds the vault's lock; the
// hash is checked once more right before the rename to catch an editor that saved in between.
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { ToolError, type ErrorState } from "../../core/errors";
import { contentHash, sameHash } from "../../core/notes/hash";
import type { FileStat, Hasher, WritePort } from "../../core/ports";
import { fsErrorCode, fsToolError, type FsAction } from "./fs-errors";
import { TEMP_FILE_PREFIX, isMissing, type FsVault } from "./fs-vault";

async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
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

export class FsWriter implements WritePort {
  private readonly vault: FsVault;
  private readonly hasher: Hasher;

  constructor(vault: FsVault, hasher: Hasher) {
    this.vault = vault;
    this.hasher = hasher;
  }

  private async currentHash(absolute: string): Promise<string | null> {
    try {
      return contentHash(new Uint8Array(await fs.readFile(absolute)), (b) => this.hasher.sha256Hex(b));
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  private async checkUnchanged(absolute: string, relative: string, expectedHash: string | null): Promise<void> {
    const actual = await this.currentHash(absolute);
    const unchanged = expectedHash === null ? actual === null : actual !== null && sameHash(actual, expectedHash);
    if (!unchanged) {
      throw new ToolError(
        "conflict",
        `"${relative}" was changed by someone else while this write was prepared (content_hash is now ${actual ?? "none: the file is gone"}). Read it again and redo the change.`,
        { retry: "inspect_state", details: { path: relative, content_hash: actual } },
      );
    }
  }

  private async atomicWrite(absolute: string, bytes: Uint8Array, beforeRename: () => Promise<void>): Promise<void> {
    const dir = path.dirname(absolute);
    await makeFolders(this.vault, dir);
    // Short and of fixed length (23 bytes), so a file name up to the 255-byte limit still gets a temp
    // file beside it; the prefix is all the startup cleanup looks for.
    const temp = path.join(dir, `${TEMP_FILE_PREFIX}${randomBytes(8).toString("hex")}`);
    const handle = await fs.open(temp, "wx");
    try {
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await beforeRename();
      await fs.rename(temp, absolute);
    } catch (error) {
      // Whatever failed (a full disk mid-write, a conflict), the temp goes now, not at the next start.
      await fs.rm(temp, { force: true });
      throw error;
    }
  }

  async writeFile(relative: string, bytes: Uint8Array, expectedHash: string | null): Promise<FileStat> {
    const absolute = this.vault.absolute(relative);
    await onFile(relative, "write", () => this.atomicWrite(absolute, bytes, () => this.checkUnchanged(absolute, relative, expectedHash)));
    // Renamed into place: from here on a failure leaves the new bytes, perhaps not yet durable.
    await onFile(relative, "write", () => syncDirectory(path.dirname(absolute)), "unknown");
    const stat = await this.vault.stat(relative);
    if (!stat) throw new ToolError("internal", `"${relative}" vanished right after it was written; another program may have moved it. Call note_list to look for it.`, { state: "unknown", retry: "inspect_state" });
    return stat;
  }

  async removeFile(relative: string, expectedHash: string): Promise<void> {
    const absolute = this.vault.absolute(relative);
    await onFile(relative, "delete", async () => {
      await this.checkUnchanged(absolute, relative, expectedHash);
      await fs.rm(absolute);
    });
    await onFile(relative, "delete", () => syncDirectory(path.dirname(absolute)), "unknown");
  }

  async renameFile(from: string, to: string): Promise<void> {
    const source = this.vault.absolute(from);
    const target = this.vault.absolute(to);
    const linked = await onFile(to, "move", () => this.placeAt(source, target, to));
    // The file is at its new path: a failure from here on may leave it at both.
    await onFile(from, "move", async () => {
      if (linked) await fs.rm(source);
      await syncDirectory(path.dirname(target));
      if (path.dirname(source) !== path.dirname(target)) await syncDirectory(path.dirname(source));
    }, "unknown");
  }

  /** Puts the file at its new path, by a hard link (true) or a rename; refuses an existing target. */
  private async placeAt(source: string, target: string, to: string): Promise<boolean> {
    await makeFolders(this.vault, path.dirname(target));
    // link() refuses an existing target atomically, where rename() would replace it.
    let linked = true;
    try {
      await fs.link(source, target);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "EEXIST") throw new ToolError("conflict", `"${to}" already exists; nothing was moved.`, { state: "not_applied" });
      // File systems without hard links (FAT, some network shares): check, then rename.
      if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EXDEV" && code !== "ENOSYS") throw error;
      linked = false;
    }
    if (!linked) {
      if (await fs.lstat(target).then(() => true, () => false)) throw new ToolError("conflict", `"${to}" already exists; nothing was moved.`, { state: "not_applied" });
      await fs.rename(source, target);
    }
    return linked;
  }

  async writeHidden(relative: string, bytes: Uint8Array): Promise<boolean> {
    return onFile(relative, "write", () => this.writeHiddenFile(relative, bytes));
  }

  private async writeHiddenFile(relative: string, bytes: Uint8Array): Promise<boolean> {
    const absolute = this.vault.absolute(relative);
    await makeFolders(this.vault, path.dirname(absolute));
    let created = false;
    try {
      const handle = await fs.open(absolute, "wx");
      created = true;
      try {
        await handle.writeFile(bytes);
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
