// Wires one vault folder to the engine on Node: fs vault, parsed metadata, a snapshot store in the
// data folder, the watcher, and a quiet-period persist so that bursts of edits write one snapshot.
import { describeFailure } from "../../core/errors";
import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Engine, type ReconcileReport } from "../../core/vault/engine";
import type { HistoryPort, Logger } from "../../core/ports";
import { WorkerBinaryReader } from "./binary-reader";
import { WorkerBulkIngest } from "./bulk-ingest";
import { DataFolderLock, processRunning } from "./data-lock";
import { FsVault } from "./fs-vault";
import { FsWriter } from "./fs-writer";
import { openHistory, type RemotePush } from "./history";
import { FileIndexStore } from "./index-store";
import { NodeMetadata } from "./node-metadata";
import { nodeHasher, setImmediateYielder, systemClock } from "./services";
import { FileTransactionStore } from "./transaction-store";
import { VaultWatcher } from "./watcher";
import type { TransactionEvent } from "../../core/write/transaction";
import { OpenAICompatibleProvider, type EmbeddingProvider } from "../../core/search/semantic/provider";
import type { OnDeviceModel } from "../../core/search/semantic/on-device-models";
import { OnDeviceProvider } from "./on-device-provider";
import { nodeHttpPost } from "./http-post";
import type { FusionWeights } from "../../core/search/fusion";

/** An OpenAI-compatible /v1/embeddings endpoint for semantic search. */
export interface EmbeddingSettings {
  url: string;
  model: string;
  apiKey?: string;
  batchSize?: number;
  timeoutMs?: number;
  requestsPerMinute?: number;
  /** Put before questions / note passages (e5 models want "query: " / "passage: "); none when unset. */
  queryPrefix?: string;
  passagePrefix?: string;
}

/** A model run on this machine from files a download verified into `modelsFolder`. */
export interface OnDeviceEmbeddingSettings {
  kind: "on-device";
  model: OnDeviceModel;
  modelsFolder: string;
  batchSize?: number;
  /** How to download the model, said in vault_list while it is missing. */
  downloadHint?: string;
}

export function embeddingProvider(settings: EmbeddingSettings | OnDeviceEmbeddingSettings): EmbeddingProvider {
  if ("kind" in settings) {
    return new OnDeviceProvider({
      model: settings.model,
      modelsFolder: settings.modelsFolder,
      ...(settings.batchSize !== undefined ? { batchSize: settings.batchSize } : {}),
      ...(settings.downloadHint !== undefined ? { downloadHint: settings.downloadHint } : {}),
    });
  }
  return new OpenAICompatibleProvider({ ...settings, post: nodeHttpPost, sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) });
}

/** A timer that does not keep the process alive: a retry must not hold a stopping server up. */
function schedule(ms: number, task: () => void): () => void {
  const timer = setTimeout(task, ms);
  timer.unref();
  return () => clearTimeout(timer);
}

/** How often the vault is stat'ed for changes the watcher missed (at the least; see RECHECK_CPU_SHARE). */
export const RECHECK_INTERVAL_MS = 30_000;
/** The periodic check keeps to this share of the time: a check taking 1 s runs every 100 s. */
export const RECHECK_CPU_SHARE = 0.01;
/** How often the vault folder itself is looked for (one stat): a folder moved back is served within this. */
export const ROOT_CHECK_MS = 1000;

export interface NodeVaultOptions {
  name: string;
  root: string;
  /** Folder for this server's own state (index snapshots); must lie outside the vault. */
  dataDir: string;
  /**
   * Whether this process takes the vault's data folder for itself (data-lock.ts), as `serve` and
   * `reindex` do; false for `serve --stdio`, of which each client starts its own, for the same folder.
   */
  exclusive?: boolean;
  logger: Logger;
  watch?: boolean;
  trashRetentionDays?: number;
  /** Quiet time after the last change before the snapshot is rewritten. */
  persistDelayMs?: number;
  /** The least time between two periodic checks (RECHECK_INTERVAL_MS when unset). */
  recheckIntervalMs?: number;
  /** The private history (SPEC §9), in the data folder; on unless false. */
  history?: boolean | { author?: { name: string; email: string }; push?: RemotePush };
  /** Worker threads for a large build (one per core but one when unset); 0 builds in the main thread. */
  ingestWorkers?: number;
  /** Semantic search through this endpoint; absent: lexical search only. */
  embeddings?: EmbeddingSettings | OnDeviceEmbeddingSettings;
  /** How hybrid search weighs its parts (fusion.ts); the defaults when absent. */
  fusionWeights?: FusionWeights;
  /** Hears each durable step of a vault-wide change (tests); default: the crash hook below, when its variable is set. */
  onTransactionEvent?: (event: TransactionEvent) => void;
}

