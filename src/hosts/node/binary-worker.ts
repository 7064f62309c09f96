// The worker thread of the Node host's binary reader (binary-reader.ts): parses PDFs and scales
// images, so that a file crafted to take long or much memory holds this thread, which the engine
// can stop, and never the engine's.
import { parentPort } from "node:worker_threads";
import { isToolError } from "../../core/errors";
import { prepareImage } from "../../core/formats/image";
import { extractPdfText, PDF_TIME_BUDGET_MS, serializeToolError, type PdfJsLike } from "../../core/formats/pdf";
import type { BinaryJob, BinaryReply } from "./binary-reader";

let pdfjs: Promise<PdfJsLike> | null = null;

async function run(job: BinaryJob): Promise<BinaryReply> {
  try {
    // The job's time limit starts now, once pdf.js is loaded: a worker's start is not the file's doing.
    // unpdf's build of pdf.js carries its worker inline and runs it in this thread: no worker file.
    if (job.kind === "pdf") pdfjs ??= import("unpdf/pdfjs");
    if (pdfjs) await pdfjs;
    parentPort?.postMessage({ id: job.id, begin: true } satisfies BinaryReply);
    if (job.kind === "image") {
      const image = prepareImage(job.bytes, job.path, job.limits);
      return { id: job.id, image };
    }
    pdfjs ??= import("unpdf/pdfjs");
    const text = await extractPdfText(await pdfjs, job.bytes, job.path, { ...job.request, budget_ms: PDF_TIME_BUDGET_MS }, () => Date.now());
    return { id: job.id, pdf: text };
  } catch (error) {
    if (isToolError(error)) return { id: job.id, error: serializeToolError(error) };
    return { id: job.id, failure: error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 300) : "unknown failure" };
  }
}

parentPort?.on("message", (job: BinaryJob) => {
  void run(job).then((reply) => {
    const transfer = "image" in reply && reply.image.resized ? [reply.image.data.buffer as ArrayBuffer] : [];
    parentPort?.postMessage(reply, transfer);
  });
});
