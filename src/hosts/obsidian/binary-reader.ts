// The plugin's reader of PDFs and images: PDFs through the app's own pdf.js (loadPdfJs), which parses
// in the worker Obsidian starts for it, so the plugin bundles no pdf.js and a hostile PDF does not
// hold the app's window; images are scaled on this thread, bounded by the pixel limit.
import { loadPdfJs } from "obsidian";
import { ToolError } from "../../core/errors";
import { inlineBinaryReader, type BinaryReaderPort } from "../../core/formats/binary";
import type { PdfJsLike } from "../../core/formats/pdf";

async function appPdfJs(): Promise<PdfJsLike> {
  const library: unknown = await loadPdfJs();
  if (typeof library !== "object" || library === null || typeof (library as { getDocument?: unknown }).getDocument !== "function") {
    throw new ToolError("unavailable", "This version of Obsidian did not provide its PDF reader (pdf.js), so PDFs cannot be read here. Update Obsidian, or read the PDF with the headless server.");
  }
  return library as PdfJsLike;
}

export function obsidianBinaryReader(): BinaryReaderPort {
  return inlineBinaryReader(appPdfJs, () => Date.now());
}