export function defaultDataDir(): string {
  const base = process.env.XDG_DATA_HOME || path.join(os.homedir(), ".local", "share");
  return path.join(base, "secondbrain-mcp");
}

/** A folder per vault, keyed by name and root so two vaults of the same name never share an index. */
/** The folder of the data folder that holds one folder per vault (vaultDataDir). */
export const VAULTS_FOLDER = "vaults";

export function vaultDataDir(dataDir: string, name: string, root: string): string {
  const digest = createHash("sha256").update(path.resolve(root)).digest("hex").slice(0, 10);
  return path.join(dataDir, VAULTS_FOLDER, `${name}-${digest}`);
}

/**
 * Test-only crash hook of the transaction crash test: with SECONDBRAIN_TEST_SIGKILL_AT_TXN_EVENT=N the
 * process kills itself with SIGKILL at the N-th durable event of its vault-wide changes (1: the journal
 * is saved, then one per file changed, then "applied", then "committed"). Unset, as in every real
 * deployment, it does nothing.
 */
function crashHookFromEnvironment(): ((event: TransactionEvent) => void) | undefined {
  const at = Number(process.env.SECONDBRAIN_TEST_SIGKILL_AT_TXN_EVENT);
  if (!Number.isSafeInteger(at) || at < 1) return undefined;
  let seen = 0;
  return () => {
    seen += 1;
    if (seen === at) process.kill(process.pid, "SIGKILL");
  };
}

const crashHook = crashHookFromEnvironment();

export function assertOutsideVault(dataDir: string, root: string): void {
  const relative = path.relative(path.resolve(root), path.resolve(dataDir));
  const inside = relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
  if (inside && !relative.split(path.sep).some((segment) => segment.startsWith("."))) {
    throw new Error(
      `The data folder ${dataDir} is inside the vault ${root}; its index files would show up as notes. Pass --data with a folder outside the vault.`,
    );
  }
}

export class NodeVaultHost {
  readonly engine: Engine;
  readonly vault: FsVault;
  readonly writer: FsWriter;
  private readonly options: NodeVaultOptions;
  private watcher: VaultWatcher | null = null;
  private persistTimer: NodeJS.Timeout | null = null;
  private persisting: Promise<void> = Promise.resolve();
  private history: (HistoryPort & { close?(): Promise<void>; idle?(): Promise<void> }) | null = null;
  /** Index work from the watcher, the periodic check and the vault folder's return, in order. */
  private work: Promise<void> = Promise.resolve();
  private recheckTimer: NodeJS.Timeout | null = null;
  private rootTimer: NodeJS.Timeout | null = null;
  private rootIno: number | null = null;
  private stopping = false;
  private readonly binary = new WorkerBinaryReader();
  private lock: DataFolderLock | null = null;

  constructor(options: NodeVaultOptions) {
    assertOutsideVault(options.dataDir, options.root);
    this.options = options;
    this.vault = new FsVault(options.root, options.name);
    this.writer = new FsWriter(this.vault, nodeHasher);
    const onTransactionEvent = options.onTransactionEvent ?? crashHook;
    this.engine = new Engine({
      writer: this.writer,
      trashRetentionDays: options.trashRetentionDays,
      name: options.name,
      vault: this.vault,
      metadata: new NodeMetadata({ readNote: (path) => this.vault.readTextSync(path) }),
      store: new FileIndexStore(vaultDataDir(options.dataDir, options.name, options.root)),
      transactions: new FileTransactionStore(path.join(vaultDataDir(options.dataDir, options.name, options.root), "transactions")),
      ...(onTransactionEvent ? { onTransactionEvent } : {}),
      ...(options.embeddings ? { embeddings: embeddingProvider(options.embeddings) } : {}),
      ...(options.fusionWeights ? { fusionWeights: options.fusionWeights } : {}),
      schedule,
      hasher: nodeHasher,
      clock: systemClock,
      logger: options.logger,
      yielder: setImmediateYielder,
      ...(WorkerBinaryReader.available() ? { binary: this.binary } : {}),
      ...(options.ingestWorkers !== 0 && WorkerBulkIngest.available()
        ? {
            bulk: new WorkerBulkIngest({
              root: this.vault.root,
              diskPath: (relative) => this.vault.diskPath(relative),
              vault: options.name,
              logger: options.logger,
              ...(options.ingestWorkers !== undefined ? { workers: options.ingestWorkers } : {}),
            }),
          }
        : {}),
    });
  }

