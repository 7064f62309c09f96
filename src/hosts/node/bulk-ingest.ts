// The Node host's bulk ingest: worker threads read, parse and tokenize the files of a large build
// (ingest-worker.ts) while the engine's thread only appends their batches to the index. On two cores
// that halves a cold build; the engine's thread stays free to answer meanwhile.
import { realpathSync } from "node:fs";
import os from "node:os";
import { Worker } from "node:worker_threads";
import type { BulkIngestPort, FileStat, IngestedBatch, IngestedFile, Logger } from "../../core/ports";
import type { IndexBatch } from "../../core/search/index-builder";
import { workerEntry } from "./worker-entry";

/** Files per job: a batch large enough to append each term's postings a run at a time. */
const JOB_FILES = 256;
/** Jobs queued per worker, so that none waits for the next while the engine appends a batch. */
const JOBS_AHEAD = 2;
const MAX_WORKERS = 4;

export interface IngestJob {
  job: number;
  paths: string[];
  /** The same paths with their names on disk, where some differ (another Unicode form than NFC). */
  disk?: string[];
}

export type WorkerReply = { job: number; files: IngestedFile[]; index: IndexBatch } | { job: number; error: string };

export class WorkerBulkIngest implements BulkIngestPort {
  private readonly root: string;
  private readonly logger: Logger;
  private readonly vault: string;
  private readonly workers: number;

  private readonly diskPath: (path: string) => string;

  constructor(options: { root: string; vault: string; logger: Logger; workers?: number; diskPath?: (path: string) => string }) {
    this.root = options.root;
    this.diskPath = options.diskPath ?? ((relative) => relative);
    this.vault = options.vault;
    this.logger = options.logger;
    // One core stays with the engine's thread: it appends the batches and answers meanwhile, and
    // sharing a core with a worker held its event loop up to twice as long.
    this.workers = options.workers ?? Math.min(MAX_WORKERS, Math.max(1, os.availableParallelism() - 1));
  }

  /** Null when no worker can be started here. */
  static available(): boolean {
    return workerEntry("ingest-worker") !== null;
  }

  async ingest(files: readonly FileStat[], onBatch: (batch: IngestedBatch) => Promise<void>): Promise<void> {
    const entry = workerEntry("ingest-worker");
    if (!entry) throw new Error("The ingest worker is not built; run npm run build.");
    const jobs: string[][] = [];
    for (let at = 0; at < files.length; at += JOB_FILES) jobs.push(files.slice(at, at + JOB_FILES).map((file) => file.path));
    const count = Math.max(1, Math.min(this.workers, jobs.length));
    const started = Date.now();
    const realRoot = realpathSync.native(this.root);
    let next = 0;
    let failure: Error | null = null;
    // The engine's thread appends one batch at a time, in arrival order.
    let appending: Promise<void> = Promise.resolve();
    const runWorker = (builder: number): Promise<void> =>
      new Promise<void>((resolve, reject) => {
        const worker = new Worker(entry.file, { eval: entry.eval, workerData: { root: this.root, realRoot } });
        let inFlight = 0;
        let settled = false;
        const finish = (error: Error | null): void => {
          if (settled) return;
          settled = true;
          void worker.terminate();
          if (error) reject(error);
          else resolve();
        };
        const send = (): void => {
          while (failure === null && inFlight < JOBS_AHEAD && next < jobs.length) {
            const paths = jobs[next]!;
            const disk = paths.map(this.diskPath);
            const job: IngestJob = { job: next, paths, ...(disk.some((name, at) => name !== paths[at]) ? { disk } : {}) };
            next += 1;
            inFlight += 1;
            worker.postMessage(job);
          }
          if (inFlight === 0) finish(failure);
        };
        worker.on("message", (reply: WorkerReply) => {
          inFlight -= 1;
          if ("error" in reply) {
            failure ??= new Error(`Ingest worker failed: ${reply.error}`);
            finish(failure);
            return;
          }
          appending = appending.then(() => (failure ? undefined : onBatch({ builder, files: reply.files, index: reply.index })));
          appending.then(send, (error: unknown) => {
            failure ??= error instanceof Error ? error : new Error(String(error));
            finish(failure);
          });
        });
        worker.on("error", (error) => {
          failure ??= error;
          finish(error);
        });
        worker.on("exit", () => finish(failure ?? (inFlight > 0 ? new Error("Ingest worker exited early.") : null)));
        send();
      });
    await Promise.all(Array.from({ length: count }, (_, builder) => runWorker(builder)));
    await appending;
    this.logger.log({ level: "debug", event: "bulk_ingest", vault: this.vault, files: files.length, workers: count, duration_ms: Date.now() - started });
  }
}
