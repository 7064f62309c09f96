// A worker thread of the bulk ingest (see bulk-ingest.ts): it reads the files of each job it is sent,
// parses and tokenizes them exactly as the engine would (core/vault/note-document.ts) and sends back
// one batch per job, its postings already grouped by term. Reading synchronously is right here: this
// thread has nothing else to do, and it spares the promise round trips of four calls per file.
import { closeSync, readFileSync } from "node:fs";
import path from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import { contentHash } from "../../core/notes/hash";
import { encodeMetadata } from "../../core/notes/metadata-codec";
import { extname } from "../../core/notes/paths";
import { parseNote, stripBom } from "../../core/notes/structure";
import type { IngestedFile } from "../../core/ports";
import { IndexBuilder } from "../../core/search/index-builder";
import { canvasDocument, linkpathsOf, noteDocument } from "../../core/vault/note-document";
import { factsRecord } from "../../core/vault/stored-facts";
import { ContainedFs, type OpenFolder } from "./contained-fs";
import { nodeHasher } from "./services";
import type { IngestJob, WorkerReply } from "./bulk-ingest";

const { root, realRoot } = workerData as { root: string; realRoot: string };
// The same checked opens as the engine's own reads (fs-vault.ts): a link swapped in leads no read out.
const contained = new ContainedFs(() => realRoot);
const builder = new IndexBuilder();
const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

// A job's files come sorted by path, so most share the folder of the one before: it stays open.
let open: { dir: string; folder: OpenFolder } | null = null;

function folderOf(dir: string): OpenFolder {
  if (open?.dir === dir) return open.folder;
  open?.folder.close();
  open = null;
  const folder = contained.resolveFolder(path.join(root, ...dir.split("/")));
  open = { dir, folder };
  return folder;
}

/** The file's bytes, read from what was opened inside the vault; `disk` is its path with the names on disk. */
function read(disk: string): Uint8Array {
  const slash = disk.lastIndexOf("/");
  const folder = folderOf(slash < 0 ? "" : disk.slice(0, slash));
  const fd = contained.openRead(folder, disk.slice(slash + 1)).fd;
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

function ingest(relative: string, disk: string): IngestedFile {
  let bytes: Uint8Array;
  try {
    bytes = read(disk);
  } catch {
    return { path: relative, hash: null };
  }
  const hash = contentHash(bytes, (data) => nodeHasher.sha256Hex(data));
  const text = stripBom(decoder.decode(bytes));
  if (extname(relative) !== "md") {
    const prepared = canvasDocument(relative, text);
    builder.addNote(prepared.doc);
    return { path: relative, hash, facts: factsRecord(relative, prepared.facts) };
  }
  const cache = parseNote(text);
  const prepared = noteDocument(relative, text, cache);
  builder.addNote(prepared.doc);
  return { path: relative, hash, facts: factsRecord(relative, prepared.facts), metadata: { links: linkpathsOf(cache), packed: encodeMetadata(cache) } };
}

/**
 * Moves the job's packed metadata into one buffer, each note's a view of it: the buffer is handed
 * over without a copy, where views of the codec's shared buffers would each be copied whole.
 */
function gatherMetadata(files: IngestedFile[]): ArrayBuffer {
  let total = 0;
  for (const file of files) total += file.metadata?.packed.length ?? 0;
  const gathered = new Uint8Array(total);
  let at = 0;
  for (const file of files) {
    if (!file.metadata) continue;
    const packed = file.metadata.packed;
    gathered.set(packed, at);
    file.metadata = { links: file.metadata.links, packed: gathered.subarray(at, at + packed.length) };
    at += packed.length;
  }
  return gathered.buffer;
}

parentPort!.on("message", (job: IngestJob) => {
  let reply: WorkerReply;
  try {
    let files: IngestedFile[];
    try {
      files = job.paths.map((relative, at) => ingest(relative, job.disk?.[at] ?? relative));
    } finally {
      open?.folder.close();
      open = null;
    }
    const index = builder.take();
    reply = { job: job.job, files, index };
    parentPort!.postMessage(reply, [index.lengths.buffer as ArrayBuffer, index.runs.buffer as ArrayBuffer, gatherMetadata(files)]);
  } catch (error) {
    reply = { job: job.job, error: error instanceof Error ? error.message : String(error) };
    parentPort!.postMessage(reply);
  }
});
