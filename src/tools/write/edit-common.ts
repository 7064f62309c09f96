// What the note-editing tools share: the target must be a note, and agents' text arrives as LF.
import { ToolError } from "../../core/errors";
import { extname } from "../../core/notes/paths";
import type { FileStat } from "../../core/ports";
import type { VaultEngine } from "../../core/vault/types";

// Extensions that name a file, not part of a note's name ("Meeting 2026.01.05" stays a note). Without
// this, `diagram.png` would silently become the note `diagram.png.md`.
const NON_NOTE_EXTENSIONS = new Set([
  "png", "jpg", "jpeg", "gif", "webp", "svg", "bmp", "tif", "tiff", "heic", "avif", "ico",
  "pdf", "txt", "csv", "tsv", "json", "yaml", "yml", "xml", "html", "htm", "css", "js", "ts",
  "mp3", "m4a", "wav", "ogg", "flac", "mp4", "mov", "webm", "mkv",
  "canvas", "base", "zip", "docx", "xlsx", "pptx", "doc", "xls", "ppt", "epub",
]);

/** Resolves a note path for writing (SPEC §6), refusing paths that name an attachment. */
export async function resolveNoteTarget(engine: VaultEngine, input: string): Promise<{ path: string; stat: FileStat | null }> {
  const extension = extname(input.trim());
  if (extension !== "md" && NON_NOTE_EXTENSIONS.has(extension)) {
    throw new ToolError(
      "invalid_path",
      `"${input.trim()}" is not a note (notes end in .md). Write attachments with attachment_put; for a note, use a path ending in .md.`,
      { details: { path: input.trim() } },
    );
  }
  return engine.resolve(input, { note: true });
}

/** Agents may send CRLF; the write path works on LF and restores a CRLF file's line endings itself. */
export function toLf(text: string): string {
  return text.replace(/\r\n/g, "\n");
}

export function missingNote(path: string, vault: string, hint: string): ToolError {
  return new ToolError("not_found", `Note "${path}" does not exist in vault "${vault}". ${hint}`, { details: { path } });
}
