// The Node host's reader of PDFs and images: worker threads (binary-worker.ts) do the parsing, each job
// under a time limit and a heap limit, so a PDF bomb costs a worker, stopped and replaced, and the
// engine's thread keeps answering meanwhile. Images already within the limits never leave this thread.
import { Worker } from "node:worker_threads";
import { ToolError } from "../../core/errors";
import type { BinaryReaderPort, PdfPagesRequest } from "../../core/formats/binary";
import { DEFAULT_IMAGE_LIMITS, unchangedImage, type ImageLimits, type PreparedImage } from "../../core/formats/image-info";
import { deserializeToolError, type PdfText, type SerializedToolError } from "../../core/formats/pdf";
import { workerEntry } from "./worker-entry";

export type BinaryJob =
  | { id: number; kind: "pdf"; bytes: Uint8Array; path: string; request: PdfPagesRequest }
  | { id: number; kind: "image"; bytes: Uint8Array; path: string; limits: ImageLimits };

export type BinaryReply =
  | { id: number; begin: true }
  | { id: number; pdf: PdfText }
  | { id: number; image: PreparedImage }
  | { id: number; error: SerializedToolError }
  | { id: number; failure: string };

/** A job still running after this long is stopped with its worker. */
export const BINARY_JOB_TIMEOUT_MS = 30_000;
/** A worker that has not begun a job after this long (starting, loading pdf.js) is stopped too. */
const START_TIMEOUT_MS = 60_000;
/** Heap of one worker; typed arrays (decoded streams, pixels) are bounded by the readers' own limits. */
export const BINARY_WORKER_HEAP_MB = 512;
const MAX_WORKERS = 2;
/** An idle worker is kept this long for the next job: starting one loads pdf.js again. */
const IDLE_MS = 30_000;

interface Slot {
  worker: Worker;
  busy: boolean;
  idle?: NodeJS.Timeout;
}

type JobInput = BinaryJob extends infer J ? (J extends BinaryJob ? Omit<J, "id"> : never) : never;

export interface WorkerBinaryReaderOptions {
  timeoutMs?: number;
  heapMb?: number;
}

export class WorkerBinaryReader implements BinaryReaderPort {
  private readonly timeoutMs: number;
  private readonly heapMb: number;
  private readonly slots = new Set<Slot>();
  private readonly waiting: (() => void)[] = [];
  private nextId = 1;

  constructor(options: WorkerBinaryReaderOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? BINARY_JOB_TIMEOUT_MS;
    this.heapMb = options.heapMb ?? BINARY_WORKER_HEAP_MB;
  }

  static available(): boolean {
    return workerEntry("binary-worker") !== null;
  }

  async pdfText(bytes: Uint8Array, filePath: string, request: PdfPagesRequest): Promise<PdfText> {
    const reply = await this.run({ kind: "pdf", bytes, path: filePath, request });
    if (!("pdf" in reply)) throw new Error("the binary worker answered a PDF job with something else");
    return reply.pdf;
  }

  async image(bytes: Uint8Array, filePath: string, limits: ImageLimits = DEFAULT_IMAGE_LIMITS): Promise<PreparedImage> {
    const unchanged = unchangedImage(bytes, filePath, limits);
    if (unchanged) return unchanged;
    const reply = await this.run({ kind: "image", bytes, path: filePath, limits });
    if (!("image" in reply)) throw new Error("the binary worker answered an image job with something else");
    return reply.image;
  }

  async close(): Promise<void> {
    const slots = [...this.slots];
    this.slots.clear();
    await Promise.all(slots.map((slot) => this.stop(slot)));
  }

  private async stop(slot: Slot): Promise<void> {
    if (slot.idle) clearTimeout(slot.idle);
    this.slots.delete(slot);
    await slot.worker.terminate().catch(() => undefined);
    this.waiting.shift()?.();
  }

  private start(): Slot {
    const entry = workerEntry("binary-worker");
    if (!entry) throw new ToolError("unavailable", "PDF and image reading needs the binary worker, which is not built here; run npm run build.");
    const worker = new Worker(entry.file, {
      eval: entry.eval,
      resourceLimits: { maxOldGenerationSizeMb: this.heapMb, maxYoungGenerationSizeMb: 32 },
      stdout: true,
      stderr: true,
    });
    // pdf.js warns about fonts and such on the console; none of it is for the server's log.
    worker.stdout.resume();
    worker.stderr.resume();
    const slot: Slot = { worker, busy: false };
    this.slots.add(slot);
    return slot;
  }

  private async acquire(): Promise<Slot> {
    for (;;) {
      for (const slot of this.slots) {
        if (!slot.busy) {
          if (slot.idle) clearTimeout(slot.idle);
          slot.idle = undefined;
          slot.busy = true;
          slot.worker.ref();
          return slot;
        }
      }
      if (this.slots.size < MAX_WORKERS) {
        const slot = this.start();
        slot.busy = true;
        return slot;
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  private release(slot: Slot): void {
    slot.busy = false;
    slot.worker.unref();
    slot.idle = setTimeout(() => void this.stop(slot), IDLE_MS);
    slot.idle.unref();
    this.waiting.shift()?.();
  }

  private async run(input: JobInput): Promise<BinaryReply> {
    const slot = await this.acquire();
    const id = this.nextId++;
    const job = { ...input, id };
    const seconds = Math.round(this.timeoutMs / 100) / 10;
    return new Promise<BinaryReply>((resolve, reject) => {
      let settled = false;
      const finish = (outcome: () => void, keep: boolean): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        slot.worker.off("message", onMessage);
        slot.worker.off("error", onError);
        slot.worker.off("exit", onExit);
        if (keep) this.release(slot);
        else void this.stop(slot);
        outcome();
      };
      const onMessage = (reply: BinaryReply): void => {
        if (reply.id !== id) return;
        if ("begin" in reply) {
          clearTimeout(timer);
          timer = setTimeout(onTimeout, this.timeoutMs);
        } else if ("error" in reply) finish(() => reject(deserializeToolError(reply.error)), true);
        else if ("failure" in reply) finish(() => reject(new Error(`reading ${input.kind} failed in the binary worker: ${reply.failure}`)), true);
        else finish(() => resolve(reply), true);
      };
      const onError = (error: Error & { code?: string }): void => {
        const memory = error.code === "ERR_WORKER_OUT_OF_MEMORY";
        finish(
          () =>
            reject(
              memory
                ? new ToolError("too_large", `Reading "${input.path}" needed more than ${this.heapMb} MB and was stopped; the file may be built to expand when parsed. Ask for fewer pages, or open it in Obsidian.`, {
                    details: { path: input.path, limit_mb: this.heapMb },
                  })
                : error,
            ),
          false,
        );
      };
      const onExit = (): void => finish(() => reject(new Error("the binary worker exited during a job")), false);
      const onTimeout = (): void => {
        finish(
          () =>
            reject(
              new ToolError(
                "too_large",
                `Reading "${input.path}" took longer than ${seconds} s and was stopped; the file may be built to be slow to parse. Ask for fewer pages, or open it in Obsidian.`,
                { details: { path: input.path, limit_ms: this.timeoutMs } },
              ),
            ),
          false,
        );
      };
      let timer = setTimeout(onTimeout, Math.max(START_TIMEOUT_MS, this.timeoutMs));
      slot.worker.on("message", onMessage);
      slot.worker.on("error", onError);
      slot.worker.on("exit", onExit);
      slot.worker.postMessage(job);
    });
  }
}
