import { test } from "node:test";
import assert from "node:assert/strict";
import {
  crc32,
  decodeJson,
  decodeSnapshot,
  encodeJson,
  encodeSnapshot,
  encodeSnapshotParts,
  sectionOffset,
  snapshotChecksum,
  SNAPSHOT_FORMAT_VERSION,
  SNAPSHOT_HEADER_BYTES,
  SnapshotError,
  SnapshotSectionReader,
  type SnapshotErrorReason,
} from "../../../src/core/search/snapshot";

const values: unknown[] = [{ path: "Größe/東京.md", mtime: 1_699_999_999_000 }, ["bucket", [4, 1, 0, 2]], null];

function sample(): Uint8Array {
  return encodeSnapshot(values.map(encodeJson));
}

function rejects(bytes: Uint8Array, reason: SnapshotErrorReason): void {
  assert.throws(
    () => decodeSnapshot(bytes),
    (error: unknown) => error instanceof SnapshotError && error.reason === reason,
  );
}

test("CRC-32 matches the standard check value", () => {
  assert.equal(crc32(new TextEncoder().encode("123456789")), 0xcbf43926);
  assert.equal(crc32(new Uint8Array()), 0);
});

test("round trip keeps each section, in order, as JSON", () => {
  const bytes = sample();
  assert.equal(new TextDecoder().decode(bytes.subarray(0, 9)), "SBMCP-IDX");
  const sections = decodeSnapshot(bytes);
  assert.equal(sections.length, values.length);
  assert.deepEqual(
    sections.map((section, i) => decodeJson(section, `section ${i}`)),
    values,
  );
});

test("a snapshot may have no sections, and empty ones", () => {
  assert.deepEqual(decodeSnapshot(encodeSnapshot([])), []);
  const sections = decodeSnapshot(encodeSnapshot([new Uint8Array(), encodeJson(1)]));
  assert.deepEqual(sections.map((section) => section.length), [0, 1]);
});

test("the header's checksum is readable without verifying, and is the payload's CRC", () => {
  const bytes = sample();
  assert.equal(snapshotChecksum(bytes), crc32(bytes.subarray(SNAPSHOT_HEADER_BYTES)));
  assert.equal(snapshotChecksum(bytes.subarray(0, 10)), null);
  assert.equal(snapshotChecksum(new TextEncoder().encode("not a snapshot at all, really")), null);
});

test("truncated files are rejected as truncated", () => {
  const bytes = sample();
  rejects(bytes.subarray(0, bytes.length - 1), "truncated");
  rejects(bytes.subarray(0, SNAPSHOT_HEADER_BYTES), "truncated");
  rejects(bytes.subarray(0, 5), "truncated");
  rejects(new Uint8Array(), "truncated");
});

test("a flipped payload byte is rejected by the checksum", () => {
  const bytes = sample();
  for (const at of [SNAPSHOT_HEADER_BYTES, Math.floor(bytes.length / 2), bytes.length - 1]) {
    const corrupt = bytes.slice();
    corrupt[at] = corrupt[at]! ^ 0x01;
    rejects(corrupt, "checksum");
  }
  const badChecksum = bytes.slice();
  badChecksum[16] = badChecksum[16]! ^ 0xff;
  rejects(badChecksum, "checksum");
});

test("another format version is rejected as version", () => {
  const bytes = sample();
  for (const version of [SNAPSHOT_FORMAT_VERSION + 1, SNAPSHOT_FORMAT_VERSION - 1]) {
    const other = bytes.slice();
    new DataView(other.buffer).setUint16(10, version, true);
    rejects(other, "version");
  }
});

test("not a snapshot, trailing bytes or a section running past the end are rejected as format", () => {
  rejects(new TextEncoder().encode('{"version":1,"createdAt":0,"files":[],"index":{}}'), "format");
  const bytes = sample();
  const longer = new Uint8Array(bytes.length + 1);
  longer.set(bytes);
  rejects(longer, "format");
  // A section length pointing past the payload, with the checksum made to match.
  const broken = bytes.slice();
  const view = new DataView(broken.buffer);
  view.setUint32(SNAPSHOT_HEADER_BYTES, 1_000_000, true);
  view.setUint32(16, crc32(broken.subarray(SNAPSHOT_HEADER_BYTES)), true);
  rejects(broken, "format");
});

