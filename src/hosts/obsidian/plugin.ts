// The plugin: settings in data.json, the vault hosts and server started at layout-ready, the
// settings tab, commands and status bar. Everything it starts, onunload stops.
import { Notice, Plugin, type TFile } from "obsidian";
import { nodeOAuthCrypto } from "../../auth/oauth/node-crypto";
import { OAuthService, type SignedInClient } from "../../auth/oauth/service";
import { describeFailure } from "../../core/errors";
import type { ApprovalHost } from "../../http/oauth-approval";
import { restoreVersion } from "../../core/write/restore";
import { TRASH_FOLDER } from "../../core/write/trash";
import { nodeHasher } from "../node/services";
import { FuzzySuggestModal, type App } from "obsidian";
import { CLIENT_KINDS, CLIENT_LABELS, clientConfig, type ClientKind } from "../../mcp/client-config";
import { ApprovalModal } from "./approval-modal";
import { copyToClipboard } from "./clipboard";
import { ConnectionInfoModal, describeState } from "./info-modal";
import { PluginLogger } from "./plugin-logger";
import { PluginServer, type ServerState } from "./plugin-server";
import { RestoreModal, type RestoreCandidate } from "./restore-modal";
import { oauthUser, readSettings, vaultsOf, type PluginSettings } from "./settings";
import { SecondBrainSettingTab, type PluginControls } from "./settings-tab";
import { StatusBar } from "./status-bar";
import { onDeviceFolders, type OnDeviceFolders } from "./on-device";
import type { ObsidianVaultHost } from "./vault-host";

/** Recorded versions the restore command offers besides the trash copies. */
const HISTORY_VERSIONS_LISTED = 30;

class ClientPickerModal extends FuzzySuggestModal<ClientKind> {
  private readonly choose: (kind: ClientKind) => void;

  constructor(app: App, choose: (kind: ClientKind) => void) {
    super(app);
    this.choose = choose;
    this.setPlaceholder("Copy the configuration for…");
  }

  getItems(): ClientKind[] {
    return [...CLIENT_KINDS];
  }

  getItemText(kind: ClientKind): string {
    return CLIENT_LABELS[kind];
  }

  onChooseItem(kind: ClientKind): void {
    this.choose(kind);
  }
}

export class SecondBrainPlugin extends Plugin implements PluginControls {
  config!: PluginSettings;
  readonly freshTokens = new Map<string, string>();
  private server: PluginServer | null = null;
  private logger!: PluginLogger;
  private statusBar: StatusBar | null = null;
  private oauth: OAuthService | null = null;
  /** The OAuth state as saved in data.json next to the settings: hashes of codes and tokens, never one in plaintext. */
  private oauthState: unknown = null;
  private saving: Promise<void> = Promise.resolve();
  private unloadSave: Promise<void> = Promise.resolve();
  /** Settles when the vaults are open and the server has had its chance to start. */
  ready: Promise<void> = Promise.resolve();

  /** Resolves once every vault's history has recorded its queued work (the first snapshot included). */
  async historyIdle(): Promise<void> {
    for (const host of this.server?.vaultHosts() ?? []) await host.historyIdle();
  }

  override async onload(): Promise<void> {
    const data: unknown = await this.loadData();
    this.config = readSettings(data);
    this.oauthState = typeof data === "object" && data !== null && "oauthState" in data ? data.oauthState : null;
    this.logger = new PluginLogger({
      adapter: this.app.vault.adapter,
      auditPath: () => (this.config.audit.enabled ? `${this.pluginDir}/${this.config.audit.file}` : null),
    });
    this.oauth = await OAuthService.open({
      crypto: nodeOAuthCrypto,
      logger: this.logger,
      persistence: {
        load: () => Promise.resolve(this.oauthState === null ? null : JSON.stringify(this.oauthState)),
        save: async (text) => {
          this.oauthState = JSON.parse(text) as unknown;
          await this.persist();
        },
      },
    });
    await this.oauth.forgetUsersExcept(new Set(this.config.users.map((user) => user.name)));
    this.server = this.createServer();
    this.statusBar = new StatusBar(this.addStatusBarItem());
    this.register(this.logger.onRecord((record) => this.statusBar?.record(record)));
    this.addSettingTab(new SecondBrainSettingTab(this.app, this, this));
    this.registerCommands();
    let markReady: () => void = () => undefined;
    this.ready = new Promise((resolve) => (markReady = resolve));
    // Startup work waits for the layout: the vault fires `create` for every file before it.
    this.app.workspace.onLayoutReady(() => {
      void this.openAndServe().finally(markReady);
    });
  }

  override onunload(): void {
    const server = this.server;
    this.server = null;
    // Saves when each token was last used, which requests do not save on their own.
    if (this.config.oauth.enabled && this.oauth) this.unloadSave = this.oauth.save();
    // Obsidian does not await onunload: the port is released synchronously by close(), and the index
    // snapshots are written in the background.
    void server?.close().catch((error: unknown) => console.warn("[secondbrain-mcp] shutdown:", error instanceof Error ? error.message : String(error)));
  }

