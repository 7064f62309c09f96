import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { decode as decodePng, encode as encodePng } from "fast-png";
import { decode as decodeJpeg } from "jpeg-js";
import { ToolError } from "../../../src/core/errors";
import { IMAGE_MAX_BYTES, IMAGE_MAX_SIDE, inspectImage, unchangedImage } from "../../../src/core/formats/image-info";
import { downscale, prepareImage } from "../../../src/core/formats/image";

const fixtures = path.join(__dirname, "fixtures");
const EDGE_DIAGRAM = path.resolve(__dirname, "../../../../shared/fixtures/edge-vault/Attachments/diagram.png");

function refused(code: string, pattern: RegExp): (error: unknown) => boolean {
  return (error) => error instanceof ToolError && error.code === code && pattern.test(error.message);
}

/** A compressible RGBA picture: gradients and a grid, like a diagram or a screenshot. */
function diagramPixels(width: number, height: number): Uint8Array {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const at = (y * width + x) * 4;
      const line = x % 100 < 3 || y % 100 < 3;
      data[at] = line ? 20 : Math.floor((x / width) * 255);
      data[at + 1] = line ? 20 : Math.floor((y / height) * 255);
      data[at + 2] = line ? 20 : 180;
      data[at + 3] = 255;
    }
  }
  return data;
}

/** Noise compresses badly: a PNG of it cannot fit the byte limit at the side limit. */
function noisePixels(width: number, height: number): Uint8Array {
  const data = new Uint8Array(width * height * 4);
  let seed = 12345;
  for (let at = 0; at < data.length; at += 1) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    data[at] = (at & 3) === 3 ? 255 : seed >>> 24;
  }
  return data;
}

