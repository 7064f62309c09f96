// The journals of vault-wide changes in a folder outside the vault (the data folder headless, the
// plugin folder in Obsidian). A journal must be complete on disk before the first note is touched, so
// each save goes to a temp file that is fsynced, renamed over the name, and the folder fsynced.
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import type { TransactionStore } from "../../core/ports";

const NAME = /^[a-z0-9-]+$/;
const SUFFIX = ".journal";
const TEMP_SUFFIX = ".tmp";

async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export class FileTransactionStore implements TransactionStore {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  private file(name: string): string {
    if (!NAME.test(name)) throw new Error(`invalid journal name ${name}`);
    return path.join(this.dir, name + SUFFIX);
  }

  async save(name: string, bytes: Uint8Array): Promise<void> {
    const target = this.file(name);
    await fs.mkdir(this.dir, { recursive: true });
    const temp = path.join(this.dir, `${name}.${randomBytes(4).toString("hex")}${TEMP_SUFFIX}`);
    try {
      const handle = await fs.open(temp, "wx");
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.rename(temp, target);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
    await syncDirectory(this.dir);
  }

  async load(name: string): Promise<Uint8Array | null> {
    try {
      return new Uint8Array(await fs.readFile(this.file(name)));
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return null;
      throw error;
    }
  }

  async remove(name: string): Promise<void> {
    await fs.rm(this.file(name), { force: true });
  }

  /** Journal names; temp files of saves a crash cut short are removed on the way (they never count). */
  async list(): Promise<string[]> {
    let names: string[];
    try {
      names = await fs.readdir(this.dir);
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return [];
      throw error;
    }
    for (const name of names.filter((entry) => entry.endsWith(TEMP_SUFFIX))) await fs.rm(path.join(this.dir, name), { force: true });
    return names.filter((name) => name.endsWith(SUFFIX)).map((name) => name.slice(0, -SUFFIX.length));
  }
}
