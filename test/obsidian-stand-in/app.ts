// The App and its startup (checklist 2): the vault fires `create` for every file while layoutReady is
// false; then layoutReady is set and the onLayoutReady queue runs; finally `resolved` fires.
import { installDom } from "./ui/dom";
import type { Command } from "./component";
import { FileManager } from "./file-manager";
import { MetadataCache } from "./metadata-cache";
import { Vault } from "./vault";
import { MarkdownView, Workspace } from "./workspace";

export class Commands {
  readonly commands = new Map<string, Command>();
  private readonly activeView: () => MarkdownView | null;

  constructor(activeView: () => MarkdownView | null = () => null) {
    this.activeView = activeView;
  }

  add(command: Command): void {
    this.commands.set(command.id, command);
  }

  remove(id: string): void {
    this.commands.delete(id);
  }

  /**
   * Checks, or runs, a command with the §3 precedence: editorCheckCallback, editorCallback,
   * checkCallback, callback. Editor commands need an active markdown view. A falsy check hides it.
   */
  private run(command: Command, checking: boolean): boolean {
    const view = this.activeView();
    if (command.editorCheckCallback) {
      if (!view) return false;
      if (!command.editorCheckCallback(true, view.editor, view)) return false;
      if (!checking) command.editorCheckCallback(false, view.editor, view);
      return true;
    }
    if (command.editorCallback) {
      if (!view) return false;
      if (!checking) void command.editorCallback(view.editor, view);
      return true;
    }
    if (command.checkCallback) {
      if (!command.checkCallback(true)) return false;
      if (!checking) command.checkCallback(false);
      return true;
    }
    if (command.callback) {
      if (!checking) void command.callback();
      return true;
    }
    return false;
  }

  /** Whether the command would be offered now (checkCallback(true)); never acts. */
  isAvailable(id: string): boolean {
    const command = this.commands.get(id);
    return command ? this.run(command, true) : false;
  }

  /** Test hook: runs a command as the palette does (§3 precedence); false when it is not available. */
  executeCommandById(id: string): boolean {
    const command = this.commands.get(id);
    return command ? this.run(command, false) : false;
  }
}

export class App {
  readonly vault: Vault;
  readonly metadataCache: MetadataCache;
  readonly fileManager: FileManager;
  readonly workspace = new Workspace();
  readonly commands = new Commands(() => this.workspace.getActiveViewOfType(MarkdownView));
  readonly setting = { tabs: [] as Array<{ display(): void }> };
  readonly ribbon = new Map<string, HTMLElement>();
  readonly statusBar: HTMLElement;

  constructor(vaultDir: string) {
    installDom();
    this.vault = new Vault(vaultDir);
    this.metadataCache = new MetadataCache(this.vault);
    this.fileManager = new FileManager(this.vault, this.metadataCache);
    this.statusBar = document.createElement("div");
    this.statusBar.className = "status-bar";
    document.body.appendChild(this.statusBar);
  }

  private started = false;

  /**
   * The app's startup after plugins were loaded (obsidian-api.md §10.2): the vault is read with a
   * `create` for every file and folder while the layout is not ready, metadata is parsed, then the
   * layout becomes ready (the onLayoutReady queue runs) and finally `resolved` fires.
   */
  async finishStartup(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.vault.loadTree();
    await this.metadataCache.initialize();
    this.metadataCache.follow();
    this.workspace.setLayoutReady();
    await new Promise((resolve) => setTimeout(resolve, 0));
    this.metadataCache.trigger("resolved");
  }
}

export interface StandInOptions {
  vaultDir: string;
  config?: Record<string, unknown>;
}

/** An app over a vault folder before its startup: load plugins, then call `finishStartup()`. */
export function createStandInApp(options: StandInOptions): App {
  const app = new App(options.vaultDir);
  Object.assign(app.vault.config, { alwaysUpdateLinks: true, newLinkFormat: "shortest", trashOption: "local" }, options.config);
  return app;
}
