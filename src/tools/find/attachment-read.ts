// attachment_read: a bounded, continuable read of a non-note file, by the reader its extension names
// (core/formats): text and logs as line-aligned byte windows, and structured formats as structure.
// The cursor carries the content hash, so a continuation never mixes two versions of a file.
import { ToolError } from "../../core/errors";
import { FORMATS, PENDING_FORMATS } from "../../core/formats";
import type { BinaryReaderPort } from "../../core/formats/binary";
import { base64Of, type FormatArgs, type FormatPosition, type FormatReader, type FormatResult } from "../../core/formats/registry";
import { looksBinary, textWindowResult } from "../../core/formats/text";
import { sameHash } from "../../core/notes/hash";
import { extname } from "../../core/notes/paths";
import { DEFAULT_WINDOW_BYTES } from "../../core/notes/window";
import { notFound } from "../../core/vault/engine";
import { iso, vaultField } from "../common";
import { boolean, integer, object, optional, string, withDefault } from "../schema";
import { READ_ONLY, defineTool, withImages } from "../types";
import { base64Payload, decodeBase64 } from "../write/attachment-put";

/** Files larger than this are not loaded at all: every reader works on the whole file's bytes. */
export const MAX_READ_BYTES = 64 * 1024 * 1024;
/** The largest image a reader returns, decoded; base64 makes it a third larger on the wire. */
export const MAX_IMAGE_BYTES = 1024 * 1024;
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;
/** Room a cursor takes in a result, so a window measured without one still fits with it. */
const CURSOR_ROOM = "x".repeat(240);

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

interface Cursor {
  hash: string;
  position: FormatPosition;
}

function encodeCursor(hash: string, position: FormatPosition): string {
  const json = JSON.stringify({ h: hash, b: position.byte_offset, o: position.offset, p: position.pointer, g: position.pages });
  return base64Of(encoder.encode(json)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function badCursor(): ToolError {
  return new ToolError(
    "invalid_argument",
    "cursor is not one this tool handed out. Pass next_cursor from the previous attachment_read of the same file unchanged, or leave cursor out to start at the beginning.",
    { details: { argument: "cursor" } },
  );
}

function decodeCursor(cursor: string): Cursor {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(decodeBase64(base64Payload(cursor))));
  } catch {
    throw badCursor();
  }
  if (typeof value !== "object" || value === null) throw badCursor();
  const { h, b, o, p, g } = value as Record<string, unknown>;
  const whole = (n: unknown) => n === undefined || (typeof n === "number" && Number.isInteger(n) && n >= 0);
  if (typeof h !== "string" || !whole(b) || !whole(o) || (p !== undefined && typeof p !== "string") || (g !== undefined && typeof g !== "string")) {
    throw badCursor();
  }
  const position: FormatPosition = {};
  if (typeof b === "number") position.byte_offset = b;
  if (typeof o === "number") position.offset = o;
  if (typeof p === "string") position.pointer = p;
  if (typeof g === "string") position.pages = g;
  return { hash: h, position };
}

/** Everything a continuation needs besides what the reader moves, so the cursor alone resumes the read. */
function positionOf(args: FormatArgs): FormatPosition {
  return { byte_offset: args.byte_offset, offset: args.offset, pointer: args.pointer, ...(args.pages !== undefined ? { pages: args.pages } : {}) };
}

/** A text reader under another name: raw mode, and text files no reader claims. */
function rawReader(format: string): FormatReader {
  return { format, extensions: [], read: (request) => textWindowResult(request, format) };
}

function chooseReader(path: string, extension: string, bytes: Uint8Array, raw: boolean): FormatReader {
  const reader = raw ? undefined : FORMATS.reader(extension);
  if (reader) return reader;
  const pending = PENDING_FORMATS[extension];
  if (pending !== undefined && !FORMATS.reader(extension)) {
    throw new ToolError(
      "unsupported",
      `"${path}" is a ${pending} file, which attachment_read cannot read (it reads PNG, JPEG, GIF and WebP images). attachment_list gives its size and how many notes embed it, and ![[${path}]] embeds it in a note; a copy saved as PNG or JPEG can be read.`,
      { details: { path, format: pending } },
    );
  }
  if (looksBinary(bytes)) {
    throw new ToolError(
      "unsupported",
      `"${path}" is binary, and attachment_read has no reader for .${extension || "(no extension)"} files. It reads text files and ${FORMATS.extensions().map((ext) => `.${ext}`).join(", ")}; attachment_list gives this file's size and references.`,
      { details: { path } },
    );
  }
  return rawReader("text");
}

function binaryOf(binary: BinaryReaderPort | null): { binary?: BinaryReaderPort } {
  return binary ? { binary } : {};
}

