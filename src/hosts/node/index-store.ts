// Index snapshots live in a data folder outside the vault, written atomically so that a crash leaves
// either the old snapshot or the new one, never half of one.
import { closeSync, openSync, promises as fs, readSync } from "node:fs";
import path from "node:path";
import { isNoSpace, noSpaceText } from "../../core/errors";
import type { IndexStore, PinnedFile } from "../../core/ports";

const SUFFIX = ".snapshot";
/** Parts handed to one writev: within the usual IOV_MAX of 1024. */
const WRITE_BATCH = 1024;

export class FileIndexStore implements IndexStore {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  private file(key: string): string {
    if (!/^[a-z0-9_-]+$/i.test(key)) throw new Error(`invalid index key ${key}`);
    return path.join(this.dir, key + SUFFIX);
  }

  async load(key: string): Promise<Uint8Array | null> {
    try {
      const buffer = await fs.readFile(this.file(key));
      // A view, not a copy: shard files are large, and a copy doubled the memory a start goes through.
      // A buffer sharing a pooled ArrayBuffer is copied, so the result never aliases other data.
      if (buffer.byteOffset === 0 && buffer.byteLength === buffer.buffer.byteLength) return new Uint8Array(buffer.buffer);
      return new Uint8Array(buffer);
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return null;
      throw error;
    }
  }

  async loadRange(key: string, start: number, end: number): Promise<Uint8Array | null> {
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(this.file(key), "r");
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return null;
      throw error;
    }
    try {
      const size = (await handle.stat()).size;
      const bytes = new Uint8Array(Math.max(0, Math.min(end, size) - start));
      let filled = 0;
      while (filled < bytes.length) {
        const { bytesRead } = await handle.read(bytes, filled, bytes.length - filled, start + filled);
        if (bytesRead === 0) return bytes.subarray(0, filled);
        filled += bytesRead;
      }
      return bytes;
    } finally {
      await handle.close();
    }
  }

  /** The open descriptor reads the file as it was pinned, also after a save renames a new one over it. */
  pin(key: string): PinnedFile | null {
    let descriptor: number | null;
    try {
      descriptor = openSync(this.file(key), "r");
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return null;
      throw error;
    }
    return {
      read: (start, length) => {
        if (descriptor === null || start < 0 || length < 0) return null;
        const bytes = new Uint8Array(length);
        let filled = 0;
        try {
          while (filled < length) {
            const read = readSync(descriptor, bytes, filled, length - filled, start + filled);
            if (read === 0) return null;
            filled += read;
          }
        } catch {
          return null;
        }
        return bytes;
      },
      release: () => {
        if (descriptor === null) return;
        closeSync(descriptor);
        descriptor = null;
      },
    };
  }

  async save(key: string, data: Uint8Array | readonly Uint8Array[]): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
    const target = this.file(key);
    const temp = `${target}.${process.pid}.${Date.now()}.tmp`;
    const handle = await fs.open(temp, "w");
    try {
      try {
        const parts = data instanceof Uint8Array ? [data] : data;
        // A base comes in tens of thousands of small parts (a filter or packed note each): written in
        // batches, never joined into one file-sized buffer.
        for (let at = 0; at < parts.length; at += WRITE_BATCH) await handle.writev(parts.slice(at, at + WRITE_BATCH));
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.rename(temp, target);
    } catch (error) {
      // A full disk stops the write partway: the part written is of no use to anyone.
      await fs.rm(temp, { force: true });
      throw isNoSpace(error) ? new Error(`${noSpaceText("data folder")}; the previous index snapshot was kept`) : error;
    }
  }

  async remove(key: string): Promise<void> {
    await fs.rm(this.file(key), { force: true });
  }

  async keys(): Promise<string[]> {
    try {
      const names = await fs.readdir(this.dir);
      return names.filter((name) => name.endsWith(SUFFIX)).map((name) => name.slice(0, -SUFFIX.length));
    } catch {
      return [];
    }
  }
}