  /**
   * `recover: false` leaves an interrupted vault-wide change for the next start that serves: `reindex`
   * runs without the history, and completing the change there would lose its summary commit.
   */
  async start(options: { recover?: boolean } = {}): Promise<ReconcileReport> {
    if (this.options.exclusive !== false) this.lock = await DataFolderLock.take(vaultDataDir(this.options.dataDir, this.options.name, this.options.root), this.options.name, (reason) =>
      this.options.logger.log({ level: "warn", event: "data_folder_unlocked", vault: this.options.name, reason }),
    );
    const stale = await this.writer.removeStaleTempFiles();
    if (stale > 0) this.options.logger.log({ level: "info", event: "temp_files_removed", vault: this.options.name, count: stale });
    const report = await this.engine.start();
    if (this.options.history !== false) {
      const settings = typeof this.options.history === "object" ? this.options.history : {};
      this.history = await openHistory({
        vault: this.options.name,
        root: this.vault.root,
        gitdir: path.join(vaultDataDir(this.options.dataDir, this.options.name, this.options.root), "history.git"),
        logger: this.options.logger,
        clock: systemClock,
        ...(settings.author ? { author: settings.author } : {}),
        ...(settings.push ? { push: settings.push } : {}),
        baseline: () => Promise.resolve(this.engine.files().map((file) => file.path)),
        // Holding the data folder's lock, no other process of ours commits to this history.
        exclusive: this.lock?.held === true,
        // Several stdio processes of one folder each keep their own crash records; any process
        // recovers those of one that is gone.
        intentOwners: {
          ...(this.options.exclusive === false ? { self: `p${process.pid}` } : {}),
          running: (owner) => /^p\d+$/.test(owner) && processRunning(Number(owner.slice(1))),
        },
        vaultFiles: { entry: (relative) => this.vault.historyEntry(relative) },
      });
      this.engine.attachHistory(this.history);
    }
    // Before the first tool call: a change a crash interrupted is completed (and committed) or undone.
    if (options.recover !== false) await this.engine.recoverTransactions();
    if (this.options.watch !== false) {
      await this.startWatcher();
      this.rootIno = this.rootIdentity();
      this.rootTimer = setInterval(() => this.checkRoot(), ROOT_CHECK_MS);
      this.rootTimer.unref();
      this.scheduleRecheck(this.recheckInterval);
    }
    return report;
  }

  private get recheckInterval(): number {
    return this.options.recheckIntervalMs ?? RECHECK_INTERVAL_MS;
  }

  private async startWatcher(): Promise<void> {
    const watcher = new VaultWatcher({
      root: this.vault.root,
      isKnown: (path) => this.engine.file(path) !== undefined,
      onChanges: (paths) =>
        this.serial(async () => {
          await this.engine.applyChanges(paths);
          this.schedulePersist();
        }),
      onBurst: () => this.serial(() => this.reconcile("burst")),
      onError: (error) =>
        this.options.logger.log({
          level: "warn",
          event: "watcher_error",
          vault: this.options.name,
          reason: describeFailure(error),
        }),
    });
    this.watcher = watcher;
    await watcher.start();
  }

  /** Index work from outside changes, one piece at a time; a failure is logged, never thrown. */
  private serial(task: () => Promise<void>): Promise<void> {
    const next = this.work.then(task).catch((error: unknown) => {
      this.options.logger.log({ level: "warn", event: "index_update_failed", vault: this.options.name, reason: error instanceof Error ? error.message : String(error) });
    });
    this.work = next;
    return next;
  }

