// Index snapshots live in the plugin folder (`manifest.dir`), one folder per MCP vault, reached
// through the adapter because the configuration folder is not part of the Vault.
import { normalizePath, type DataAdapter } from "obsidian";
import type { IndexStore } from "../../core/ports";

const KEY = /^[a-z0-9_-]+$/i;
const SUFFIX = ".snapshot";

/** The adapter writes one ArrayBuffer: parts are joined into it. */
function toArrayBuffer(data: Uint8Array | readonly Uint8Array[]): ArrayBuffer {
  if (data instanceof Uint8Array) return data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer;
  const joined = new Uint8Array(data.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of data) {
    joined.set(part, at);
    at += part.length;
  }
  return joined.buffer;
}

export class AdapterIndexStore implements IndexStore {
  private readonly adapter: DataAdapter;
  private readonly folder: string;

  constructor(adapter: DataAdapter, folder: string) {
    this.adapter = adapter;
    this.folder = normalizePath(folder);
  }

  private path(key: string): string {
    if (!KEY.test(key)) throw new Error(`invalid index store key ${key}`);
    return `${this.folder}/${key}${SUFFIX}`;
  }

  private async ensureFolder(folder: string): Promise<void> {
    if (await this.adapter.exists(folder)) return;
    const slash = folder.lastIndexOf("/");
    if (slash > 0) await this.ensureFolder(folder.slice(0, slash));
    await this.adapter.mkdir(folder);
  }

  async load(key: string): Promise<Uint8Array | null> {
    const path = this.path(key);
    if (!(await this.adapter.exists(path))) return null;
    return new Uint8Array(await this.adapter.readBinary(path));
  }

  async save(key: string, data: Uint8Array | readonly Uint8Array[]): Promise<void> {
    await this.ensureFolder(this.folder);
    // A torn write is caught by the snapshot's checksum and rebuilt, so a plain write is enough.
    await this.adapter.writeBinary(this.path(key), toArrayBuffer(data));
  }

  async remove(key: string): Promise<void> {
    const path = this.path(key);
    if (await this.adapter.exists(path)) await this.adapter.remove(path);
  }

  async keys(): Promise<string[]> {
    if (!(await this.adapter.exists(this.folder))) return [];
    const listed = await this.adapter.list(this.folder);
    return listed.files
      .map((file) => file.slice(file.lastIndexOf("/") + 1))
      .filter((name) => name.endsWith(SUFFIX))
      .map((name) => name.slice(0, -SUFFIX.length));
  }
}
