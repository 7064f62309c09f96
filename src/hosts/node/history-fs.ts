// The history's file system on Node and Electron: node:fs/promises, and the two steps the history takes
// for every object and crash record it writes and every folder it syncs (HistoryFs.placeSynced and
// syncPath) in fewer calls on the event loop's thread. In Electron (the plugin) through plain file
// descriptors, since a FileHandle costs more than the system calls it wraps; in the headless server
// through a worker thread that takes each step whole in blocking calls, one message per step.
import { close, fsync, open, promises, rename, unlink, write } from "node:fs";
import { Worker } from "node:worker_threads";
import type { HistoryFs } from "../../history/fenced-fs";
import { nativeDeflate } from "./git-codecs";
import { workerEntry } from "./worker-entry";

type HistoryFsStep = { op: "place"; temp: string; path: string; data: Uint8Array; deflate: boolean } | { op: "sync"; path: string };
export type HistoryFsJob = HistoryFsStep & { id: number };
export interface HistoryFsReply {
  id: number;
  error?: { message: string; code?: string };
}

function call<T>(start: (done: (error: NodeJS.ErrnoException | null, value: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => start((error, value) => (error ? reject(error) : resolve(value))));
}

/** Closes the descriptor after `use`, whose failure wins over a failure to close. */
async function withFd(path: string, flags: string, use: (fd: number) => Promise<void>): Promise<void> {
  const fd = await call<number>((done) => open(path, flags, done));
  try {
    await use(fd);
  } catch (error) {
    await call<void>((done) => close(fd, (failure) => done(failure, undefined))).catch(() => undefined);
    throw error;
  }
  await call<void>((done) => close(fd, (failure) => done(failure, undefined)));
}

async function placeThroughFd(temp: string, path: string, raw: Uint8Array, options?: { deflate?: boolean }): Promise<void> {
  const data = options?.deflate ? await nativeDeflate(raw) : raw;
  await withFd(temp, "wx", async (fd) => {
    for (let offset = 0; offset < data.byteLength; ) {
      offset += await call<number>((done) => write(fd, data, offset, data.byteLength - offset, null, done));
    }
    await call<void>((done) => fsync(fd, (failure) => done(failure, undefined)));
  });
  try {
    await call<void>((done) => rename(temp, path, (failure) => done(failure, undefined)));
  } catch (error) {
    await call<void>((done) => unlink(temp, (failure) => done(failure, undefined))).catch(() => undefined);
    throw error;
  }
}

function syncThroughFd(path: string): Promise<void> {
  return withFd(path, "r", (fd) => call<void>((done) => fsync(fd, (failure) => done(failure, undefined))));
}

/** For Electron's renderer, where worker threads are not available. */
export const fdHistoryFs: HistoryFs = {
  ...promises,
  placeSynced: placeThroughFd,
  syncPath: syncThroughFd,
};

/** One worker for every history of the process, started at the first step and holding the process only while a step is under way. */
class StepWorker {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(): void; reject(error: Error): void }>();
  private unavailable = false;

  run(job: HistoryFsStep): Promise<void> | null {
    const worker = this.start();
    if (!worker) return null;
    const id = this.nextId++;
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ ...job, id });
    });
  }

  private start(): Worker | null {
    if (this.worker || this.unavailable) return this.worker;
    const entry = workerEntry("history-fs-worker");
    if (!entry) {
      this.unavailable = true;
      return null;
    }
    const worker = new Worker(entry.file, { eval: entry.eval });
    worker.unref();
    worker.on("message", (reply: HistoryFsReply) => {
      const job = this.pending.get(reply.id);
      if (!job) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (reply.error) job.reject(Object.assign(new Error(reply.error.message), reply.error.code ? { code: reply.error.code } : {}));
      else job.resolve();
    });
    const fail = (error: Error): void => {
      if (this.worker === worker) this.worker = null;
      const jobs = [...this.pending.values()];
      this.pending.clear();
      for (const job of jobs) job.reject(error);
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`the history's file worker stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }
}

const steps = new StepWorker();

/** For the headless server: each step in the worker, or through file descriptors where the worker is not built. */
export const nodeHistoryFs: HistoryFs = {
  ...promises,
  placeSynced: (temp, path, data, options) => steps.run({ op: "place", temp, path, data, deflate: options?.deflate === true }) ?? placeThroughFd(temp, path, data, options),
  syncPath: (path) => steps.run({ op: "sync", path }) ?? syncThroughFd(path),
};
