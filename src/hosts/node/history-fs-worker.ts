// The worker thread of the Node host's history file calls (history-fs.ts): each job is the whole of one
// durable step (deflate, create, write, sync, close, rename; or open, sync, close) in plain blocking calls, so
// the engine's thread pays one message for it instead of a round trip through libuv's pool per call.
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { parentPort } from "node:worker_threads";
import { deflateSync } from "node:zlib";
import { DEFLATE_LEVEL } from "./git-codecs";
import type { HistoryFsJob, HistoryFsReply } from "./history-fs";

function place(temp: string, target: string, data: Uint8Array): void {
  const fd = openSync(temp, "wx");
  try {
    try {
      for (let offset = 0; offset < data.byteLength; ) offset += writeSync(fd, data, offset, data.byteLength - offset);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, target);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // Already gone, or never made: nothing of this job is left either way.
    }
    throw error;
  }
}

function sync(target: string): void {
  const fd = openSync(target, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

parentPort?.on("message", (job: HistoryFsJob) => {
  let reply: HistoryFsReply;
  try {
    if (job.op === "place") place(job.temp, job.path, job.deflate ? deflateSync(job.data, { level: DEFLATE_LEVEL }) : job.data);
    else sync(job.path);
    reply = { id: job.id };
  } catch (error) {
    const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
    reply = { id: job.id, error: { message: error instanceof Error ? error.message : String(error), ...(typeof code === "string" ? { code } : {}) } };
  }
  parentPort?.postMessage(reply);
});
