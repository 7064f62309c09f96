// Writes into the Obsidian vault. Every note write goes through Vault.process, whose callback runs
// synchronously on the current text: the hash is checked again inside it, so no editor save can slip
// between the write path's check and the write. Trash copies are the server's own hidden files and
// go through the adapter, as the Vault API does not reach dot-folders.
import { TFile, normalizePath, type App } from "obsidian";
import { isNoSpace, noSpaceError, ToolError } from "../../core/errors";
import { contentHash, sameHash } from "../../core/notes/hash";
import type { FileStat, Hasher, WritePort } from "../../core/ports";
import type { MetadataWaiter } from "./metadata-waiter";
import type { FolderScope } from "./scope";
import { statOf } from "./vault-port";

const TEXT_EXTENSIONS = new Set(["md", "canvas"]);
const BOM = "\uFEFF";
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

function conflict(relative: string, actual: string | null): ToolError {
  return new ToolError(
    "conflict",
    `"${relative}" was changed by someone else while this write was prepared (content_hash is now ${actual ?? "none: the file is gone"}). Read it again and redo the change.`,
    { retry: "inspect_state", details: { path: relative, content_hash: actual } },
  );
}

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}

export interface ObsidianWriterOptions {
  app: App;
  scope: FolderScope;
  hasher: Hasher;
  metadata: MetadataWaiter;
}

export class ObsidianWriter implements WritePort {
  /** FileManager.renameFile updates links as the user's settings say. */
  readonly renameRewritesLinks = true;
  private readonly app: App;
  private readonly scope: FolderScope;
  private readonly hasher: Hasher;
  private readonly metadata: MetadataWaiter;

  constructor(options: ObsidianWriterOptions) {
    this.app = options.app;
    this.scope = options.scope;
    this.hasher = options.hasher;
    this.metadata = options.metadata;
  }

  private hash(bytes: Uint8Array): string {
    return contentHash(bytes, (b) => this.hasher.sha256Hex(b));
  }

  /**
   * Whether the text Vault.process hands over is the file whose hash the write path saw. The text may
   * come without the byte order mark that the bytes (and so the hash) include.
   */
  private textMatches(data: string, expectedHash: string): boolean {
    if (sameHash(this.hash(encoder.encode(data)), expectedHash)) return true;
    return !data.startsWith(BOM) && sameHash(this.hash(encoder.encode(BOM + data)), expectedHash);
  }

  private async currentHash(file: TFile): Promise<string> {
    return this.hash(new Uint8Array(await this.app.vault.readBinary(file)));
  }

  private async ensureFolder(folder: string): Promise<void> {
    if (folder === "" || this.app.vault.getFolderByPath(folder)) return;
    await this.ensureFolder(parentOf(folder));
    try {
      await this.app.vault.createFolder(folder);
    } catch (error) {
      // Created meanwhile by someone else: fine, as long as it is a folder now.
      if (!this.app.vault.getFolderByPath(folder)) throw error;
    }
  }

  async writeFile(relative: string, bytes: Uint8Array, expectedHash: string | null): Promise<FileStat> {
    const path = normalizePath(this.scope.toVault(relative));
    const extension = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
    const isText = TEXT_EXTENSIONS.has(extension);
    const existing = this.app.vault.getAbstractFileByPath(path);
    if (expectedHash === null && existing) {
      throw conflict(relative, existing instanceof TFile ? await this.currentHash(existing) : null);
    }
    if (expectedHash !== null && !(existing instanceof TFile)) throw conflict(relative, null);

    const pending = isText && extension === "md" ? this.metadata.expect(path, decoder.decode(bytes)) : null;
    try {
      if (!(existing instanceof TFile)) {
        await this.ensureFolder(parentOf(path));
        if (isText) await this.app.vault.create(path, decoder.decode(bytes));
        else await this.app.vault.createBinary(path, toArrayBuffer(bytes));
      } else if (isText) {
        const text = decoder.decode(bytes);
        const check = { mismatch: false };
        try {
          await this.app.vault.process(existing, (data) => {
            if (!this.textMatches(data, expectedHash ?? "")) {
              check.mismatch = true;
              throw conflict(relative, null);
            }
            return text;
          });
        } catch (error) {
          if (check.mismatch) throw conflict(relative, await this.currentHash(existing));
          throw error;
        }
      } else {
        // Attachments have no process(): the window between this check and the write is one tick.
        const actual = await this.currentHash(existing);
        if (!sameHash(actual, expectedHash ?? "")) throw conflict(relative, actual);
        await this.app.vault.modifyBinary(existing, toArrayBuffer(bytes));
      }
    } catch (error) {
      pending?.cancel();
      throw error;
    }
    await pending?.done;
    const written = this.app.vault.getFileByPath(path);
    if (!written) throw new Error(`${relative} vanished right after it was written`);
    return statOf(written, relative);
  }

