// One MCP vault inside Obsidian: the engine over a folder scope, kept live from vault and
// metadataCache events, its index snapshot persisted in the plugin folder after a quiet period.
import { obsidianBinaryReader } from "./binary-reader";
import { describeFailure } from "../../core/errors";
import type { App, EventRef, TAbstractFile } from "obsidian";
import { FileSystemAdapter, type TFile } from "obsidian";
import { Engine, type ReconcileReport } from "../../core/vault/engine";
import type { Clock, Hasher, HistoryPort, Logger, Yielder } from "../../core/ports";
import { nativeSha1 } from "../node/git-codecs";
import { fdHistoryFs } from "../node/history-fs";
import { GitHistory, UnavailableHistory } from "../../history/git-history";
import { AdapterIndexStore } from "./index-store";
import { ObsidianMetadata } from "./metadata-port";
import type { MetadataWaiter } from "./metadata-waiter";
import { FolderScope } from "./scope";
import { ObsidianVaultPort } from "./vault-port";
import { ObsidianWriter } from "./write-port";
import { FileTransactionStore } from "../node/transaction-store";
import type { EmbeddingProvider } from "../../core/search/semantic/provider";

export interface ObsidianVaultHostOptions {
  app: App;
  name: string;
  /** Folder of the Obsidian vault this MCP vault covers; "" for all of it. */
  folder: string;
  /** Folder (vault-relative, in the configuration folder) for this vault's index snapshot. */
  indexFolder: string;
  /** Folder (vault-relative, in the plugin folder) for the journals of this vault's vault-wide changes. */
  transactionFolder: string;
  hasher: Hasher;
  clock: Clock;
  yielder: Yielder;
  logger: Logger;
  metadata: MetadataWaiter;
  trashRetentionDays: number;
  persistDelayMs?: number;
  /** Semantic search through this provider; absent: lexical only. */
  embeddings?: EmbeddingProvider;
  /** The private history's git directory (vault-relative, in the plugin folder); none when off. */
  history?: { gitFolder: string; author: { name: string; email: string } };
}

const DEFAULT_PERSIST_DELAY_MS = 2000;
/** Events arriving this close together are applied as one batch. */
const CHANGE_BATCH_MS = 50;

export class ObsidianVaultHost {
  readonly engine: Engine;
  readonly scope: FolderScope;
  readonly vaultPort: ObsidianVaultPort;
  private readonly options: ObsidianVaultHostOptions;
  private readonly metadata: ObsidianMetadata;
  private readonly refs: Array<{ source: "vault" | "metadata"; ref: EventRef }> = [];
  private readonly changed = new Set<string>();
  private readonly reparsed = new Set<string>();
  private batchTimer: number | null = null;
  private persistTimer: number | null = null;
  private work: Promise<void> = Promise.resolve();
  private started = false;
  private history: (HistoryPort & { close?(): Promise<void>; idle?(): Promise<void> }) | null = null;

  constructor(options: ObsidianVaultHostOptions) {
    this.options = options;
    this.scope = new FolderScope(options.folder);
    this.vaultPort = new ObsidianVaultPort(options.app, this.scope);
    this.metadata = new ObsidianMetadata(options.app, this.scope);
    this.engine = new Engine({
      name: options.name,
      vault: this.vaultPort,
      metadata: this.metadata,
      store: new AdapterIndexStore(options.app.vault.adapter, options.indexFolder),
      hasher: options.hasher,
      clock: options.clock,
      logger: options.logger,
      yielder: options.yielder,
      writer: new ObsidianWriter({ app: options.app, scope: this.scope, hasher: options.hasher, metadata: options.metadata }),
      trashRetentionDays: options.trashRetentionDays,
      binary: obsidianBinaryReader(),
      ...(options.embeddings ? { embeddings: options.embeddings } : {}),
      schedule: (ms, task) => {
        const timer = window.setTimeout(task, ms);
        return () => window.clearTimeout(timer);
      },
      ...(options.app.vault.adapter instanceof FileSystemAdapter
        ? { transactions: new FileTransactionStore(options.app.vault.adapter.getFullPath(options.transactionFolder)) }
        : {}),
    });
  }

  get name(): string {
    return this.options.name;
  }

  /** Loads the snapshot, reconciles it with the vault, then follows its events. Call at layout-ready. */
  async start(): Promise<ReconcileReport> {
    const report = await this.engine.start();
    if (this.options.history) {
      this.history = await this.openHistory(this.options.history);
      this.engine.attachHistory(this.history);
    }
    // Before the server answers: a change a crash interrupted is completed (and committed) or undone.
    await this.engine.recoverTransactions();
    this.attach();
    this.started = true;
    return report;
  }

  /** Waits for the history's queued work: the first snapshot and commits. */
  async historyIdle(): Promise<void> {
    await this.history?.idle?.();
  }

