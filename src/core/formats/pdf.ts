// PDF text by page. pdf.js comes in from the host (the Node host loads unpdf's build in a worker thread,
// tests load it directly), so this module stays free of it and of any thread or clock of its own.
import { ToolError } from "../errors";

/** Files larger than this are not parsed: pdf.js holds the whole file, and more, in memory. */
export const PDF_MAX_BYTES = 64 * 1024 * 1024;
/** Pages one call extracts at most; a range continues from next_page. */
export const PDF_MAX_PAGES = 20;
/** Characters kept of one page: a page of generated text can hold millions. */
export const PDF_PAGE_CHAR_LIMIT = 200_000;
/** Time one call spends extracting before it stops after the current page and says where to go on. */
export const PDF_TIME_BUDGET_MS = 5_000;

/** The part of pdf.js this module calls; unpdf's serverless build and pdfjs-dist both have it. */
export interface PdfJsPage {
  getTextContent(): Promise<{ items: readonly unknown[] }>;
  cleanup(): unknown;
}
export interface PdfJsDocument {
  numPages: number;
  getPage(pageNumber: number): Promise<PdfJsPage>;
  getMetadata(): Promise<{ info?: unknown }>;
}
export interface PdfJsLike {
  getDocument(source: {
    data: Uint8Array;
    isEvalSupported: boolean;
    useSystemFonts: boolean;
    disableFontFace: boolean;
    stopAtErrors: boolean;
    verbosity: number;
  }): { promise: Promise<PdfJsDocument>; destroy(): Promise<unknown> };
}

export interface PdfTextRequest {
  /** 1-based, inclusive. */
  first_page: number;
  last_page: number;
  /** Wall-clock budget in ms; the host's clock is passed in as `now`. */
  budget_ms: number;
  /** Stop after the page that brings the text to this many characters (at least one page is read). */
  max_chars?: number;
}

export interface PdfPageText {
  page: number;
  text: string;
  /** Characters of the page's text before the per-page limit cut it. */
  chars: number;
  /** Present when the page's text was longer than PDF_PAGE_CHAR_LIMIT and was cut there. */
  cut?: true;
}

export interface PdfText {
  page_count: number;
  title?: string;
  author?: string;
  pages: PdfPageText[];
  /** The page to ask for next when the requested range was not finished (page or time limit). */
  next_page?: number;
}

/** A plain object that can cross a worker boundary and become the same ToolError again. */
export interface SerializedToolError {
  code: ToolError["code"];
  message: string;
  details?: Record<string, unknown>;
}

function errorName(error: unknown): string {
  return typeof error === "object" && error !== null && typeof (error as { name?: unknown }).name === "string" ? (error as { name: string }).name : "";
}

/** pdf.js's exceptions as instructions; anything else is left to the caller's internal-error path. */
export function pdfError(error: unknown, path: string): ToolError | null {
  const name = errorName(error);
  if (name === "PasswordException") {
    return new ToolError("unsupported", `"${path}" is an encrypted PDF that needs a password; it cannot be read here. Ask the user for an unprotected copy.`, {
      details: { path, reason: "encrypted" },
    });
  }
  if (name === "InvalidPDFException" || name === "FormatError" || name === "UnknownErrorException" || name === "MissingPDFException") {
    return new ToolError("unsupported", `"${path}" is not a readable PDF (the file is damaged or not a PDF at all). Check it in a PDF viewer, or replace it.`, {
      details: { path, reason: "damaged" },
    });
  }
  return null;
}

function infoString(info: unknown, key: string): string | undefined {
  if (typeof info !== "object" || info === null) return undefined;
  const value = (info as Record<string, unknown>)[key];
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  return trimmed === "" ? undefined : trimmed.slice(0, 500);
}

