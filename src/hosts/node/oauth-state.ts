// The OAuth state file in the data folder: written to a temp file, synced and renamed over the old
// one, so a crash leaves the old state or the new one. It holds hashes only, yet is private to the
// server's user.
import { promises as fs } from "node:fs";
import path from "node:path";
import type { OAuthPersistence } from "../../auth/oauth/ports";

export const OAUTH_STATE_FILE = "oauth-state.json";

export class FileOAuthPersistence implements OAuthPersistence {
  readonly file: string;

  constructor(dataDir: string) {
    this.file = path.join(dataDir, OAUTH_STATE_FILE);
  }

  async load(): Promise<string | null> {
    try {
      return await fs.readFile(this.file, "utf8");
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return null;
      throw error;
    }
  }

  async save(text: string): Promise<void> {
    const dir = path.dirname(this.file);
    await fs.mkdir(dir, { recursive: true });
    const temp = `${this.file}.${process.pid}.tmp`;
    const handle = await fs.open(temp, "w", 0o600);
    try {
      await handle.writeFile(text, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, this.file);
    const folder = await fs.open(dir, "r");
    try {
      await folder.sync();
    } catch {
      // Some file systems cannot sync a folder; the rename itself is still atomic.
    } finally {
      await folder.close();
    }
  }
}
