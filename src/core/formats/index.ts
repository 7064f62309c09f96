// The readers attachment_read knows. A new format is one import and one entry here (see registry.ts).
import { FormatRegistry, type FormatReader } from "./registry";
import { baseReader } from "./bases";
import { canvasReader } from "./canvas";
import { csvReader } from "./csv";
import { harReader, jsonReader } from "./json";
import { textReader } from "./text";
import { imageReader, pdfReader } from "./binary-formats";

export const FORMAT_READERS: readonly FormatReader[] = [textReader, csvReader, jsonReader, harReader, canvasReader, baseReader, pdfReader, imageReader];

export const FORMATS = new FormatRegistry(FORMAT_READERS);

/**
 * Binary formats without a reader on this server yet: refused by name, with what to do instead, rather
 * than sniffed. Once a reader takes an extension, the registry answers first.
 */
export const PENDING_FORMATS: Readonly<Record<string, string>> = {
  bmp: "BMP image",
  avif: "AVIF image",
  heic: "HEIC image",
  tif: "TIFF image",
  tiff: "TIFF image",
  ico: "icon",
};