function pageText(items: readonly unknown[]): string {
  let text = "";
  for (const item of items) {
    if (typeof item !== "object" || item === null) continue;
    const { str, hasEOL } = item as { str?: unknown; hasEOL?: unknown };
    if (typeof str === "string") text += str;
    if (hasEOL === true) text += "\n";
    if (text.length > PDF_PAGE_CHAR_LIMIT * 2) break;
  }
  // A glyph without a Unicode mapping comes out as U+0000; the replacement character says so instead.
  return text.replaceAll(String.fromCharCode(0), "\uFFFD").replace(/[ \t]+\n/g, "\n").trim();
}

/** Checks a page range against the page count; throws instructions for a range outside it. */
export function checkPageRange(path: string, pageCount: number, first: number, last: number): void {
  if (first > pageCount) {
    throw new ToolError("invalid_argument", `"${path}" has ${pageCount} page${pageCount === 1 ? "" : "s"}; page ${first} does not exist. Ask for page 1 to ${pageCount}.`, {
      details: { path, page_count: pageCount, argument: "page" },
    });
  }
  if (last < first) {
    throw new ToolError("invalid_argument", `The last page (${last}) comes before the first (${first}); pass a last page of at least ${first}.`, {
      details: { path, argument: "last_page" },
    });
  }
}

/**
 * The text of pages first_page..last_page (at most PDF_MAX_PAGES of them, and only as many as the
 * time budget allows; next_page says where to go on). Encrypted and damaged files throw ToolErrors.
 */
export async function extractPdfText(pdfjs: PdfJsLike, bytes: Uint8Array, path: string, request: PdfTextRequest, now: () => number): Promise<PdfText> {
  if (bytes.length > PDF_MAX_BYTES) {
    throw new ToolError("too_large", `"${path}" is ${bytes.length} bytes; PDFs over ${PDF_MAX_BYTES} bytes are not parsed. Split it into smaller files.`, {
      details: { path, bytes: bytes.length, limit: PDF_MAX_BYTES },
    });
  }
  const started = now();
  // pdf.js may take over (transfer) the buffer it is given, and refuses a Node Buffer: a plain copy.
  const task = pdfjs.getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, useSystemFonts: false, disableFontFace: true, stopAtErrors: false, verbosity: 0 });
  let document: PdfJsDocument;
  try {
    document = await task.promise;
  } catch (error) {
    await task.destroy().catch(() => undefined);
    throw pdfError(error, path) ?? error;
  }
  try {
    const pageCount = document.numPages;
    const last = Math.min(request.last_page, pageCount);
    checkPageRange(path, pageCount, request.first_page, request.last_page);
    const metadata = await document.getMetadata().catch(() => ({ info: undefined }));
    const result: PdfText = { page_count: pageCount, pages: [] };
    const title = infoString(metadata.info, "Title");
    const author = infoString(metadata.info, "Author");
    if (title !== undefined) result.title = title;
    if (author !== undefined) result.author = author;
    let chars = 0;
    for (let page = request.first_page; page <= last; page += 1) {
      const enough = request.max_chars !== undefined && chars >= request.max_chars;
      if (result.pages.length >= PDF_MAX_PAGES || (result.pages.length > 0 && (enough || now() - started > request.budget_ms))) {
        result.next_page = page;
        break;
      }
      let text: string;
      try {
        const handle = await document.getPage(page);
        text = pageText((await handle.getTextContent()).items);
        handle.cleanup();
      } catch (error) {
        throw pdfError(error, path) ?? error;
      }
      const entry: PdfPageText = { page, text: text.slice(0, PDF_PAGE_CHAR_LIMIT), chars: text.length };
      if (text.length > PDF_PAGE_CHAR_LIMIT) entry.cut = true;
      result.pages.push(entry);
      chars += entry.text.length;
    }
    return result;
  } finally {
    // Destroying the loading task destroys the document and frees pdf.js's caches with it.
    await task.destroy().catch(() => undefined);
  }
}

export function serializeToolError(error: ToolError): SerializedToolError {
  return { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) };
}

export function deserializeToolError(error: SerializedToolError): ToolError {
  return new ToolError(error.code, error.message, error.details ? { details: error.details } : {});
}