  async removeFile(relative: string, expectedHash: string): Promise<void> {
    const file = this.app.vault.getFileByPath(this.scope.toVault(relative));
    if (!file) throw conflict(relative, null);
    const actual = await this.currentHash(file);
    if (!sameHash(actual, expectedHash)) throw conflict(relative, actual);
    // The write path has already kept its own copy; the user's trash setting decides the rest.
    await this.app.fileManager.trashFile(file);
  }

  /** Through FileManager.renameFile, so Obsidian updates links as its "Automatically update internal links" setting says. */
  async renameFile(from: string, to: string): Promise<void> {
    const source = this.app.vault.getAbstractFileByPath(normalizePath(this.scope.toVault(from)));
    if (!source) throw conflict(from, null);
    const target = normalizePath(this.scope.toVault(to));
    if (this.app.vault.getAbstractFileByPath(target)) throw conflict(to, null);
    await this.ensureFolder(parentOf(target));
    const settled = this.metadata.afterResolved();
    await this.app.fileManager.renameFile(source, target);
    await settled;
  }

  private hiddenPath(relative: string): string {
    return normalizePath(this.scope.toVault(relative));
  }

  private async ensureHiddenFolder(folder: string): Promise<void> {
    if (folder === "" || (await this.app.vault.adapter.exists(folder))) return;
    await this.ensureHiddenFolder(parentOf(folder));
    await this.app.vault.adapter.mkdir(folder);
  }

  async writeHidden(relative: string, bytes: Uint8Array): Promise<boolean> {
    const path = this.hiddenPath(relative);
    const adapter = this.app.vault.adapter;
    if (await adapter.exists(path)) return false;
    await this.ensureHiddenFolder(parentOf(path));
    try {
      await adapter.writeBinary(path, toArrayBuffer(bytes));
    } catch (error) {
      // A copy cut short (a full disk) is no copy: it would pass for a trashed empty or shortened note.
      await adapter.remove(path).catch(() => undefined);
      throw isNoSpace(error) ? noSpaceError("vault") : error;
    }
    return true;
  }

  async readHidden(relative: string): Promise<Uint8Array | null> {
    const path = this.hiddenPath(relative);
    const adapter = this.app.vault.adapter;
    if (!(await adapter.exists(path))) return null;
    return new Uint8Array(await adapter.readBinary(path));
  }

  async listHidden(folder: string): Promise<FileStat[]> {
    const path = this.hiddenPath(folder);
    const adapter = this.app.vault.adapter;
    if (!(await adapter.exists(path))) return [];
    const listed = await adapter.list(path);
    const out: FileStat[] = [];
    for (const file of listed.files) {
      const stat = await adapter.stat(file);
      if (!stat || stat.type !== "file") continue;
      const name = file.slice(file.lastIndexOf("/") + 1);
      out.push({ path: `${folder}/${name}`, size: stat.size, mtime: stat.mtime, ctime: stat.ctime });
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : 1));
  }

  async removeHidden(relative: string): Promise<void> {
    const path = this.hiddenPath(relative);
    if (await this.app.vault.adapter.exists(path)) await this.app.vault.adapter.remove(path);
  }
}