test("the real diagram.png of the edge vault, cut after its signature, is refused as unreadable, not sent broken", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "img-edge-"));
  try {
    const copy = path.join(dir, "diagram.png");
    copyFileSync(EDGE_DIAGRAM, copy);
    const bytes = new Uint8Array(readFileSync(copy));
    assert.equal(bytes.length, 8);
    assert.throws(() => prepareImage(bytes, "Attachments/diagram.png"), refused("unsupported", /"Attachments\/diagram\.png" is not a readable PNG image: it ends after 8 bytes/));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("headers give format and size without decoding: PNG, JPEG, GIF and WebP (all three WebP kinds)", () => {
  const png = encodePng({ width: 7, height: 5, data: new Uint8Array(7 * 5 * 4), channels: 4, depth: 8 });
  assert.deepEqual(inspectImage(png, "a.png"), { format: "png", mimeType: "image/png", width: 7, height: 5 });
  assert.deepEqual(inspectImage(new Uint8Array(readFileSync(path.join(fixtures, "chromium-shot.jpg"))), "s.jpg"), {
    format: "jpeg",
    mimeType: "image/jpeg",
    width: 1200,
    height: 800,
  });
  const gif = new Uint8Array([...Buffer.from("GIF89a"), 0x20, 0x03, 0x10, 0x00, 0, 0, 0]);
  assert.deepEqual(inspectImage(gif, "g.gif"), { format: "gif", mimeType: "image/gif", width: 800, height: 16 });
  const riff = (chunk: string, payload: number[]): Uint8Array => new Uint8Array([...Buffer.from("RIFF"), 0, 0, 0, 0, ...Buffer.from("WEBP"), ...Buffer.from(chunk), 0, 0, 0, 0, ...payload]);
  // VP8X: 24-bit width-1 and height-1 after 4 bytes of flags.
  assert.deepEqual(inspectImage(riff("VP8X", [0, 0, 0, 0, 0x1f, 0x03, 0x00, 0xff, 0x01, 0x00]), "x.webp"), { format: "webp", mimeType: "image/webp", width: 800, height: 512 });
  // VP8L: signature 0x2f, then 14-bit width-1 and height-1.
  const bits = (100 - 1) | ((50 - 1) << 14);
  assert.deepEqual(inspectImage(riff("VP8L", [0x2f, bits & 0xff, (bits >> 8) & 0xff, (bits >> 16) & 0xff, (bits >> 24) & 0xff]), "l.webp").width, 100);
  // VP8: frame tag, start code 9d 01 2a, then 14-bit width and height.
  assert.deepEqual(inspectImage(riff("VP8 ", [0, 0, 0, 0x9d, 0x01, 0x2a, 0x40, 0x01, 0xf0, 0x00]), "v.webp").height, 240);
  assert.throws(() => inspectImage(new TextEncoder().encode("<svg/>"), "d.svg"), refused("unsupported", /not a PNG, JPEG, GIF or WebP image/));
});

test("an image within both limits is sent as it is, byte for byte", () => {
  const bytes = new Uint8Array(readFileSync(path.join(fixtures, "chromium-shot.jpg")));
  const prepared = prepareImage(bytes, "shot.jpg");
  assert.equal(prepared.resized, false);
  assert.equal(prepared.data, bytes);
  assert.equal(prepared.mimeType, "image/jpeg");
  assert.deepEqual([prepared.width, prepared.height], [1200, 800]);
});

test("a large PNG is scaled down to the side limit and stays a PNG of the expected size", () => {
  const png = encodePng({ width: 3000, height: 2000, data: diagramPixels(3000, 2000), channels: 4, depth: 8 });
  const prepared = prepareImage(png, "big.png");
  assert.equal(prepared.resized, true);
  assert.equal(prepared.format, "png");
  assert.deepEqual([prepared.width, prepared.height], [IMAGE_MAX_SIDE, 1045]);
  assert.ok(prepared.data.length <= IMAGE_MAX_BYTES);
  assert.deepEqual(prepared.original, { format: "png", mimeType: "image/png", width: 3000, height: 2000, bytes: png.length });
  const decoded = decodePng(prepared.data);
  assert.deepEqual([decoded.width, decoded.height], [IMAGE_MAX_SIDE, 1045]);
  // The gradient survives: left column dark red, right column bright red.
  const redAt = (x: number, y: number) => decoded.data[(y * decoded.width + x) * decoded.channels]!;
  assert.ok(redAt(10, 500) < 20 && redAt(decoded.width - 10, 500) > 230, `${redAt(10, 500)} ${redAt(decoded.width - 10, 500)}`);
});

test("a PNG that cannot fit the byte limit as PNG is sent as JPEG instead, within the limit", () => {
  const png = encodePng({ width: 1600, height: 1200, data: noisePixels(1600, 1200), channels: 4, depth: 8 });
  assert.ok(png.length > IMAGE_MAX_BYTES);
  const prepared = prepareImage(png, "noise.png");
  assert.equal(prepared.format, "jpeg");
  assert.ok(prepared.data.length <= IMAGE_MAX_BYTES, `${prepared.data.length}`);
  const decoded = decodeJpeg(prepared.data, { useTArray: true });
  assert.deepEqual([decoded.width, decoded.height], [prepared.width, prepared.height]);
});

test("a large JPEG printed by Chromium is scaled down and stays a JPEG", () => {
  const bytes = new Uint8Array(readFileSync(path.join(fixtures, "chromium-shot-large.jpg")));
  const prepared = prepareImage(bytes, "large.jpg");
  assert.equal(prepared.format, "jpeg");
  assert.deepEqual([prepared.width, prepared.height], [IMAGE_MAX_SIDE, 1045]);
  const decoded = decodeJpeg(prepared.data, { useTArray: true });
  assert.deepEqual([decoded.width, decoded.height], [IMAGE_MAX_SIDE, 1045]);
});

test("GIF and WebP over a limit, and an image declaring too many pixels, are refused naming the limit", () => {
  const gif = new Uint8Array([...Buffer.from("GIF89a"), 0x00, 0x10, 0x10, 0x00, 0, 0, 0]);
  assert.throws(() => unchangedImage(gif, "wide.gif"), refused("too_large", /4096×16 GIF .* up to 1568 pixels a side and 768000 bytes/));
  // A few bytes of header can declare a canvas that would need gigabytes once decoded.
  const header = encodePng({ width: 1, height: 1, data: new Uint8Array(4), channels: 4, depth: 8 });
  const bomb = header.slice();
  new DataView(bomb.buffer).setUint32(16, 100_000);
  new DataView(bomb.buffer).setUint32(20, 100_000);
  assert.throws(() => prepareImage(bomb, "bomb.png"), refused("too_large", /declares 100000×100000 pixels, over the 40000000 pixels decoded at most/));
});

test("area averaging: each target pixel is the mean of what it covers, transparent pixels do not darken edges", () => {
  // 2×2 → 1×1: the mean of four colours.
  const four = new Uint8Array([0, 0, 0, 255, 100, 100, 100, 255, 200, 200, 200, 255, 100, 100, 100, 255]);
  assert.deepEqual([...downscale(four, 2, 2, 1, 1)], [100, 100, 100, 255]);
  // 3×1 → 2×1: the middle pixel is split half and half.
  const three = new Uint8Array([0, 0, 0, 255, 90, 90, 90, 255, 180, 180, 180, 255]);
  assert.deepEqual([...downscale(three, 3, 1, 2, 1)], [30, 30, 30, 255, 150, 150, 150, 255]);
  // White next to fully transparent black: the colour stays white, alpha halves.
  const edge = new Uint8Array([255, 255, 255, 255, 0, 0, 0, 0]);
  assert.deepEqual([...downscale(edge, 2, 1, 1, 1)], [255, 255, 255, 128]);
});

test("palette, grayscale and 16-bit PNGs decode to the right colours when scaled", () => {
  // A 16-bit grayscale image of constant mid-gray, over the side limit so it is decoded.
  const gray16 = encodePng({ width: 2000, height: 10, data: new Uint16Array(2000 * 10).fill(0x8080), channels: 1, depth: 16 });
  const scaled = decodePng(prepareImage(gray16, "g16.png").data);
  assert.equal(scaled.width, IMAGE_MAX_SIDE);
  assert.deepEqual([...scaled.data.slice(0, 3)], [0x80, 0x80, 0x80]);
  // 1-bit grayscale, twice the side limit: each target pixel averages one white and one black column.
  const rowBytes = (2 * IMAGE_MAX_SIDE) / 8;
  const bits = new Uint8Array(rowBytes * 4).fill(0b10101010);
  const mono = encodePng({ width: 2 * IMAGE_MAX_SIDE, height: 4, data: bits, channels: 1, depth: 1 });
  const monoScaled = decodePng(prepareImage(mono, "mono.png").data);
  assert.deepEqual([...monoScaled.data.slice(0, 6)], [128, 128, 128, 128, 128, 128]);
});
