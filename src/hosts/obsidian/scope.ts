// A vault in the MCP sense is a folder of the Obsidian vault (SPEC §3): the whole vault for `default`,
// a subfolder for the others. The engine sees paths relative to that folder.
import { normalizePath } from "obsidian";

export class FolderScope {
  /** "" for the whole vault, else the folder followed by "/". */
  readonly prefix: string;

  constructor(folder: string) {
    const normalized = folder.trim() === "" ? "/" : normalizePath(folder);
    this.prefix = normalized === "/" ? "" : `${normalized}/`;
  }

  get folder(): string {
    return this.prefix === "" ? "" : this.prefix.slice(0, -1);
  }

  /** The Obsidian vault path of a scope-relative path. */
  toVault(path: string): string {
    return this.prefix + path;
  }

  contains(vaultPath: string): boolean {
    return this.prefix === "" || vaultPath.startsWith(this.prefix);
  }

  /** The scope-relative path of an Obsidian vault path, or null when it lies outside the scope. */
  fromVault(vaultPath: string): string | null {
    return this.contains(vaultPath) ? vaultPath.slice(this.prefix.length) : null;
  }
}
