// The engine's view of one scope of the Obsidian vault. Reads take the exact bytes (readBinary), so
// content hashes, byte order marks and line endings are the same as on disk and as in the Node host.
import { promises as fs } from "node:fs";
import path from "node:path";
import { FileSystemAdapter, type TFile, type App } from "obsidian";
import { ToolError } from "../../core/errors";
import type { FileStat, VaultPort } from "../../core/ports";
import type { FolderScope } from "./scope";

function hasHiddenSegment(path: string): boolean {
  return path.split("/").some((segment) => segment.startsWith("."));
}

export function statOf(file: TFile, relative: string): FileStat {
  return { path: relative, size: file.stat.size, mtime: file.stat.mtime, ctime: file.stat.ctime };
}

export class ObsidianVaultPort implements VaultPort {
  private readonly app: App;
  readonly scope: FolderScope;

  constructor(app: App, scope: FolderScope) {
    this.app = app;
    this.scope = scope;
  }

  /** The TFile behind a scope-relative path, or null. */
  file(relative: string): TFile | null {
    return this.app.vault.getFileByPath(this.scope.toVault(relative));
  }

  listFiles(): Promise<FileStat[]> {
    const stats: FileStat[] = [];
    for (const file of this.app.vault.getFiles()) {
      const relative = this.scope.fromVault(file.path);
      if (relative === null || hasHiddenSegment(relative)) continue;
      stats.push(statOf(file, relative));
    }
    return Promise.resolve(stats);
  }

  stat(relative: string): Promise<FileStat | null> {
    const file = this.file(relative);
    return Promise.resolve(file ? statOf(file, relative) : null);
  }

  async readBytes(relative: string): Promise<Uint8Array> {
    const file = this.file(relative);
    if (!file) throw new ToolError("not_found", `File "${relative}" does not exist. Call note_list or note_search to find the right path.`, { details: { path: relative } });
    return new Uint8Array(await this.app.vault.readBinary(file));
  }

  async isContained(relative: string): Promise<boolean> {
    const adapter = this.app.vault.adapter;
    if (!(adapter instanceof FileSystemAdapter)) return true;
    const root = await fs.realpath(adapter.getBasePath());
    let target = path.join(adapter.getBasePath(), this.scope.toVault(relative));
    // A path that does not exist yet is judged by its nearest existing folder.
    for (;;) {
      try {
        target = await fs.realpath(target);
        break;
      } catch {
        const parent = path.dirname(target);
        if (parent === target) return false;
        target = parent;
      }
    }
    const inside = path.relative(root, target);
    return inside === "" || (!inside.startsWith("..") && !path.isAbsolute(inside));
  }

  async readOptionalText(relative: string): Promise<string | null> {
    const file = this.file(relative);
    return file ? this.app.vault.cachedRead(file) : null;
  }

  async readAppConfig(name: string): Promise<string | null> {
    const configPath = `${this.app.vault.configDir}/${name}`;
    const adapter = this.app.vault.adapter;
    return (await adapter.exists(configPath)) ? adapter.read(configPath) : null;
  }
}