  private get pluginDir(): string {
    return this.manifest.dir ?? `${this.app.vault.configDir}/plugins/${this.manifest.id}`;
  }

  private createServer(): PluginServer {
    const server = new PluginServer({
      app: this.app,
      pluginDir: this.pluginDir,
      version: this.manifest.version,
      logger: this.logger,
      hasher: nodeHasher,
      clock: { now: () => Date.now() },
      yielder: () => new Promise((resolve) => window.setTimeout(resolve, 0)),
      settings: () => this.config,
      ...(this.oauth ? { oauth: { service: this.oauth, approval: () => this.approvalHost() } } : {}),
    });
    server.onState((state) => this.statusBar?.setState(state));
    return server;
  }

  private async openAndServe(): Promise<void> {
    const server = this.server;
    if (!server) return;
    try {
      await server.openVaults();
    } catch (error) {
      new Notice(`Second Brain MCP could not open the vault: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    if (this.config.server.enabled) await this.startServer();
  }

  // ---- PluginControls (settings tab) ------------------------------------------------------

  async saveSettings(): Promise<void> {
    await this.persist();
  }

  /** Resolves once data.json holds everything saved so far (also the save when unloading). */
  async dataSaved(): Promise<void> {
    await this.unloadSave;
    await this.saving;
  }

  /** Settings and OAuth state share data.json; each write takes both as they are then, one write at a time. */
  private persist(): Promise<void> {
    this.saving = this.saving.then(() => this.saveData({ ...this.config, oauthState: this.oauthState })).catch((error: unknown) => {
      console.error("[secondbrain-mcp] settings not saved:", error instanceof Error ? error.message : String(error));
    });
    return this.saving;
  }

  /** Sign-in by approval: the modal names the client, the user the settings choose and that user's vaults. */
  private approvalHost(): ApprovalHost {
    return {
      actingUser: () => {
        const user = oauthUser(this.config);
        if (typeof user === "string") return user;
        return { name: user.name, readOnly: user.read_only, vaults: user.vaults, ...(user.toolsets ? { toolsets: user.toolsets } : {}) };
      },
      ask: (approval) => {
        const user = this.config.users.find((candidate) => candidate.name === approval.user);
        const vaults = user && user.vaults.length > 0 ? user.vaults : vaultsOf(this.config).map((vault) => vault.name);
        new ApprovalModal(this.app, approval, { vaults, readOnly: user?.read_only ?? false, ...(user?.toolsets ? { toolsets: user.toolsets } : {}) }).open();
      },
      timeoutMs: this.config.oauth.approvalSeconds * 1000,
    };
  }

  signedInClients(): SignedInClient[] {
    return this.oauth?.signedIn() ?? [];
  }

  async revokeClient(clientId: string, user: string): Promise<void> {
    await this.oauth?.revoke(clientId, user);
  }

  onDeviceFolders(): OnDeviceFolders | null {
    return onDeviceFolders(this.app, this.pluginDir);
  }

  serverState(): ServerState {
    return this.server?.state ?? { kind: "stopped" };
  }

  onServerState(listener: (state: ServerState) => void): () => void {
    return this.server?.onState(listener) ?? (() => undefined);
  }

  async startServer(): Promise<void> {
    const state = await this.server?.start();
    if (state?.kind === "failed") new Notice(`Second Brain MCP: ${state.reason}`, 10_000);
  }

  async stopServer(): Promise<void> {
    await this.server?.stop();
  }

  async restartServer(): Promise<void> {
    if (this.serverState().kind !== "running") return;
    await this.stopServer();
    await this.startServer();
  }

  async reopenVaults(): Promise<void> {
    const wasRunning = this.serverState().kind === "running";
    await this.server?.close();
    this.server = this.createServer();
    await this.server.openVaults();
    if (wasRunning || this.config.server.enabled) await this.startServer();
  }

  usersChanged(): void {
    this.server?.reloadUsers();
    // A removed user's sign-ins go with it, also if the name comes back later.
    void this.oauth?.forgetUsersExcept(new Set(this.config.users.map((user) => user.name)));
  }

  endpoint(): string {
    const state = this.serverState();
    if (state.kind === "running") return state.url;
    const host = this.config.server.host.includes(":") ? `[${this.config.server.host}]` : this.config.server.host;
    return `http://${host}:${this.config.server.port}/mcp`;
  }

  // ---- commands ----------------------------------------------------------------------------

  private registerCommands(): void {
    this.addCommand({
      id: "reindex-vault",
      name: "Reindex vault",
      callback: () => void this.reindex(),
    });
    this.addCommand({
      id: "restore-note-version",
      name: "Restore a previous version of the active note",
      checkCallback: (checking) => {
        const file = this.app.workspace.getActiveFile();
        const held = file ? this.hostOf(file) : null;
        if (!file || !held) return false;
        if (!checking) void this.openRestore(file, held.host, held.path);
        return true;
      },
    });
    this.addCommand({
      id: "copy-client-config",
      name: "Copy MCP client configuration",
      callback: () => {
        new ClientPickerModal(this.app, (kind) => {
          const token = [...this.freshTokens.values()][0];
          void copyToClipboard(clientConfig(kind, this.endpoint(), token).text, `the ${CLIENT_LABELS[kind]} configuration`);
          if (token === undefined) new Notice("It carries a placeholder where the token goes: paste a token from the settings tab there.");
        }).open();
      },
    });
    this.addCommand({
      id: "start-server",
      name: "Start server",
      checkCallback: (checking) => {
        if (!this.server || this.serverState().kind === "running") return false;
        if (!checking) void this.startServer();
        return true;
      },
    });
    this.addCommand({
      id: "stop-server",
      name: "Stop server",
      checkCallback: (checking) => {
        if (this.serverState().kind !== "running") return false;
        if (!checking) void this.stopServer().then(() => new Notice("Second Brain MCP: server stopped."));
        return true;
      },
    });
    this.addCommand({
      id: "show-connection-info",
      name: "Show connection info",
      callback: () => {
        new ConnectionInfoModal(this.app, this.serverState(), this.endpoint(), [...this.freshTokens.values()][0]).open();
      },
    });
  }

  /** The narrowest vault host holding a file, with the file's path in it. */
  private hostOf(file: TFile): { host: ObsidianVaultHost; path: string } | null {
    let best: { host: ObsidianVaultHost; path: string } | null = null;
    for (const host of this.server?.vaultHosts() ?? []) {
      const relative = host.scope.fromVault(file.path);
      if (relative !== null && (!best || host.scope.prefix.length > best.host.scope.prefix.length)) best = { host, path: relative };
    }
    return best;
  }

  private async reindex(): Promise<void> {
    const hosts = this.server?.vaultHosts() ?? [];
    if (hosts.length === 0) {
      new Notice("Second Brain MCP: the vault is not open yet. Try again in a moment.");
      return;
    }
    const notice = new Notice("Reindexing…", 0);
    const started = Date.now();
    let files = 0;
    try {
      for (const host of hosts) {
        const report = await host.rebuild((done, total) => {
          if (done === total || done % 200 === 0) notice.setMessage(`Reindexing ${host.name}: ${done} of ${total} files`);
        });
        files += report.reingested;
      }
      notice.setMessage(`Reindexed ${files} files in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
    } catch (error) {
      notice.setMessage(`Reindexing failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    window.setTimeout(() => notice.hide(), 5000);
  }

  private async openRestore(file: TFile, host: ObsidianVaultHost, path: string): Promise<void> {
    const copies = await host.engine.trashCopies(path);
    const current = file.stat.size;
    const candidates: RestoreCandidate[] = copies.map((copy) => ({ id: copy.trash, source: "trash", when: copy.when, bytes: copy.bytes, delta: copy.bytes - current }));
    candidates.push(...(await this.historyCandidates(host, path, current)));
    candidates.sort((a, b) => b.when - a.when);
    if (candidates.length === 0) {
      new Notice(`No earlier version of ${file.name}: a copy is kept each time a tool changes it.`);
      return;
    }
    new RestoreModal(this.app, file.path, candidates, (candidate) => void this.restore(host, path, candidate)).open();
  }

  /** Recorded versions that differ from the note as it is; the newest few, each with its size. */
  private async historyCandidates(host: ObsidianVaultHost, path: string, currentBytes: number): Promise<RestoreCandidate[]> {
    const history = host.engine.history();
    if (!history?.status().versioned) return [];
    try {
      const current = await host.engine.read(path);
      const found: RestoreCandidate[] = [];
      for (const entry of await history.log(path, HISTORY_VERSIONS_LISTED)) {
        const bytes = await history.readAt(path, entry.id);
        if (!bytes || sameBytes(bytes, current.bytes)) continue;
        const subject = entry.message.split("\n")[0] ?? "";
        found.push({ id: entry.id, source: "history", when: entry.when, bytes: bytes.length, delta: bytes.length - currentBytes, label: `${entry.short} ${subject}` });
      }
      return found;
    } catch (error) {
      this.logger.log({ level: "warn", event: "history_read_failed", path, reason: describeFailure(error) });
      return [];
    }
  }

  private async restore(host: ObsidianVaultHost, path: string, candidate: RestoreCandidate): Promise<void> {
    const bytes = candidate.source === "history" ? await host.engine.history()?.readAt(path, candidate.id) : await host.engine.readTrashCopy(candidate.id);
    if (!bytes) {
      new Notice("That version is gone (its trash copy was purged). Pick another one.");
      return;
    }
    try {
      const result = await restoreVersion(host.engine.writes, { path, bytes, source: candidate.source, reason: "restore command" });
      new Notice(result.changed ? `Restored ${path}. The replaced version was kept in ${result.trash ?? TRASH_FOLDER}.` : `${path} already has that content.`);
    } catch (error) {
      new Notice(`Restoring ${path} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

export { describeState };
