// What an image file is and how large, from its header alone: cheap enough to run on any thread, and
// the first check before anything is decoded.
import { ToolError } from "../errors";

/** The longest side a client's model looks at (larger images are scaled down by the model's host anyway). */
export const IMAGE_MAX_SIDE = 1568;
/** Encoded bytes of one image (about 1 MB once base64-encoded in the response). */
export const IMAGE_MAX_BYTES = 750 * 1024;
/** Pixels decoded at most: a small file can declare a huge canvas, and decoding it would take gigabytes. */
export const IMAGE_MAX_PIXELS = 40_000_000;

export type ImageFormat = "png" | "jpeg" | "gif" | "webp";

export const MIME: Record<ImageFormat, string> = { png: "image/png", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp" };

export interface ImageInfo {
  format: ImageFormat;
  mimeType: string;
  width: number;
  height: number;
}

export interface PreparedImage {
  /** The image as sent: the original bytes, or a smaller re-encoding. */
  data: Uint8Array;
  mimeType: string;
  format: "png" | "jpeg" | "gif" | "webp";
  width: number;
  height: number;
  original: ImageInfo & { bytes: number };
  /** True when the image was decoded and encoded again (smaller, or as JPEG to fit the byte limit). */
  resized: boolean;
}

export interface ImageLimits {
  maxSide: number;
  maxBytes: number;
  maxPixels: number;
}

export const DEFAULT_IMAGE_LIMITS: ImageLimits = { maxSide: IMAGE_MAX_SIDE, maxBytes: IMAGE_MAX_BYTES, maxPixels: IMAGE_MAX_PIXELS };

function u16be(bytes: Uint8Array, at: number): number {
  return (bytes[at]! << 8) | bytes[at + 1]!;
}
function u16le(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8);
}
function u24le(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16);
}
function u32be(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) >>> 0) + (bytes[at + 1]! << 16) + (bytes[at + 2]! << 8) + bytes[at + 3]!;
}
function ascii(bytes: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + length));
}

/** The format the first bytes announce, whatever the file's extension says. */
export function imageFormatOf(bytes: Uint8Array): ImageFormat | null {
  if (bytes.length >= 8 && u32be(bytes, 0) === 0x89504e47 && u32be(bytes, 4) === 0x0d0a1a0a) return "png";
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpeg";
  if (bytes.length >= 6 && (ascii(bytes, 0, 6) === "GIF87a" || ascii(bytes, 0, 6) === "GIF89a")) return "gif";
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 4) === "WEBP") return "webp";
  return null;
}

function jpegSize(bytes: Uint8Array): { width: number; height: number } | null {
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    const length = u16be(bytes, at + 2);
    // Start-of-frame markers carry the size; C4 (Huffman), C8 (reserved) and CC (arithmetic) do not.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (at + 9 > bytes.length) return null;
      return { height: u16be(bytes, at + 5), width: u16be(bytes, at + 7) };
    }
    if (length < 2) return null;
    at += 2 + length;
  }
  return null;
}

function webpSize(bytes: Uint8Array): { width: number; height: number } | null {
  const chunk = ascii(bytes, 12, 4);
  if (chunk === "VP8X" && bytes.length >= 30) return { width: u24le(bytes, 24) + 1, height: u24le(bytes, 27) + 1 };
  if (chunk === "VP8L" && bytes.length >= 25 && bytes[20] === 0x2f) {
    const bits = bytes[21]! | (bytes[22]! << 8) | (bytes[23]! << 16) | (bytes[24]! << 24);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === "VP8 " && bytes.length >= 30 && bytes[23] === 0x9d && bytes[24] === 0x01 && bytes[25] === 0x2a) {
    return { width: u16le(bytes, 26) & 0x3fff, height: u16le(bytes, 28) & 0x3fff };
  }
  return null;
}

export function unreadable(path: string, format: string, why: string): ToolError {
  return new ToolError("unsupported", `"${path}" is not a readable ${format} image: ${why}. Check the file in an image viewer, or replace it with attachment_put.`, {
    details: { path, format },
  });
}

/**
 * Format and size from the header alone, without decoding. Throws `unsupported` for a file that is
 * not one of the known formats, or whose header is cut short or broken.
 */
export function inspectImage(bytes: Uint8Array, path: string): ImageInfo {
  const format = imageFormatOf(bytes);
  if (format === null) {
    throw new ToolError("unsupported", `"${path}" is not a PNG, JPEG, GIF or WebP image (its first bytes say otherwise), so it cannot be shown as an image.`, {
      details: { path },
    });
  }
  let size: { width: number; height: number } | null = null;
  if (format === "png") {
    size = bytes.length >= 24 && ascii(bytes, 12, 4) === "IHDR" ? { width: u32be(bytes, 16), height: u32be(bytes, 20) } : null;
    if (size === null) throw unreadable(path, "PNG", `it ends after ${bytes.length} bytes, before its header (IHDR) is complete`);
  } else if (format === "jpeg") {
    size = jpegSize(bytes);
    if (size === null) throw unreadable(path, "JPEG", "no frame header with the image size was found");
  } else if (format === "gif") {
    size = bytes.length >= 10 ? { width: u16le(bytes, 6), height: u16le(bytes, 8) } : null;
    if (size === null) throw unreadable(path, "GIF", `it ends after ${bytes.length} bytes, before its header is complete`);
  } else {
    size = webpSize(bytes);
    if (size === null) throw unreadable(path, "WebP", "no VP8, VP8L or VP8X header with the image size was found");
  }
  if (size.width < 1 || size.height < 1) throw unreadable(path, format.toUpperCase(), `it declares a size of ${size.width}×${size.height} pixels`);
  return { format, mimeType: MIME[format], width: size.width, height: size.height };
}

/**
 * The image as it is when it is within the limits, null when it must be decoded and scaled down
 * first. Throws, naming the limit, when it cannot be: GIF and WebP (no decoder is bundled for them)
 * and images declaring more pixels than are decoded at most.
 */
export function unchangedImage(bytes: Uint8Array, path: string, limits: ImageLimits = DEFAULT_IMAGE_LIMITS): PreparedImage | null {
  const info = inspectImage(bytes, path);
  if (Math.max(info.width, info.height) <= limits.maxSide && bytes.length <= limits.maxBytes) {
    return { data: bytes, mimeType: info.mimeType, format: info.format, width: info.width, height: info.height, original: { ...info, bytes: bytes.length }, resized: false };
  }
  if (info.format === "gif" || info.format === "webp") {
    const name = info.format === "gif" ? "GIF" : "WebP";
    throw new ToolError(
      "too_large",
      `"${path}" is a ${info.width}×${info.height} ${name} of ${bytes.length} bytes; ${name} images are sent only as they are, up to ${limits.maxSide} pixels a side and ${limits.maxBytes} bytes, since they cannot be scaled down here. Convert it to PNG or JPEG (those are scaled down), or open it in Obsidian.`,
      { details: { path, format: info.format, width: info.width, height: info.height, bytes: bytes.length, max_side: limits.maxSide, max_bytes: limits.maxBytes } },
    );
  }
  if (info.width * info.height > limits.maxPixels) {
    throw new ToolError(
      "too_large",
      `"${path}" declares ${info.width}×${info.height} pixels, over the ${limits.maxPixels} pixels decoded at most, so it is not scaled down here. Export a smaller version of it.`,
      { details: { path, format: info.format, width: info.width, height: info.height, max_pixels: limits.maxPixels } },
    );
  }
  return null;
}
