// Images for multimodal clients: the bytes as they are when they already fit, else decoded, shrunk by
// area averaging and encoded again, all in plain JavaScript (fast-png, jpeg-js) so that both hosts,
// Node and Obsidian, run the same code without a native module.
import { convertIndexedToRgb, decode as decodePng, encode as encodePng, type DecodedPng } from "fast-png";
import { decode as decodeJpeg, encode as encodeJpeg } from "jpeg-js";
import { ToolError } from "../errors";
import { DEFAULT_IMAGE_LIMITS, inspectImage, MIME, unchangedImage, unreadable, type ImageInfo, type ImageLimits, type PreparedImage } from "./image-info";

/** RGBA, 8 bits a channel, whatever the PNG's colour type and depth. */
function pngToRgba(png: DecodedPng): Uint8Array {
  const { width, height } = png;
  const out = new Uint8Array(width * height * 4);
  if (png.palette) {
    const rgb = convertIndexedToRgb(png);
    const channels = rgb.length / (width * height);
    for (let pixel = 0; pixel < width * height; pixel += 1) {
      out[pixel * 4] = rgb[pixel * channels]!;
      out[pixel * 4 + 1] = rgb[pixel * channels + 1]!;
      out[pixel * 4 + 2] = rgb[pixel * channels + 2]!;
      out[pixel * 4 + 3] = channels === 4 ? rgb[pixel * channels + 3]! : 255;
    }
    return out;
  }
  const channels = png.channels;
  const depth = png.depth;
  const data = png.data;
  const max = (1 << depth) - 1;
  // Depths under 8 pack several samples a byte, each row starting on a byte boundary.
  const rowBytes = Math.ceil((width * channels * depth) / 8);
  const sample = (row: number, index: number): number => {
    if (depth === 8) return data[row * width * channels + index]!;
    if (depth === 16) return data[row * width * channels + index]! >> 8;
    const bit = index * depth;
    const byte = data[row * rowBytes + (bit >> 3)]!;
    const value = (byte >> (8 - depth - (bit & 7))) & max;
    return Math.round((value * 255) / max);
  };
  for (let row = 0; row < height; row += 1) {
    for (let column = 0; column < width; column += 1) {
      const at = (row * width + column) * 4;
      const base = column * channels;
      if (channels <= 2) {
        const gray = sample(row, base);
        out[at] = gray;
        out[at + 1] = gray;
        out[at + 2] = gray;
        out[at + 3] = channels === 2 ? sample(row, base + 1) : 255;
      } else {
        out[at] = sample(row, base);
        out[at + 1] = sample(row, base + 1);
        out[at + 2] = sample(row, base + 2);
        out[at + 3] = channels === 4 ? sample(row, base + 3) : 255;
      }
    }
  }
  return out;
}

/**
 * Area-average downscale of RGBA pixels: each target pixel is the mean of the source area it covers,
 * weighted by how much of each source pixel falls in it, so thin lines and text fade instead of vanish.
 * Colour is averaged weighted by alpha, so transparent pixels do not darken the edges.
 */
export function downscale(source: Uint8Array, width: number, height: number, targetWidth: number, targetHeight: number): Uint8Array {
  const out = new Uint8Array(targetWidth * targetHeight * 4);
  const scaleX = width / targetWidth;
  const scaleY = height / targetHeight;
  const sums = new Float64Array(targetWidth * 4);
  // Each target column's source span, computed once: [first source column, weights...].
  const spans: { first: number; weights: number[] }[] = [];
  for (let x = 0; x < targetWidth; x += 1) {
    const start = x * scaleX;
    const end = start + scaleX;
    const first = Math.floor(start);
    const weights: number[] = [];
    for (let sx = first; sx < end && sx < width; sx += 1) weights.push(Math.min(end, sx + 1) - Math.max(start, sx));
    spans.push({ first, weights });
  }
  for (let y = 0; y < targetHeight; y += 1) {
    sums.fill(0);
    const startY = y * scaleY;
    const endY = startY + scaleY;
    let area = 0;
    for (let sy = Math.floor(startY); sy < endY && sy < height; sy += 1) {
      const weightY = Math.min(endY, sy + 1) - Math.max(startY, sy);
      area += weightY;
      const row = sy * width * 4;
      for (let x = 0; x < targetWidth; x += 1) {
        const { first, weights } = spans[x]!;
        let r = 0;
        let g = 0;
        let b = 0;
        let a = 0;
        for (let k = 0; k < weights.length; k += 1) {
          const at = row + (first + k) * 4;
          const alpha = source[at + 3]! * weights[k]!;
          r += source[at]! * alpha;
          g += source[at + 1]! * alpha;
          b += source[at + 2]! * alpha;
          a += alpha;
        }
        sums[x * 4] = sums[x * 4]! + r * weightY;
        sums[x * 4 + 1] = sums[x * 4 + 1]! + g * weightY;
        sums[x * 4 + 2] = sums[x * 4 + 2]! + b * weightY;
        sums[x * 4 + 3] = sums[x * 4 + 3]! + a * weightY;
      }
    }
    for (let x = 0; x < targetWidth; x += 1) {
      const weight = spans[x]!.weights.reduce((total, value) => total + value, 0) * area;
      const alpha = sums[x * 4 + 3]!;
      const at = (y * targetWidth + x) * 4;
      out[at + 3] = Math.min(255, Math.round(alpha / weight));
      if (alpha > 0) {
        out[at] = Math.round(sums[x * 4]! / alpha);
        out[at + 1] = Math.round(sums[x * 4 + 1]! / alpha);
        out[at + 2] = Math.round(sums[x * 4 + 2]! / alpha);
      }
    }
  }
  return out;
}

