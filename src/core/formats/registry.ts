// The readers attachment_read dispatches to, by file extension. A reader sees the file's bytes, the
// tool's positional arguments and a way to measure its answer against the response limit; it returns
// the structured answer, any images, and the arguments that continue the read. The tool around it
// resolves and checks the path, reads the bytes, adds vault/path/content_hash, and turns `next` into
// an opaque cursor bound to the content hash, so a reader never deals with paths, vaults or cursors.
//
// To add a format: write a FormatReader in this folder and list it in FORMAT_READERS (formats/index.ts).
// - `extensions` are lower-case, without the dot; one reader per extension (a second one is refused).
// - `read` must keep `fits(body)` true for the body it returns when it can (shrink the window: fewer
//   rows, fewer children, fewer pages) and say so in the body; the response is cut otherwise, which
//   loses the exact continuation. `fits` already counts the tool's own fields and a cursor.
// - Images go in `images` as base64 (see base64Of); they are sent as MCP image content after the text
//   and are NOT measured by `fits`: a reader that returns images keeps each under `imageBytes`
//   (resize or re-encode), and says in the body what it did.
// - `next` holds only the positional arguments that change (byte_offset, offset, pointer, pages); the
//   tool keeps the others (max_bytes, limit, page_images) from the call. Absent when nothing remains.
// - Errors are ToolErrors that say what to call instead (invalid JSON: the line and column).
// - Readers live in src/core: no Node built-ins, no `obsidian` (the layering test checks it).

import type { BinaryReaderPort } from "./binary";

/** The positional arguments of attachment_read, after defaults and any cursor are applied. */
export interface FormatArgs {
  /** Text windows: the byte where the window starts. */
  byte_offset: number;
  /** Text windows: the largest window in bytes. */
  max_bytes: number;
  /** Items to skip: CSV rows (after the header), JSON children, canvas nodes then edges. */
  offset: number;
  /** Most items to return. */
  limit: number;
  /** JSON: an RFC 6901 pointer (`/log/entries/0`); "" is the whole document. */
  pointer: string;
  /** PDF: a page or range (`3`, `2-5`); undefined means from the first page. */
  pages?: string;
  /** PDF: each page also as an image. */
  page_images: boolean;
  /** Read a structured format as plain text windows instead. */
  raw: boolean;
  /** The position comes from a cursor this tool handed out: take it exactly (no re-alignment). */
  continued: boolean;
}

/** The arguments a continuation changes. */
export type FormatPosition = Partial<Pick<FormatArgs, "byte_offset" | "offset" | "pointer" | "pages">>;

export interface FormatRequest {
  /** Vault-relative, already resolved and checked; for messages only. */
  path: string;
  /** Lower-case, without the dot ("" when the name has none). */
  extension: string;
  bytes: Uint8Array;
  args: FormatArgs;
  /** Whether this body, with the tool's own fields and a cursor added, fits the response limit. */
  fits(body: Record<string, unknown>): boolean;
  /** The response limit in bytes, for readers that size a window up front; undefined means none. */
  maxBytes: number | undefined;
  /** The largest image (decoded bytes) a reader may return. */
  imageBytes: number;
  /**
   * The host's reader of PDFs and images (a worker thread on Node, so a hostile file cannot hold the
   * engine's thread); absent on hosts without one.
   */
  binary?: BinaryReaderPort;
}

export interface ImageContent {
  /** Base64 (standard alphabet, padded). */
  data: string;
  mimeType: string;
}

export interface FormatResult {
  /** Sent as structuredContent and as its JSON text; the tool adds vault, path, content_hash, format. */
  body: Record<string, unknown>;
  images?: ImageContent[];
  /** Where the next call continues; absent when the read reached the end. */
  next?: FormatPosition;
}

export interface FormatReader {
  /** The name results carry as `format` ("text", "csv", "json", "pdf", "image", ...). */
  format: string;
  extensions: readonly string[];
  read(request: FormatRequest): FormatResult | Promise<FormatResult>;
}

export class FormatRegistry {
  private readonly byExtension = new Map<string, FormatReader>();

  constructor(readers: readonly FormatReader[] = []) {
    for (const reader of readers) this.register(reader);
  }

  register(reader: FormatReader): void {
    for (const extension of reader.extensions) {
      const taken = this.byExtension.get(extension);
      if (taken) throw new Error(`.${extension} already has the ${taken.format} reader; ${reader.format} cannot take it too`);
      this.byExtension.set(extension, reader);
    }
  }

  reader(extension: string): FormatReader | undefined {
    return this.byExtension.get(extension.toLowerCase());
  }

  /** Every extension with a reader, sorted, for descriptions and errors. */
  extensions(): string[] {
    return [...this.byExtension.keys()].sort();
  }
}

/**
 * The result for the largest count from 1 to `tooMany - 1` whose body fits the response limit, found by
 * bisection (a larger count never makes a smaller body), or `leastResult` when not even one fits: a
 * reader answers with something rather than nothing, and the cursor continues from there.
 */
export function largestFitting(request: Pick<FormatRequest, "fits">, tooMany: number, build: (count: number) => FormatResult, leastResult: () => FormatResult): FormatResult {
  let low = 1;
  let high = tooMany - 1;
  let best: FormatResult | undefined;
  while (low <= high) {
    const middle = Math.floor((low + high) / 2);
    const attempt = build(middle);
    if (request.fits(attempt.body)) {
      best = attempt;
      low = middle + 1;
    } else high = middle - 1;
  }
  return best ?? leastResult();
}

/** Line and column (1-based) of a character offset, for parse errors a person can find. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Bytes as standard padded base64, without Buffer (core runs in Obsidian too). */
export function base64Of(bytes: Uint8Array): string {
  const out: string[] = [];
  let chunk = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i]!;
    const b = bytes[i + 1];
    const c = bytes[i + 2];
    const triple = (a << 16) | ((b ?? 0) << 8) | (c ?? 0);
    chunk +=
      BASE64[(triple >> 18) & 63]! +
      BASE64[(triple >> 12) & 63]! +
      (b === undefined ? "=" : BASE64[(triple >> 6) & 63]!) +
      (c === undefined ? "=" : BASE64[triple & 63]!);
    if (chunk.length >= 8192) {
      out.push(chunk);
      chunk = "";
    }
  }
  out.push(chunk);
  return out.join("");
}
