// Atomic writes on disk: a temp file in the same folder, fsync, rename, then fsync of the folder, so a
// crash at any point leaves the old bytes or the new ones. The write path holds the vault's lock; the
// hash is checked once more right before the rename to catch an editor that saved in between.
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { ToolError } from "../../core/errors";
import { contentHash, sameHash } from "../../core/notes/hash";
import type { FileStat, Hasher, WritePort } from "../../core/ports";
import { TEMP_FILE_PREFIX, isMissing, type FsVault } from "./fs-vault";

async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
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
    await fs.mkdir(dir, { recursive: true });
    // Short and of fixed length (23 bytes), so a file name up to the 255-byte limit still gets a temp
    // file beside it; the prefix is all the startup cleanup looks for.
    const temp = path.join(dir, `${TEMP_FILE_PREFIX}${randomBytes(8).toString("hex")}`);
    const handle = await fs.open(temp, "wx");
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await beforeRename();
      await fs.rename(temp, absolute);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
    await syncDirectory(dir);
  }

  async writeFile(relative: string, bytes: Uint8Array, expectedHash: string | null): Promise<FileStat> {
    const absolute = this.vault.absolute(relative);
    await this.atomicWrite(absolute, bytes, () => this.checkUnchanged(absolute, relative, expectedHash));
    const stat = await this.vault.stat(relative);
    if (!stat) throw new Error(`${relative} vanished right after it was written`);
    return stat;
  }

  async removeFile(relative: string, expectedHash: string): Promise<void> {
    const absolute = this.vault.absolute(relative);
    await this.checkUnchanged(absolute, relative, expectedHash);
    await fs.rm(absolute);
    await syncDirectory(path.dirname(absolute));
  }

  async renameFile(from: string, to: string): Promise<void> {
    const source = this.vault.absolute(from);
    const target = this.vault.absolute(to);
    await fs.mkdir(path.dirname(target), { recursive: true });
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
    if (linked) await fs.rm(source);
    else {
      if (await fs.lstat(target).then(() => true, () => false)) throw new ToolError("conflict", `"${to}" already exists; nothing was moved.`, { state: "not_applied" });
      await fs.rename(source, target);
    }
    await syncDirectory(path.dirname(target));
    if (path.dirname(source) !== path.dirname(target)) await syncDirectory(path.dirname(source));
  }

  async writeHidden(relative: string, bytes: Uint8Array): Promise<boolean> {
    const absolute = this.vault.absolute(relative);
    await fs.mkdir(path.dirname(absolute), { recursive: true });
    try {
      const handle = await fs.open(absolute, "wx");
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === "EEXIST") return false;
      throw error;
    }
  }

  async readHidden(relative: string): Promise<Uint8Array | null> {
    try {
      return new Uint8Array(await fs.readFile(this.vault.absolute(relative)));
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
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
    await fs.rm(this.vault.absolute(relative), { force: true });
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
