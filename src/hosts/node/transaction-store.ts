// The journals of vault-wide changes in a folder outside the vault (the data folder headless, the
// plugin folder in Obsidian). A journal must be complete on disk before the first note is touched, so
// each save goes to a temp file that is fsynced, renamed over the name, and the folder fsynced.
// Several processes may keep one folder (`serve --stdio`, one per client): a journal's file names the
// process that writes it (`<name>.p<pid>.journal`), and one whose process still runs is another's
// change in progress, never an interrupted one to complete or undo.
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import type { TransactionStore } from "../../core/ports";
import { processRunning } from "./data-lock";

const NAME = /^[a-z0-9-]+$/;
const SUFFIX = ".journal";
const TEMP_SUFFIX = ".tmp";
/** `<name>.journal` (no owner, as older versions wrote) or `<name>.p<pid>.journal`. */
const JOURNAL_FILE = /^([a-z0-9-]+)(?:\.p(\d+))?\.journal$/;

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
    return path.join(this.dir, `${name}.p${process.pid}${SUFFIX}`);
  }

  /** The files of the journal `name`, of any process. */
  private async filesOf(name: string): Promise<string[]> {
    if (!NAME.test(name)) throw new Error(`invalid journal name ${name}`);
    const names = await fs.readdir(this.dir).catch((error: unknown) => {
      if ((error as { code?: string }).code === "ENOENT") return [] as string[];
      throw error;
    });
    return names.filter((entry) => JOURNAL_FILE.exec(entry)?.[1] === name).map((entry) => path.join(this.dir, entry));
  }

  async save(name: string, bytes: Uint8Array): Promise<void> {
    const target = this.file(name);
    // A journal this process took over from one that is gone (recovery) is carried on under its own name.
    const others = (await this.filesOf(name)).filter((file) => file !== target);
    await fs.mkdir(this.dir, { recursive: true });
    const temp = path.join(this.dir, `${name}.p${process.pid}.${randomBytes(4).toString("hex")}${TEMP_SUFFIX}`);
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
    for (const other of others) await fs.rm(other, { force: true });
  }

  async load(name: string): Promise<Uint8Array | null> {
    const own = this.file(name);
    // A crash between a save under this process's name and the removal of the one it carried on leaves two: the newer counts.
    const files = await Promise.all((await this.filesOf(name)).filter((entry) => entry !== own).map(async (file) => ({ file, at: (await fs.stat(file).catch(() => null))?.mtimeMs ?? 0 })));
    files.sort((a, b) => b.at - a.at);
    for (const file of [own, ...files.map((entry) => entry.file)]) {
      try {
        return new Uint8Array(await fs.readFile(file));
      } catch (error) {
        if ((error as { code?: string }).code !== "ENOENT") throw error;
      }
    }
    return null;
  }

  async remove(name: string): Promise<void> {
    for (const file of await this.filesOf(name)) await fs.rm(file, { force: true });
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
    for (const name of names.filter((entry) => entry.endsWith(TEMP_SUFFIX))) {
      // Another process's save in progress stays.
      const owner = /\.p(\d+)\.[0-9a-f]+\.tmp$/.exec(name)?.[1];
      if (owner !== undefined && Number(owner) !== process.pid && processRunning(Number(owner))) continue;
      await fs.rm(path.join(this.dir, name), { force: true });
    }
    const found = new Set<string>();
    for (const entry of names) {
      const match = JOURNAL_FILE.exec(entry);
      if (!match) continue;
      const owner = match[2] === undefined ? null : Number(match[2]);
      // Another process's change in progress: not this one's to complete or undo.
      if (owner !== null && owner !== process.pid && processRunning(owner)) continue;
      found.add(match[1]!);
    }
    return [...found];
  }
}
