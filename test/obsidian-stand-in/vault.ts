// Vault and FileSystemAdapter over a real folder (obsidian-api.md §4, checklist 3–6, 13). The Vault
// holds a tree of TFile/TFolder objects; dot-paths exist only for the adapter.
import { constants as fsConstants, promises as fs, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { Events } from "./events";

export interface FileStats {
  ctime: number;
  mtime: number;
  size: number;
}

export abstract class TAbstractFile {
  vault: Vault;
  path: string;
  name: string;
  parent: TFolder | null;

  constructor(vault: Vault, filePath: string, parent: TFolder | null) {
    this.vault = vault;
    this.path = filePath;
    this.name = filePath === "/" ? "" : filePath.slice(filePath.lastIndexOf("/") + 1);
    this.parent = parent;
  }
}

export class TFile extends TAbstractFile {
  stat: FileStats = { ctime: 0, mtime: 0, size: 0 };

  get basename(): string {
    const dot = this.name.lastIndexOf(".");
    return dot > 0 ? this.name.slice(0, dot) : this.name;
  }

  get extension(): string {
    const dot = this.name.lastIndexOf(".");
    return dot > 0 ? this.name.slice(dot + 1).toLowerCase() : "";
  }
}

export class TFolder extends TAbstractFile {
  children: TAbstractFile[] = [];

  isRoot(): boolean {
    return this.path === "/";
  }
}

export interface DataWriteOptions {
  ctime?: number;
  mtime?: number;
}

export interface Stat {
  type: "file" | "folder";
  ctime: number;
  mtime: number;
  size: number;
}

function isHidden(vaultPath: string): boolean {
  return vaultPath.split("/").some((segment) => segment.startsWith("."));
}

function parentPath(vaultPath: string): string {
  const slash = vaultPath.lastIndexOf("/");
  return slash < 0 ? "/" : vaultPath.slice(0, slash);
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Counts of every API call, so tests can prove which path a write took. */
export type CallCounts = Record<string, number>;

function count(calls: CallCounts, name: string): void {
  calls[name] = (calls[name] ?? 0) + 1;
}

export class FileSystemAdapter {
  private readonly basePath: string;
  readonly calls: CallCounts = {};

  constructor(basePath: string) {
    this.basePath = basePath;
  }

  getBasePath(): string {
    return this.basePath;
  }

  getFullPath(vaultPath: string): string {
    return path.join(this.basePath, vaultPath);
  }

  getName(): string {
    return path.basename(this.basePath);
  }

  async exists(vaultPath: string): Promise<boolean> {
    try {
      await fs.stat(this.getFullPath(vaultPath));
      return true;
    } catch {
      return false;
    }
  }

  async stat(vaultPath: string): Promise<Stat | null> {
    try {
      const stats = await fs.stat(this.getFullPath(vaultPath));
      return { type: stats.isDirectory() ? "folder" : "file", ctime: Math.floor(stats.ctimeMs), mtime: Math.floor(stats.mtimeMs), size: stats.size };
    } catch {
      return null;
    }
  }

  async list(vaultPath: string): Promise<{ files: string[]; folders: string[] }> {
    const entries = await fs.readdir(this.getFullPath(vaultPath), { withFileTypes: true });
    const prefix = vaultPath === "" || vaultPath === "/" ? "" : `${vaultPath}/`;
    return {
      files: entries.filter((entry) => entry.isFile()).map((entry) => prefix + entry.name),
      folders: entries.filter((entry) => entry.isDirectory()).map((entry) => prefix + entry.name),
    };
  }

  async read(vaultPath: string): Promise<string> {
    count(this.calls, "read");
    return fs.readFile(this.getFullPath(vaultPath), "utf8");
  }

  async readBinary(vaultPath: string): Promise<ArrayBuffer> {
    count(this.calls, "readBinary");
    const buffer = await fs.readFile(this.getFullPath(vaultPath));
    return buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength);
  }

  async write(vaultPath: string, data: string): Promise<void> {
    count(this.calls, "write");
    await fs.writeFile(this.getFullPath(vaultPath), data);
  }

  async writeBinary(vaultPath: string, data: ArrayBuffer): Promise<void> {
    count(this.calls, "writeBinary");
    await fs.writeFile(this.getFullPath(vaultPath), new Uint8Array(data));
  }

  async append(vaultPath: string, data: string): Promise<void> {
    count(this.calls, "append");
    await fs.appendFile(this.getFullPath(vaultPath), data);
  }

  async mkdir(vaultPath: string): Promise<void> {
    await fs.mkdir(this.getFullPath(vaultPath), { recursive: true });
  }

  async remove(vaultPath: string): Promise<void> {
    count(this.calls, "remove");
    await fs.rm(this.getFullPath(vaultPath));
  }

  async rmdir(vaultPath: string, recursive: boolean): Promise<void> {
    await fs.rm(this.getFullPath(vaultPath), { recursive });
  }

  async rename(from: string, to: string): Promise<void> {
    await fs.rename(this.getFullPath(from), this.getFullPath(to));
  }
}

export class Vault extends Events {
  readonly adapter: FileSystemAdapter;
  configDir = ".obsidian";
  readonly calls: CallCounts = {};
  private readonly files = new Map<string, TAbstractFile>();
  private readonly root: TFolder;
  private readonly locks = new Map<string, Promise<unknown>>();
  readonly config: Record<string, unknown> = {};

  constructor(basePath: string) {
    super();
    this.adapter = new FileSystemAdapter(basePath);
    this.root = new TFolder(this, "/", null);
    this.files.set("/", this.root);
  }

  getName(): string {
    return this.adapter.getName();
  }

  getConfig(key: string): unknown {
    return this.config[key];
  }

  getRoot(): TFolder {
    return this.root;
  }

  /** Reads the folder into the tree, firing `create` for each entry (the app's startup). */
  loadTree(): void {
    const walk = (folder: TFolder): void => {
      const dir = this.adapter.getFullPath(folder.isRoot() ? "" : folder.path);
      for (const name of readdirSync(dir).sort()) {
        if (name.startsWith(".")) continue;
        const vaultPath = (folder.isRoot() ? "" : `${folder.path}/`) + name.normalize("NFC");
        const stats = statSync(path.join(dir, name));
        const item = stats.isDirectory() ? new TFolder(this, vaultPath, folder) : new TFile(this, vaultPath, folder);
        if (item instanceof TFile) item.stat = { ctime: Math.floor(stats.ctimeMs), mtime: Math.floor(stats.mtimeMs), size: stats.size };
        folder.children.push(item);
        this.files.set(vaultPath, item);
        this.trigger("create", item);
        if (item instanceof TFolder) walk(item);
      }
    };
    walk(this.root);
  }

  getAbstractFileByPath(vaultPath: string): TAbstractFile | null {
    return this.files.get(vaultPath) ?? null;
  }

  getFileByPath(vaultPath: string): TFile | null {
    const item = this.files.get(vaultPath);
    return item instanceof TFile ? item : null;
  }

  getFolderByPath(vaultPath: string): TFolder | null {
    const item = this.files.get(vaultPath);
    return item instanceof TFolder ? item : null;
  }

  getFiles(): TFile[] {
    return [...this.files.values()].filter((item): item is TFile => item instanceof TFile);
  }

  getMarkdownFiles(): TFile[] {
    return this.getFiles().filter((file) => file.extension === "md");
  }

  getAllLoadedFiles(): TAbstractFile[] {
    return [...this.files.values()];
  }

  private async refreshStat(file: TFile): Promise<void> {
    const stats = await fs.stat(this.adapter.getFullPath(file.path));
    file.stat = { ctime: Math.floor(stats.ctimeMs), mtime: Math.floor(stats.mtimeMs), size: stats.size };
  }

  private withLock<T>(vaultPath: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(vaultPath) ?? Promise.resolve();
    const next = previous.then(work, work);
    this.locks.set(
      vaultPath,
      next.catch(() => undefined),
    );
    return next;
  }

  async read(file: TFile): Promise<string> {
    count(this.calls, "read");
    return stripBom(await fs.readFile(this.adapter.getFullPath(file.path), "utf8"));
  }

  async cachedRead(file: TFile): Promise<string> {
    count(this.calls, "cachedRead");
    return stripBom(await fs.readFile(this.adapter.getFullPath(file.path), "utf8"));
  }

  async readBinary(file: TFile): Promise<ArrayBuffer> {
    count(this.calls, "readBinary");
    const buffer = await fs.readFile(this.adapter.getFullPath(file.path));
    return buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength);
  }

  private attach(item: TAbstractFile): void {
    const parent = this.getFolderByPath(parentPath(item.path));
    if (!parent) throw new Error(`parent of ${item.path} missing`);
    item.parent = parent;
    parent.children.push(item);
    this.files.set(item.path, item);
  }

  private detachItem(item: TAbstractFile): void {
    if (item.parent) item.parent.children = item.parent.children.filter((child) => child !== item);
    this.files.delete(item.path);
  }

  private checkCreatable(vaultPath: string): void {
    if (isHidden(vaultPath)) throw new Error(`Cannot create a hidden path through the Vault: ${vaultPath}`);
    if (this.files.has(vaultPath)) throw new Error("File already exists.");
    if (!this.getFolderByPath(parentPath(vaultPath))) throw new Error(`ENOENT: no such file or directory, open '${vaultPath}'`);
  }

  async create(vaultPath: string, data: string, options?: DataWriteOptions): Promise<TFile> {
    count(this.calls, "create");
    this.checkCreatable(vaultPath);
    await fs.writeFile(this.adapter.getFullPath(vaultPath), data, { flag: "wx" });
    return this.finishCreate(vaultPath, options);
  }

  async createBinary(vaultPath: string, data: ArrayBuffer, options?: DataWriteOptions): Promise<TFile> {
    count(this.calls, "createBinary");
    this.checkCreatable(vaultPath);
    await fs.writeFile(this.adapter.getFullPath(vaultPath), new Uint8Array(data), { flag: "wx" });
    return this.finishCreate(vaultPath, options);
  }

  private async finishCreate(vaultPath: string, options?: DataWriteOptions): Promise<TFile> {
    if (options?.mtime !== undefined) await fs.utimes(this.adapter.getFullPath(vaultPath), new Date(), new Date(options.mtime));
    const file = new TFile(this, vaultPath, null);
    this.attach(file);
    await this.refreshStat(file);
    this.trigger("create", file);
    return file;
  }

  async createFolder(vaultPath: string): Promise<TFolder> {
    count(this.calls, "createFolder");
    if (this.files.has(vaultPath)) throw new Error("Folder already exists.");
    if (!this.getFolderByPath(parentPath(vaultPath))) throw new Error(`ENOENT: no such file or directory, mkdir '${vaultPath}'`);
    await fs.mkdir(this.adapter.getFullPath(vaultPath));
    const folder = new TFolder(this, vaultPath, null);
    this.attach(folder);
    this.trigger("create", folder);
    return folder;
  }

  private async writeText(file: TFile, data: string, options?: DataWriteOptions): Promise<void> {
    await fs.writeFile(this.adapter.getFullPath(file.path), data);
    if (options?.mtime !== undefined) await fs.utimes(this.adapter.getFullPath(file.path), new Date(), new Date(options.mtime));
    await this.refreshStat(file);
    this.trigger("modify", file);
  }

  async modify(file: TFile, data: string, options?: DataWriteOptions): Promise<void> {
    count(this.calls, "modify");
    await this.withLock(file.path, () => this.writeText(file, data, options));
  }

  async modifyBinary(file: TFile, data: ArrayBuffer, options?: DataWriteOptions): Promise<void> {
    count(this.calls, "modifyBinary");
    await this.withLock(file.path, async () => {
      await fs.writeFile(this.adapter.getFullPath(file.path), new Uint8Array(data));
      if (options?.mtime !== undefined) await fs.utimes(this.adapter.getFullPath(file.path), new Date(), new Date(options.mtime));
      await this.refreshStat(file);
      this.trigger("modify", file);
    });
  }

  async append(file: TFile, data: string, options?: DataWriteOptions): Promise<void> {
    count(this.calls, "append");
    await this.withLock(file.path, async () => {
      const current = await fs.readFile(this.adapter.getFullPath(file.path), "utf8");
      await this.writeText(file, current + data, options);
    });
  }

  /** Runs fn synchronously on the current text under the file's lock; no write when fn throws or changes nothing. */
  async process(file: TFile, fn: (data: string) => string, options?: DataWriteOptions): Promise<string> {
    count(this.calls, "process");
    return this.withLock(file.path, async () => {
      const current = await fs.readFile(this.adapter.getFullPath(file.path), "utf8");
      const next = fn(current);
      if (next === current) return current;
      await this.writeText(file, next, options);
      return next;
    });
  }

  async rename(item: TAbstractFile, newPath: string): Promise<void> {
    count(this.calls, "rename");
    if (this.files.has(newPath)) throw new Error("Destination file already exists!");
    if (!this.getFolderByPath(parentPath(newPath))) throw new Error(`ENOENT: no such folder for '${newPath}'`);
    const oldPath = item.path;
    await fs.rename(this.adapter.getFullPath(oldPath), this.adapter.getFullPath(newPath));
    this.detachItem(item);
    const moved: Array<[TAbstractFile, string]> = [];
    const relocate = (target: TAbstractFile, to: string): void => {
      moved.push([target, target.path]);
      this.files.delete(target.path);
      target.path = to;
      target.name = to.slice(to.lastIndexOf("/") + 1);
      this.files.set(to, target);
      if (target instanceof TFolder) for (const child of target.children) relocate(child, `${to}/${child.name}`);
    };
    relocate(item, newPath);
    this.files.delete(newPath);
    this.attach(item);
    for (const [target, before] of moved) this.trigger("rename", target, before);
    void oldPath;
  }

  /** Like rename, refuses an existing destination; a folder is copied with everything in it. */
  async copy<T extends TAbstractFile>(item: T, newPath: string): Promise<T> {
    count(this.calls, "copy");
    if (this.files.has(newPath)) throw new Error("Destination file already exists!");
    if (!this.getFolderByPath(parentPath(newPath))) throw new Error(`ENOENT: no such folder for '${newPath}'`);
    if (item instanceof TFile) {
      await fs.copyFile(this.adapter.getFullPath(item.path), this.adapter.getFullPath(newPath), fsConstants.COPYFILE_EXCL);
      return (await this.finishCreate(newPath)) as TAbstractFile as T;
    }
    // The children are listed before the copy so that copying a folder into itself terminates.
    const children = item instanceof TFolder ? [...item.children] : [];
    const folder = await this.createFolder(newPath);
    for (const child of children) await this.copy(child, `${newPath}/${child.name}`);
    return folder as TAbstractFile as T;
  }

  async delete(item: TAbstractFile, force?: boolean): Promise<void> {
    count(this.calls, "delete");
    void force;
    await fs.rm(this.adapter.getFullPath(item.path), { recursive: true });
    this.removeTree(item);
  }

  /** `system` goes to the OS trash, which a test machine does not have: like Obsidian, fall back to `.trash/`. */
  async trash(item: TAbstractFile, system: boolean): Promise<void> {
    count(this.calls, "trash");
    void system;
    const trashDir = this.adapter.getFullPath(".trash");
    await fs.mkdir(trashDir, { recursive: true });
    let target = path.join(trashDir, item.name);
    for (let n = 1; await fs.stat(target).then(() => true, () => false); n++) {
      const dot = item.name.lastIndexOf(".");
      target = path.join(trashDir, dot > 0 ? `${item.name.slice(0, dot)} ${n}${item.name.slice(dot)}` : `${item.name} ${n}`);
    }
    await fs.rename(this.adapter.getFullPath(item.path), target);
    this.removeTree(item);
  }

  private removeTree(item: TAbstractFile): void {
    if (item instanceof TFolder) for (const child of [...item.children]) this.removeTree(child);
    this.detachItem(item);
    this.trigger("delete", item);
  }

  /**
   * Test hook for edits from outside the app: compares the disk with the tree and fires the events a
   * file watcher would (create, modify, delete).
   */
  async rescan(): Promise<void> {
    const seen = new Set<string>();
    const walk = async (folderPath: string): Promise<void> => {
      const dir = this.adapter.getFullPath(folderPath);
      for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
        if (entry.name.startsWith(".")) continue;
        const vaultPath = (folderPath === "" ? "" : `${folderPath}/`) + entry.name.normalize("NFC");
        seen.add(vaultPath);
        const known = this.files.get(vaultPath);
        if (entry.isDirectory()) {
          if (!known) {
            const folder = new TFolder(this, vaultPath, null);
            this.attach(folder);
            this.trigger("create", folder);
          }
          await walk(vaultPath);
        } else if (!known) {
          const file = new TFile(this, vaultPath, null);
          this.attach(file);
          await this.refreshStat(file);
          this.trigger("create", file);
        } else if (known instanceof TFile) {
          const before = known.stat;
          await this.refreshStat(known);
          if (known.stat.mtime !== before.mtime || known.stat.size !== before.size) this.trigger("modify", known);
        }
      }
    };
    await walk("");
    for (const [vaultPath, item] of [...this.files]) {
      if (vaultPath !== "/" && !seen.has(vaultPath) && this.files.has(vaultPath)) this.removeTree(item);
    }
  }
}