  private async reconcile(reason: string): Promise<void> {
    const report = await this.engine.reconcile();
    this.options.logger.log({ level: "info", event: "index_reconciled", vault: this.options.name, reason, ...report });
    this.schedulePersist();
  }

  /**
   * The periodic check behind the watcher (events get lost: a full kernel queue, a folder over the
   * system's watch limit). It stats every file, so on a vault large enough for that to cost, it runs
   * less often, keeping to RECHECK_CPU_SHARE of the time.
   */
  private scheduleRecheck(delay: number): void {
    this.recheckTimer = setTimeout(() => {
      this.recheckTimer = null;
      void this.serial(async () => {
        if (this.stopping || !this.vault.present()) return;
        const started = Date.now();
        const report = await this.engine.recheck();
        const took = Date.now() - started;
        this.options.logger.log({ level: "debug", event: "index_rechecked", vault: this.options.name, duration_ms: took, changed: report !== null });
        if (report) {
          this.options.logger.log({ level: "info", event: "index_reconciled", vault: this.options.name, reason: "recheck", ...report, duration_ms: took });
          this.schedulePersist();
        }
        delay = Math.max(this.recheckInterval, took / RECHECK_CPU_SHARE);
      }).then(() => {
        if (!this.stopping) this.scheduleRecheck(delay);
      });
    }, delay);
    this.recheckTimer.unref();
  }

  /** The vault folder's inode, or null while it is missing. */
  private rootIdentity(): number | null {
    try {
      const stats = statSync(this.vault.root, { throwIfNoEntry: false });
      return stats?.isDirectory() ? stats.ino : null;
    } catch {
      return null;
    }
  }

  /**
   * Follows the vault folder itself: while it is missing, the watches are dropped (they would follow
   * the folder to wherever it was moved) and the index is kept as it was; when it is back, or another
   * folder took its place, it is watched anew and reconciled.
   */
  private checkRoot(): void {
    if (this.stopping) return;
    const ino = this.rootIdentity();
    if (ino === this.rootIno) return;
    const wasMissing = this.rootIno === null;
    this.rootIno = ino;
    this.vault.forgetRealRoot();
    // Stopped outside the queue: stopping waits for the watcher's last changes, which queue there.
    void this.watcher?.stop();
    this.watcher = null;
    if (ino === null) {
      this.options.logger.log({ level: "warn", event: "vault_folder_missing", vault: this.options.name });
      return;
    }
    if (wasMissing) this.options.logger.log({ level: "info", event: "vault_folder_restored", vault: this.options.name });
    void this.serial(async () => {
      if (this.stopping || this.rootIno !== ino) return;
      await this.startWatcher();
      await this.reconcile(wasMissing ? "folder_restored" : "folder_replaced");
    });
  }

  private schedulePersist(): void {
    if (!this.engine.needsPersist) return;
    if (this.persistTimer) clearTimeout(this.persistTimer);
    this.persistTimer = setTimeout(() => {
      this.persistTimer = null;
      this.persisting = this.persisting.then(() => this.persistNow());
    }, this.options.persistDelayMs ?? 2000);
  }

  private async persistNow(): Promise<void> {
    if (!this.engine.needsPersist) return;
    try {
      await this.engine.persist();
    } catch (error) {
      this.options.logger.log({
        level: "warn",
        event: "index_persist_failed",
        vault: this.options.name,
        reason: describeFailure(error),
      });
    }
  }

  /** Waits for the history's queued work: the first snapshot, commits, a push (tests). */
  async historyIdle(): Promise<void> {
    await this.history?.idle?.();
  }

  /** Waits until outside changes seen so far are applied (tests and shutdown). */
  async idle(): Promise<void> {
    await this.watcher?.idle();
    await this.work;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.rootTimer) clearInterval(this.rootTimer);
    if (this.recheckTimer) clearTimeout(this.recheckTimer);
    await this.work;
    await this.watcher?.stop();
    this.watcher = null;
    await this.work;
    if (this.persistTimer) {
      clearTimeout(this.persistTimer);
      this.persistTimer = null;
    }
    await this.persisting;
    await this.persistNow();
    this.engine.close();
    await this.binary.close();
    await this.history?.close?.();
    await this.lock?.release();
    this.lock = null;
  }
}