function hasTransparency(rgba: Uint8Array): boolean {
  for (let at = 3; at < rgba.length; at += 4) if (rgba[at] !== 255) return true;
  return false;
}

function dropAlpha(rgba: Uint8Array): Uint8Array {
  const out = new Uint8Array((rgba.length / 4) * 3);
  for (let from = 0, to = 0; from < rgba.length; from += 4, to += 3) {
    out[to] = rgba[from]!;
    out[to + 1] = rgba[from + 1]!;
    out[to + 2] = rgba[from + 2]!;
  }
  return out;
}

/** RGBA over white, for JPEG, which has no alpha. */
function flatten(rgba: Uint8Array): Uint8Array {
  const out = new Uint8Array(rgba.length);
  for (let at = 0; at < rgba.length; at += 4) {
    const alpha = rgba[at + 3]! / 255;
    out[at] = Math.round(rgba[at]! * alpha + 255 * (1 - alpha));
    out[at + 1] = Math.round(rgba[at + 1]! * alpha + 255 * (1 - alpha));
    out[at + 2] = Math.round(rgba[at + 2]! * alpha + 255 * (1 - alpha));
    out[at + 3] = 255;
  }
  return out;
}

function asPlainBytes(data: Uint8Array): Uint8Array {
  // jpeg-js hands back a Node Buffer where one exists; callers get a plain Uint8Array either way.
  return data.constructor === Uint8Array ? data : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

function fitSide(width: number, height: number, maxSide: number): { width: number; height: number } {
  const longest = Math.max(width, height);
  if (longest <= maxSide) return { width, height };
  const scale = maxSide / longest;
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

function decodeRgba(bytes: Uint8Array, info: ImageInfo, path: string, limits: ImageLimits): Uint8Array {
  try {
    if (info.format === "png") return pngToRgba(decodePng(bytes));
    const image = decodeJpeg(bytes, {
      useTArray: true,
      formatAsRGBA: true,
      maxResolutionInMP: Math.ceil(limits.maxPixels / 1_000_000),
      maxMemoryUsageInMB: Math.ceil((limits.maxPixels * 4 * 2) / (1024 * 1024)),
    });
    return image.data;
  } catch (error) {
    throw unreadable(path, info.format.toUpperCase(), `decoding failed (${error instanceof Error ? error.message.slice(0, 120) : "unknown error"})`);
  }
}

/**
 * The image ready to send: as it is when it is within both limits (any of the four formats), else
 * PNG and JPEG are decoded, scaled down to the side limit and encoded again (PNG stays PNG when that
 * fits, else becomes JPEG; JPEG stays JPEG), shrinking further until the bytes fit. GIF and WebP
 * over a limit are refused, naming it: no decoder for them is bundled.
 */
export function prepareImage(bytes: Uint8Array, path: string, limits: ImageLimits = DEFAULT_IMAGE_LIMITS): PreparedImage {
  const unchanged = unchangedImage(bytes, path, limits);
  if (unchanged) return unchanged;
  const info = inspectImage(bytes, path);
  const original = { ...info, bytes: bytes.length };
  const rgba = decodeRgba(bytes, info, path, limits);
  const transparent = info.format === "png" && hasTransparency(rgba);
  let side = Math.min(limits.maxSide, Math.max(info.width, info.height));
  for (let attempt = 0; attempt < 12; attempt += 1) {
    const size = fitSide(info.width, info.height, side);
    const pixels = size.width === info.width && size.height === info.height ? rgba : downscale(rgba, info.width, info.height, size.width, size.height);
    const candidates: { format: "png" | "jpeg"; encode: () => Uint8Array }[] = [];
    if (info.format === "png") {
      // An opaque image is written without its alpha channel: a quarter fewer bytes to compress.
      const data = transparent ? pixels : dropAlpha(pixels);
      candidates.push({ format: "png", encode: () => encodePng({ width: size.width, height: size.height, data, channels: transparent ? 4 : 3, depth: 8 }) });
    }
    const flat = transparent ? flatten(pixels) : pixels;
    candidates.push({ format: "jpeg", encode: () => asPlainBytes(encodeJpeg({ data: flat, width: size.width, height: size.height }, 85).data) });
    for (const candidate of candidates) {
      const data = candidate.encode();
      if (data.length <= limits.maxBytes) {
        return { data, mimeType: MIME[candidate.format], format: candidate.format, width: size.width, height: size.height, original, resized: true };
      }
    }
    side = Math.max(1, Math.floor(side * 0.75));
  }
  throw new ToolError("too_large", `"${path}" does not fit in ${limits.maxBytes} bytes even scaled down; open it in Obsidian instead.`, {
    details: { path, max_bytes: limits.maxBytes },
  });
}
