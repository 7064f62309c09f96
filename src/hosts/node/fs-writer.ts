// Atomic writes on disk: a temp file in the same folder, fsync, rename, then fsync of the folder, so a
// crash at any point leaves the old bytes or the new ones. The write path holds the vault's lock; the
// hash is checked once more right before the rename to catch an editor that saved in between.
// Every step works in the file's folder as the vault opened and checked it (contained-fs.ts): the temp
// file is made there and renamed there, so a symbolic link swapped in on the way leads no write out of
// the vault.
import { promises as fs } from "node:fs";
import { ToolError, type ErrorState } from "../../core/errors";
import { contentHash, sameHash } from "../../core/notes/hash";
import type { FileStat, Hasher, WritePort } from "../../core/ports";
import { errorCode, type OpenFolder } from "./contained-fs";
import { fsToolError, type FsAction } from "./fs-errors";
import { TEMP_FILE_PREFIX, isMissing, type FsVault } from "./fs-vault";

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

  private async currentHash(folder: OpenFolder, name: string): Promise<string | null> {
    const bytes = await this.vault.readEntry(folder, name);
    return bytes === null ? null : contentHash(bytes, (b) => this.hasher.sha256Hex(b));
  }

  private async checkUnchanged(folder: OpenFolder, name: string, relative: string, expectedHash: string | null): Promise<void> {
    const actual = await this.currentHash(folder, name);
    const unchanged = expectedHash === null ? actual === null : actual !== null && sameHash(actual, expectedHash);
    if (!unchanged) {
      throw new ToolError(
        "conflict",
        `"${relative}" was changed by someone else while this write was prepared (content_hash is now ${actual ?? "none: the file is gone"}). Read it again and redo the change.`,
        { retry: "inspect_state", details: { path: relative, content_hash: actual } },
      );
    }
  }

  private async atomicWrite(folder: OpenFolder, name: string, bytes: Uint8Array, beforeRename: () => Promise<void>): Promise<void> {
    const { handle, path: temp } = await this.vault.contained.createTemp(folder);
    try {
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await beforeRename();
      // A folder moved out of the vault since it was opened takes no rename.
      folder.recheck();
      await fs.rename(temp, folder.at(name));
    } catch (error) {
      // Whatever failed (a full disk mid-write, a conflict), the temp goes now, not at the next start.
      await fs.rm(temp, { force: true });
      throw error;
    }
  }

  async writeFile(relative: string, bytes: Uint8Array, expectedHash: string | null): Promise<FileStat> {
    const stat = await onFile(relative, "write", () =>
      this.vault.inFolder(relative, true, async (folder, name) => {
        await this.atomicWrite(folder, name, bytes, () => this.checkUnchanged(folder, name, relative, expectedHash));
        // Renamed into place: from here on a failure leaves the new bytes, perhaps not yet durable.
        await onFile(relative, "write", () => folder.sync(), "unknown");
        // The file as written, in the folder it was written to, not wherever its path leads by now.
        return this.vault.statIn(folder, name, relative);
      }),
    );
    if (!stat) throw new ToolError("internal", `"${relative}" vanished right after it was written; another program may have moved it. Call note_list to look for it.`, { state: "unknown", retry: "inspect_state" });
    return stat;
  }

  async removeFile(relative: string, expectedHash: string): Promise<void> {
    await onFile(relative, "delete", () =>
      this.vault.inFolder(relative, false, async (folder, name) => {
        await this.checkUnchanged(folder, name, relative, expectedHash);
        folder.recheck();
        await fs.rm(folder.at(name));
        await onFile(relative, "delete", () => folder.sync(), "unknown");
      }),
    );
  }

  async renameFile(from: string, to: string): Promise<void> {
    await onFile(from, "move", () =>
      this.vault.inFolder(from, false, (sourceFolder, fromName) =>
        onFile(to, "move", () =>
          this.vault.inFolder(to, true, async (targetFolder, toName) => {
            const source = sourceFolder.at(fromName);
            const linked = await this.placeAt(source, targetFolder, toName, to);
            // The file is at its new path: a failure from here on may leave it at both.
            await onFile(from, "move", async () => {
              if (linked) await fs.rm(source);
              await targetFolder.sync();
              if (sourceFolder.real !== targetFolder.real) await sourceFolder.sync();
            }, "unknown");
          }),
        ),
      ),
    );
  }

  /** Puts the file at its new path, by a hard link (true) or a rename; refuses an existing target. */
  private async placeAt(source: string, folder: OpenFolder, name: string, to: string): Promise<boolean> {
    const target = folder.at(name);
    folder.recheck();
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
    return this.vault.inFolder(relative, true, async (folder, name) => {
      let created = false;
      try {
        const handle = await this.vault.contained.createNew(folder, name);
        created = true;
        try {
          await handle.writeFile(bytes);
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