export const attachmentRead = defineTool({
  name: "attachment_read",
  title: "Read an attachment",
  description:
    "Reads a non-note file in bounded windows, by its format. Logs and other text: byte windows that start and end at line starts (`max_bytes`, `byte_offset`). CSV/TSV: the header and a window of rows (`offset`, `limit`; quoted fields parsed, delimiter sniffed). JSON and HAR: the value at `pointer` (RFC 6901, e.g. `/log/entries/0`), whole when small, else a window of its children with large ones summarised by their pointer. Canvas: nodes then edges (`offset`, `limit`), with any spec problems; change it with canvas_edit. Bases (.base): filters, formulas, properties, summaries and a window of views. PDF: the page count and the text of `pages` (`3`, `2-5`, `4-`; at most 20 pages a call). Images (PNG, JPEG, GIF, WebP): image content scaled to at most 1568 pixels a side and 750 KB, with width, height and format. When next_cursor is present, call again with the same path and cursor = next_cursor to continue; a cursor is refused once the file has changed. `raw: true` reads any text file as text windows. Use note_read for notes.",
  group: "find",
  input: object({
    vault: vaultField,
    path: string({ description: "Vault-relative path of the file, with its extension, e.g. `logs/sync.log` or `data/export.csv`." }),
    cursor: optional(string({ description: "next_cursor from the previous read of this file, to continue where it stopped." })),
    content_hash: optional(string({ description: "Refuse the read if the file's content_hash is no longer this." })),
    max_bytes: withDefault(integer({ description: `Text windows: the largest window in bytes (default ${DEFAULT_WINDOW_BYTES}).`, minimum: 256, maximum: 1024 * 1024 }), DEFAULT_WINDOW_BYTES),
    byte_offset: withDefault(integer({ description: "Text windows: where to start, in bytes; moved back to the start of its line.", minimum: 0 }), 0),
    offset: withDefault(integer({ description: "Rows (CSV, after the header), children (JSON), items (canvas: nodes, then edges) or views (base) to skip.", minimum: 0 }), 0),
    limit: withDefault(integer({ description: `Most rows, children or items to return (default ${DEFAULT_LIMIT}, max ${MAX_LIMIT}).`, minimum: 1, maximum: MAX_LIMIT }), DEFAULT_LIMIT),
    pointer: withDefault(string({ description: "JSON: the value to read, as a JSON pointer (RFC 6901), e.g. `/log/entries/0`; empty for the whole document." }), ""),
    pages: optional(string({ description: "PDF: a page or a range, e.g. `3` or `2-5`." })),
    page_images: withDefault(boolean({ description: "PDF: also return each page as an image (not offered yet: the answer says so and returns the text)." }), false),
    raw: withDefault(boolean({ description: "Read a structured format (CSV, JSON, HAR, canvas, base) as plain text windows instead." }), false),
  }),
  annotations: READ_ONLY,
  largeResults: true,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const { path, stat } = await engine.resolve(args.path);
    if (!stat) throw notFound(path, engine.name, false);
    if (stat.size > MAX_READ_BYTES) {
      throw new ToolError(
        "too_large",
        `"${path}" is ${stat.size} bytes; attachment_read loads files up to ${MAX_READ_BYTES} bytes. Use vault_grep to find lines in a text file this large.`,
        { details: { path, bytes: stat.size, limit: MAX_READ_BYTES } },
      );
    }
    const file = await engine.read(path);
    const cursor = args.cursor !== undefined ? decodeCursor(args.cursor) : undefined;
    for (const [expected, source] of [[cursor?.hash, "cursor"], [args.content_hash, "content_hash"]] as const) {
      if (expected !== undefined && !sameHash(expected, file.content_hash)) {
        throw new ToolError(
          "conflict",
          `"${file.path}" changed since the read that gave this ${source}; its content_hash is now ${file.content_hash}. Read it again without cursor (a growing log: pass byte_offset to start where you were).`,
          { retry: "inspect_state", details: { path: file.path, content_hash: file.content_hash } },
        );
      }
    }
    const extension = extname(file.path);
    const position: FormatArgs = {
      byte_offset: args.byte_offset,
      max_bytes: args.max_bytes,
      offset: args.offset,
      limit: args.limit,
      pointer: args.pointer,
      page_images: args.page_images,
      raw: args.raw,
      continued: cursor !== undefined,
      ...(args.pages !== undefined ? { pages: args.pages } : {}),
      ...cursor?.position,
    };
    const reader = chooseReader(file.path, extension, file.bytes, args.raw);
    const head = { vault: engine.name, path: file.path, content_hash: file.content_hash, format: reader.format, modified: iso(file.stat.mtime) };
    const budget = ctx.response;
    const result: FormatResult = await reader.read({
      path: file.path,
      extension,
      bytes: file.bytes,
      args: position,
      fits: (body) => budget === undefined || budget.fits({ ...head, next_cursor: CURSOR_ROOM, ...body }),
      maxBytes: budget?.maxBytes,
      imageBytes: MAX_IMAGE_BYTES,
      ...binaryOf(engine.binaryReader()),
    });
    // The cursor comes before the body, so a client that keeps only the head of a long result still has it.
    const out = {
      ...head,
      ...(result.next ? { next_cursor: encodeCursor(file.content_hash, { ...positionOf(position), ...result.next }) } : {}),
      ...result.body,
    };
    return withImages(out, result.images ?? []);
  },
});
