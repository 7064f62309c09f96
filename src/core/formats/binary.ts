// The readers of binary attachments (PDF, images) behind one port, so a host can run them where a
// hostile file cannot hold the engine's thread: the Node host in a worker thread it can stop, the
// Obsidian host through the app's own pdf.js (which parses in its worker).
import { DEFAULT_IMAGE_LIMITS, type ImageLimits, type PreparedImage } from "./image-info";
import { prepareImage } from "./image";
import { extractPdfText, PDF_TIME_BUDGET_MS, type PdfJsLike, type PdfText } from "./pdf";

export interface PdfPagesRequest {
  /** 1-based, inclusive. */
  first_page: number;
  last_page: number;
  /** Stop after the page that brings the text to this many characters: more would not fit the response. */
  max_chars?: number;
}

export interface BinaryReaderPort {
  /** Page count, title and the text of a page range of a PDF (see extractPdfText for the limits). */
  pdfText(bytes: Uint8Array, path: string, request: PdfPagesRequest): Promise<PdfText>;
  /** The image ready to send to a multimodal client (see prepareImage for the limits). */
  image(bytes: Uint8Array, path: string, limits?: ImageLimits): Promise<PreparedImage>;
  /** Stops whatever the reader started (threads, workers); later calls start anew. */
  close?(): Promise<void>;
}

/**
 * Runs the readers on the caller's thread: for tests, and for hosts whose pdf.js parses elsewhere
 * anyway. `loadPdfJs` is called once, on the first PDF.
 */
export function inlineBinaryReader(loadPdfJs: () => Promise<PdfJsLike>, now: () => number): BinaryReaderPort {
  let pdfjs: Promise<PdfJsLike> | null = null;
  return {
    async pdfText(bytes, path, request) {
      pdfjs ??= loadPdfJs();
      return extractPdfText(await pdfjs, bytes, path, { ...request, budget_ms: PDF_TIME_BUDGET_MS }, now);
    },
    image(bytes, path, limits = DEFAULT_IMAGE_LIMITS) {
      return Promise.resolve().then(() => prepareImage(bytes, path, limits));
    },
  };
}