  /** The vault keeps working without a history that cannot be opened; vault_list says why. */
  private async openHistory(settings: { gitFolder: string; author: { name: string; email: string } }): Promise<HistoryPort & { close?(): Promise<void>; idle?(): Promise<void> }> {
    const adapter = this.options.app.vault.adapter;
    if (!(adapter instanceof FileSystemAdapter)) return new UnavailableHistory("the history needs the desktop app's file system");
    try {
      return await GitHistory.open({
        vault: this.options.name,
        dir: adapter.getFullPath(this.scope.folder),
        gitdir: adapter.getFullPath(settings.gitFolder),
        fs: fdHistoryFs,
        sha1: nativeSha1,
        logger: this.options.logger,
        clock: this.options.clock,
        author: settings.author,
        baseline: () => Promise.resolve(this.engine.files().map((file) => file.path)),
      });
    } catch (error) {
      const reason = describeFailure(error);
      this.options.logger.log({ level: "warn", event: "history_unavailable", vault: this.options.name, reason });
      return new UnavailableHistory(reason);
    }
  }

  private attach(): void {
    const { app } = this.options;
    const onFile = (file: TAbstractFile): void => this.noteChange(file.path, false);
    this.refs.push(
      { source: "vault", ref: app.vault.on("create", onFile) },
      { source: "vault", ref: app.vault.on("modify", onFile) },
      { source: "vault", ref: app.vault.on("delete", onFile) },
      {
        source: "vault",
        ref: app.vault.on("rename", (file: TAbstractFile, oldPath: string) => {
          this.noteChange(oldPath, false);
          this.noteChange(file.path, false);
        }),
      },
      {
        source: "metadata",
        ref: app.metadataCache.on("changed", (file: TFile) => this.noteChange(file.path, true)),
      },
      {
        source: "metadata",
        ref: app.metadataCache.on("resolved", () => this.engine.invalidateLinks()),
      },
    );
  }

  private noteChange(vaultPath: string, reparsed: boolean): void {
    const relative = this.scope.fromVault(vaultPath);
    if (relative === null || relative === "") return;
    (reparsed ? this.reparsed : this.changed).add(relative);
    if (this.batchTimer === null) this.batchTimer = window.setTimeout(() => this.flushChanges(), CHANGE_BATCH_MS);
  }

  private flushChanges(): void {
    this.batchTimer = null;
    const changed = [...this.changed];
    const reparsed = [...this.reparsed].filter((path) => !this.changed.has(path));
    this.changed.clear();
    this.reparsed.clear();
    this.work = this.work.then(async () => {
      try {
        if (changed.length > 0) await this.engine.applyChanges(changed);
        // Same bytes as indexed, new metadata: only the note's structure needs taking in again.
        if (reparsed.length > 0) await this.engine.reingest(reparsed);
      } catch (error) {
        this.options.logger.log({ level: "warn", event: "index_update_failed", vault: this.name, reason: describeFailure(error) });
      }
      this.schedulePersist();
    });
  }

  private schedulePersist(): void {
    if (!this.engine.needsPersist) return;
    if (this.persistTimer !== null) window.clearTimeout(this.persistTimer);
    this.persistTimer = window.setTimeout(() => {
      this.persistTimer = null;
      this.work = this.work.then(() => this.persistNow());
    }, this.options.persistDelayMs ?? DEFAULT_PERSIST_DELAY_MS);
  }

  private async persistNow(): Promise<void> {
    if (!this.engine.needsPersist) return;
    try {
      await this.engine.persist();
    } catch (error) {
      this.options.logger.log({ level: "warn", event: "index_persist_failed", vault: this.name, reason: describeFailure(error) });
    }
  }

  /** Resolves once every change seen so far is in the index (commands and tests). */
  async idle(): Promise<void> {
    if (this.batchTimer !== null) {
      window.clearTimeout(this.batchTimer);
      this.flushChanges();
    }
    await this.work;
  }

  /** Rebuilds the index from the files (the reindex command); `progress` hears done/total. */
  async rebuild(progress?: (done: number, total: number) => void): Promise<ReconcileReport> {
    await this.idle();
    const run = this.work.then(() => this.engine.rebuild(progress));
    this.work = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Stops following events and writes what is not persisted yet. */
  async stop(): Promise<void> {
    const { app } = this.options;
    for (const { source, ref } of this.refs) (source === "vault" ? app.vault : app.metadataCache).offref(ref);
    this.refs.length = 0;
    this.metadata.detach();
    if (this.batchTimer !== null) {
      window.clearTimeout(this.batchTimer);
      this.flushChanges();
    }
    if (this.persistTimer !== null) {
      window.clearTimeout(this.persistTimer);
      this.persistTimer = null;
    }
    await this.work;
    if (this.started) await this.persistNow();
    this.started = false;
    await this.history?.close?.();
  }
}
