import { test } from "node:test";
import assert from "node:assert/strict";
import {
  crc32,
  decodeSnapshot,
  encodeSnapshot,
  SNAPSHOT_FORMAT_VERSION,
  SNAPSHOT_HEADER_BYTES,
  SnapshotError,
  type SnapshotErrorReason,
  type SnapshotPayload,
} from "../../../src/core/search/snapshot";
import { NoteIndex } from "../../../src/core/search/note-index";
import { parseQuery } from "../../../src/core/search/query";

function payload(): SnapshotPayload {
  const index = new NoteIndex();
  index.add({ path: "Größe/東京.md", title: "東京", aliases: [], headings: ["Über"], tags: ["t"], body: "今日は東京で雨 bucket" });
  return {
    version: 3,
    createdAt: 1_700_000_000_000,
    files: [{ path: "Größe/東京.md", mtime: 1_699_999_999_000, size: 42, hash: "ab".repeat(32) }],
    index: index.toJSON(),
    extra: { metadata: { links: 2 } },
  };
}

function rejects(bytes: Uint8Array, reason: SnapshotErrorReason, expectedVersion?: number): void {
  assert.throws(
    () => decodeSnapshot(bytes, expectedVersion),
    (error: unknown) => error instanceof SnapshotError && error.reason === reason,
  );
}

test("CRC-32 matches the standard check value", () => {
  assert.equal(crc32(new TextEncoder().encode("123456789")), 0xcbf43926);
  assert.equal(crc32(new Uint8Array()), 0);
});

test("round trip keeps the payload, and the index still searches", async () => {
  const original = payload();
  const bytes = encodeSnapshot(original);
  assert.equal(new TextDecoder().decode(bytes.subarray(0, 9)), "SBMCP-IDX");
  const decoded = decodeSnapshot(bytes, 3);
  assert.deepEqual(decoded, JSON.parse(JSON.stringify(original)));
  const index = NoteIndex.fromJSON(decoded.index);
  const page = await index.search(parseQuery("東京 bucket"), { limit: 5, offset: 0 });
  assert.deepEqual(page.hits.map((hit) => hit.path), ["Größe/東京.md"]);
});

test("a payload without extra decodes without extra", () => {
  const { extra: _extra, ...bare } = payload();
  assert.deepEqual(decodeSnapshot(encodeSnapshot(bare)), JSON.parse(JSON.stringify(bare)));
});

test("truncated files are rejected as truncated", () => {
  const bytes = encodeSnapshot(payload());
  rejects(bytes.subarray(0, bytes.length - 1), "truncated");
  rejects(bytes.subarray(0, SNAPSHOT_HEADER_BYTES), "truncated");
  rejects(bytes.subarray(0, 5), "truncated");
  rejects(new Uint8Array(), "truncated");
});

test("a flipped payload byte is rejected by the checksum", () => {
  const bytes = encodeSnapshot(payload());
  for (const at of [SNAPSHOT_HEADER_BYTES, Math.floor(bytes.length / 2), bytes.length - 1]) {
    const corrupt = bytes.slice();
    corrupt[at] = corrupt[at]! ^ 0x01;
    rejects(corrupt, "checksum");
  }
  const badChecksum = bytes.slice();
  badChecksum[16] = badChecksum[16]! ^ 0xff;
  rejects(badChecksum, "checksum");
});

test("another format version, or another payload version, is rejected as version", () => {
  const bytes = encodeSnapshot(payload());
  for (const version of [SNAPSHOT_FORMAT_VERSION + 1, 0]) {
    const other = bytes.slice();
    new DataView(other.buffer).setUint16(10, version, true);
    rejects(other, "version");
  }
  rejects(bytes, "version", 4);
});

test("not a snapshot, trailing bytes or a bad payload are rejected as format", () => {
  rejects(new TextEncoder().encode('{"version":1,"createdAt":0,"files":[],"index":{}}'), "format");
  const bytes = encodeSnapshot(payload());
  const longer = new Uint8Array(bytes.length + 1);
  longer.set(bytes);
  rejects(longer, "format");
  const notAPayload = encodeSnapshot({ version: 1, createdAt: 0, files: [{ path: 1 }], index: null } as unknown as SnapshotPayload);
  rejects(notAPayload, "format");
});

test("the header records the payload length", () => {
  const bytes = encodeSnapshot(payload());
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  assert.equal(view.getUint32(12, true), bytes.length - SNAPSHOT_HEADER_BYTES);
  assert.equal(bytes[9], 0x0a);
});
