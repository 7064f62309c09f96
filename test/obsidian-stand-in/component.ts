// Component and Plugin (obsidian-api.md §3): load() then children; unload() unloads children, runs the
// registered undo callbacks last-first, then onunload(). Commands, ribbon icons and status items a
// plugin added go away with it.
import { promises as fs } from "node:fs";
import path from "node:path";
import type { EventRef } from "./events";
import type { App } from "./app";

export class Component {
  private loaded = false;
  private readonly children: Component[] = [];
  private readonly undo: Array<() => void> = [];

  load(): void {
    if (this.loaded) return;
    this.loaded = true;
    void this.onload();
    for (const child of this.children) child.load();
  }

  onload(): void | Promise<void> {}

  /** What the app's loader does: the plugin's onload is awaited before its children load. */
  async loadAwaited(): Promise<void> {
    if (this.loaded) return;
    this.loaded = true;
    await this.onload();
    for (const child of this.children) child.load();
  }

  unload(): void {
    if (!this.loaded) return;
    this.loaded = false;
    for (const child of [...this.children].reverse()) child.unload();
    while (this.undo.length > 0) this.undo.pop()!();
    this.onunload();
  }

  onunload(): void {}

  get isLoaded(): boolean {
    return this.loaded;
  }

  addChild<T extends Component>(child: T): T {
    this.children.push(child);
    if (this.loaded) child.load();
    return child;
  }

  removeChild<T extends Component>(child: T): T {
    const at = this.children.indexOf(child);
    if (at >= 0) {
      this.children.splice(at, 1);
      child.unload();
    }
    return child;
  }

  register(callback: () => unknown): void {
    this.undo.push(() => void callback());
  }

  registerEvent(ref: EventRef): void {
    this.register(() => ref.e.offref(ref));
  }

  registerDomEvent(el: EventTarget, type: string, callback: (event: Event) => unknown, options?: boolean | AddEventListenerOptions): void {
    el.addEventListener(type, callback, options);
    this.register(() => el.removeEventListener(type, callback, options));
  }

  registerInterval(id: number): number {
    this.register(() => clearInterval(id));
    return id;
  }
}

export interface PluginManifest {
  id: string;
  name: string;
  version: string;
  minAppVersion: string;
  description: string;
  author: string;
  isDesktopOnly?: boolean;
  dir?: string;
}

export interface Command {
  id: string;
  name: string;
  icon?: string;
  callback?: () => unknown;
  checkCallback?: (checking: boolean) => boolean | void;
  editorCallback?: (editor: unknown, view: unknown) => unknown;
  editorCheckCallback?: (checking: boolean, editor: unknown, view: unknown) => boolean | void;
  hotkeys?: unknown[];
}

export abstract class Plugin extends Component {
  app: App;
  manifest: PluginManifest;

  constructor(app: App, manifest: PluginManifest) {
    super();
    this.app = app;
    this.manifest = manifest;
  }

  private get dataFile(): string {
    return path.join(this.app.vault.adapter.getBasePath(), this.manifest.dir ?? "", "data.json");
  }

  async loadData(): Promise<unknown> {
    try {
      return JSON.parse(await fs.readFile(this.dataFile, "utf8")) as unknown;
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return null;
      throw error;
    }
  }

  async saveData(data: unknown): Promise<void> {
    await fs.mkdir(path.dirname(this.dataFile), { recursive: true });
    await fs.writeFile(this.dataFile, JSON.stringify(data, null, 2));
  }

  addCommand(command: Command): Command {
    const full: Command = { ...command, id: `${this.manifest.id}:${command.id}`, name: `${this.manifest.name}: ${command.name}` };
    this.app.commands.add(full);
    this.register(() => this.app.commands.remove(full.id));
    return full;
  }

  removeCommand(commandId: string): void {
    this.app.commands.remove(`${this.manifest.id}:${commandId}`);
  }

  addRibbonIcon(icon: string, title: string, callback: (evt: MouseEvent) => unknown): HTMLElement {
    const el = document.createElement("div");
    el.className = "side-dock-ribbon-action";
    el.setAttribute("aria-label", title);
    el.dataset.icon = icon;
    el.addEventListener("click", (event) => void callback(event as MouseEvent));
    this.app.ribbon.set(`${this.manifest.id}:${title}`, el);
    this.register(() => {
      this.app.ribbon.delete(`${this.manifest.id}:${title}`);
      el.remove();
    });
    return el;
  }

  addStatusBarItem(): HTMLElement {
    const el = document.createElement("div");
    el.className = "status-bar-item";
    this.app.statusBar.appendChild(el);
    this.register(() => el.remove());
    return el;
  }

  addSettingTab(tab: { display(): void }): void {
    this.app.setting.tabs.push(tab);
    this.register(() => {
      this.app.setting.tabs = this.app.setting.tabs.filter((other) => other !== tab);
    });
  }

  onUserEnable(): void {}
}
