// One process at a time per vault's data folder. Two servers (or a server and `reindex`) over the same
// folder would each take the other's interrupted vault-wide change for a crash's and undo it while it
// runs, rewrite each other's crash records of writes not yet committed, move the history's branch
// over each other's commits and overwrite each other's index. The lock file names the process that
// holds it; one whose process is gone (a crash, a kill) is taken over.
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";

/** Not `*.lock`: that is the name of a temp file in git and here (durable-fs.ts). */
export const LOCK_FILE = "server-lock.json";

interface LockRecord {
  pid: number;
  host: string;
  since: string;
}

export function codeOf(error: unknown): unknown {
  return typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
}

function parse(text: string): LockRecord | null {
  try {
    const value = JSON.parse(text) as Partial<LockRecord>;
    return typeof value.pid === "number" && typeof value.host === "string" ? { pid: value.pid, host: value.host, since: String(value.since ?? "") } : null;
  } catch {
    return null;
  }
}

/** Whether a process of this machine with that id runs (one we may not signal runs too). */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return codeOf(error) === "EPERM";
  }
}

export class DataFolderInUse extends Error {
  constructor(vault: string, otherMachine: boolean) {
    super(
      otherMachine
        ? `vault "${vault}" is held by a secondbrain-mcp process on another machine that shares this data folder. Stop that one first, or give this one its own --data folder; if none runs there any more, delete ${LOCK_FILE} in the vault's data folder.`
        : `vault "${vault}" is already served by another secondbrain-mcp process with the same data folder (serve or reindex). Stop that one first, or give this one its own --data folder.`,
    );
    this.name = "DataFolderInUse";
  }
}

export class DataFolderLock {
  private constructor(
    private readonly file: string,
    /** What this process wrote; null when it holds no lock (see take). */
    private readonly text: string | null,
  ) {}

  /**
   * Takes the folder's lock, or throws DataFolderInUse while a live process holds it. On a full disk
   * the server still starts, to serve reads, without the lock: `onUnlocked` says so.
   */
  static async take(folder: string, vault: string, onUnlocked?: (reason: string) => void): Promise<DataFolderLock> {
    await fs.mkdir(folder, { recursive: true });
    const file = path.join(folder, LOCK_FILE);
    const text = JSON.stringify({ pid: process.pid, host: os.hostname(), since: new Date().toISOString() } satisfies LockRecord);
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const handle = await fs.open(file, "wx", 0o600);
        try {
          await handle.writeFile(text, "utf8");
        } catch (error) {
          await handle.close();
          await fs.unlink(file).catch(() => undefined);
          throw error;
        }
        await handle.close();
        return new DataFolderLock(file, text);
      } catch (error) {
        const code = codeOf(error);
        if ((code === "ENOSPC" || code === "EDQUOT") && onUnlocked) {
          onUnlocked("no space left on the device that holds the data folder");
          return new DataFolderLock(file, null);
        }
        if (code !== "EEXIST") throw error;
      }
      let held: string;
      try {
        held = await fs.readFile(file, "utf8");
      } catch (error) {
        // Let go between the two calls: try again.
        if (codeOf(error) === "ENOENT") continue;
        throw error;
      }
      const record = parse(held);
      if (record && record.host !== os.hostname()) throw new DataFolderInUse(vault, true);
      if (record && record.pid !== process.pid && processRunning(record.pid)) throw new DataFolderInUse(vault, false);
      // Left by a process that is gone, or cut short by one: taken over, unless another start took it meanwhile.
      if ((await fs.readFile(file, "utf8").catch(() => null)) === held) await fs.unlink(file).catch(() => undefined);
    }
    throw new DataFolderInUse(vault, false);
  }

  /** Whether this process holds the folder (false when it started without the lock on a full disk). */
  get held(): boolean {
    return this.text !== null;
  }

  /** Lets the lock go, unless another process took it over meanwhile. */
  async release(): Promise<void> {
    if (this.text === null) return;
    const held = await fs.readFile(this.file, "utf8").catch(() => null);
    if (held === this.text) await fs.unlink(this.file).catch(() => undefined);
  }
}