test("a section that is not JSON is rejected as format, naming it", () => {
  const [section] = decodeSnapshot(encodeSnapshot([new TextEncoder().encode("{not json")]));
  assert.throws(
    () => decodeJson(section, "rows"),
    (error: unknown) => error instanceof SnapshotError && error.reason === "format" && error.message.includes("rows"),
  );
  assert.throws(() => decodeJson(undefined, "rows"), SnapshotError);
});

test("the header records the payload length", () => {
  const bytes = sample();
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  assert.equal(view.getUint32(12, true), bytes.length - SNAPSHOT_HEADER_BYTES);
  assert.equal(bytes[9], 0x0a);
});

test("crc32 agrees with the byte-at-a-time definition at every length and alignment", () => {
  const reference = (bytes: Uint8Array): number => {
    let crc = 0xffffffff;
    for (const byte of bytes) {
      crc ^= byte;
      for (let k = 0; k < 8; k++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
    }
    return (crc ^ 0xffffffff) >>> 0;
  };
  const data = Uint8Array.from({ length: 300 }, (_, i) => (i * 167 + 13) & 0xff);
  for (let start = 0; start < 9; start++) {
    for (let length = 0; length + start <= data.length; length += 7) {
      const slice = data.subarray(start, start + length);
      assert.equal(crc32(slice), reference(slice), `${start}+${length}`);
    }
  }
});

test("a snapshot written in parts is the same file, checksum included, whatever the sections' pieces", async () => {
  const big = Uint8Array.from({ length: 9_000_000 }, (_, i) => (i * 31) & 0xff);
  const sections = [encodeJson({ kind: "x" }), [big.subarray(0, 5), new Uint8Array(0), big.subarray(5)], new Uint8Array(0), [Uint8Array.of(1), Uint8Array.of(2, 3)]];
  let pauses = 0;
  const parts = await encodeSnapshotParts(sections, async () => {
    pauses += 1;
  });
  assert.ok(pauses >= 2, "the checksum pauses on a large file");
  const joined = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length;
  }
  assert.deepEqual(joined, encodeSnapshot(sections));
  assert.equal(snapshotChecksum(parts[0]!), snapshotChecksum(joined));
  assert.deepEqual(decodeSnapshot(joined).map((section) => section.length), [12, 9_000_000, 0, 3]);
});

test("a section reader checksums a large kept part between pauses, and still finds a flipped byte in it", async () => {
  const large = new Uint8Array(9 << 20);
  for (let i = 0; i < large.length; i++) large[i] = (i * 2654435761) >>> 24;
  const bytes = encodeSnapshot([encodeJson({ parsed: true }), large]);
  const kept = sectionOffset(bytes, 1)!;
  const readerOf = (file: Uint8Array, pause: () => Promise<void>): SnapshotSectionReader =>
    new SnapshotSectionReader(async (start, end) => file.slice(start, end), file.slice(0, SNAPSHOT_HEADER_BYTES), kept, pause);
  let pauses = 0;
  const reader = readerOf(bytes, async () => void (pauses += 1));
  assert.deepEqual(decodeJson(await reader.next(), "parsed"), { parsed: true });
  assert.deepEqual(await reader.next(), large);
  assert.equal(await reader.next(), undefined);
  await reader.finish();
  assert.ok(pauses >= 2, `${pauses} pauses over 9 MB`);
  const damaged = bytes.slice();
  damaged[bytes.length - 10]! ^= 0x04;
  const broken = readerOf(damaged, async () => undefined);
  while ((await broken.next()) !== undefined);
  await assert.rejects(broken.finish(), (error: unknown) => error instanceof SnapshotError && error.reason === "checksum");
});
