import { test } from "node:test";
import assert from "node:assert/strict";
import { encodeMetadataFile, metadataKey, pinnedBytes, readMetadataTable, readStoredMetadata, METADATA_KEY } from "../../../src/core/vault/metadata-file";

const noPause = async (): Promise<void> => undefined;

function joined(parts: readonly Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}

const entries = [
  { position: 0, bytes: Uint8Array.of(1, 2, 3) },
  { position: 4, bytes: new Uint8Array(0) },
  { position: 2, bytes: new TextEncoder().encode("Größe 東京") },
];

test("each entry's bytes are found by its row and read back checked", async () => {
  const file = joined(await encodeMetadataFile(0xdeadbeef, entries, noPause));
  const table = readMetadataTable(pinnedBytes(file), 0xdeadbeef, 5);
  assert.ok(table);
  assert.deepEqual([...table.keys()], [0, 4, 2]);
  for (const entry of entries) assert.deepEqual(readStoredMetadata(table.get(entry.position)!), entry.bytes);
  assert.match(metadataKey(0xdeadbeef), METADATA_KEY);
  assert.equal(metadataKey(0x1f), "index-metadata-0000001f");
});

test("a damaged note's bytes read as null, the others still read", async () => {
  const file = joined(await encodeMetadataFile(7, entries, noPause));
  const table = readMetadataTable(pinnedBytes(file), 7, 5)!;
  const damaged = file.slice();
  damaged[table.get(2)!.start + 1]! ^= 0x40;
  const again = readMetadataTable(pinnedBytes(damaged), 7, 5)!;
  assert.equal(readStoredMetadata(again.get(2)!), null);
  assert.deepEqual(readStoredMetadata(again.get(0)!), entries[0]!.bytes);
});

test("another base's file, a damaged table, a file cut short or rows out of range are not used", async () => {
  const file = joined(await encodeMetadataFile(7, entries, noPause));
  assert.equal(readMetadataTable(pinnedBytes(file), 8, 5), null, "another base");
  assert.equal(readMetadataTable(pinnedBytes(file), 7, 4), null, "a row beyond the base's");
  const table = file.slice();
  table[25]! ^= 0x01;
  assert.equal(readMetadataTable(pinnedBytes(table), 7, 5), null, "the table fails its check");
  assert.equal(readMetadataTable(pinnedBytes(file.subarray(0, file.length - 1)), 7, 5), null, "cut short");
  assert.equal(readMetadataTable(pinnedBytes(file.subarray(0, 10)), 7, 5), null, "no header");
  assert.equal(readMetadataTable(pinnedBytes(new TextEncoder().encode("SBMCP-IDX\nnot this")), 7, 5), null, "another kind of file");
  const twice = joined(await encodeMetadataFile(7, [entries[0]!, { position: 0, bytes: Uint8Array.of(9) }], noPause));
  assert.equal(readMetadataTable(pinnedBytes(twice), 7, 5), null, "a row given twice");
});

test("a released file reads nothing", async () => {
  const pinned = pinnedBytes(joined(await encodeMetadataFile(1, entries, noPause)));
  const table = readMetadataTable(pinned, 1, 5)!;
  pinned.release();
  assert.equal(readStoredMetadata(table.get(0)!), null);
});
