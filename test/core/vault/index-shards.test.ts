import { test } from "node:test";
import assert from "node:assert/strict";
import { FIELD_COUNT } from "../../../src/core/search/note-index";
import { PostingsBuilder, decodeChunk } from "../../../src/core/search/postings";
import { buildPhraseFilter } from "../../../src/core/search/phrase-filter";
import { SnapshotError, decodeJson, decodeSnapshot, encodeJson, encodeSnapshot, snapshotChecksum } from "../../../src/core/search/snapshot";
import { TimeSlice } from "../../../src/core/time-slice";
import {
  SHARD_COUNT,
  decodeManifest,
  decodeShard,
  encodeManifest,
  encodeShard,
  isShardKey,
  shardKey,
  shardOf,
  type ShardContent,
  type ShardRow,
} from "../../../src/core/vault/index-shards";

const slice = new TimeSlice(() => Date.now(), () => new Promise((resolve) => setImmediate(resolve)));

function reason(expected: string): (error: unknown) => boolean {
  return (error: unknown) => error instanceof SnapshotError && error.reason === expected;
}

test("notes spread over the shards by a stable hash of their path", () => {
  // Fixed values: a change of hash would silently move every note to another shard file.
  assert.equal(shardOf(""), 0x811c9dc5 % SHARD_COUNT);
  assert.equal(shardOf("wiki/rate-limiting.md"), shardOf("wiki/rate-limiting.md"));
  const counts = new Array<number>(SHARD_COUNT).fill(0);
  for (let i = 0; i < 12_800; i++) counts[shardOf(`folder ${i % 7}/note ${i}.md`)]! += 1;
  assert.ok(Math.min(...counts) > 50 && Math.max(...counts) < 150, `${Math.min(...counts)}..${Math.max(...counts)}`);
  assert.equal(shardKey(0), "index-00");
  assert.equal(shardKey(SHARD_COUNT - 1), `index-${(SHARD_COUNT - 1).toString(16)}`);
  assert.ok(isShardKey("index-7f") && !isShardKey("index") && !isShardKey("index-7f.tmp") && !isShardKey("other-00"));
});

test("a manifest round-trips and refuses other versions, shapes and duplicate shards", () => {
  const manifest = { createdAt: 1_700_000_000_000, shards: SHARD_COUNT, entries: [{ shard: 3, crc: 12345, bytes: 999, docs: 7 }] };
  assert.deepEqual(decodeManifest(encodeManifest(manifest)), manifest);
  const [section] = decodeSnapshot(encodeManifest(manifest));
  const fields = decodeJson(section, "manifest") as Record<string, unknown>;
  const variant = (change: Record<string, unknown>): Uint8Array => encodeSnapshot([encodeJson({ ...fields, ...change })]);
  assert.throws(() => decodeManifest(variant({ version: 99 })), reason("version"));
  assert.throws(() => decodeManifest(variant({ indexVersion: 99 })), reason("version"));
  assert.throws(() => decodeManifest(variant({ kind: "shard" })), reason("format"));
  assert.throws(() => decodeManifest(variant({ entries: [[3, 1, 1, 1], [3, 2, 2, 2]] })), reason("format"));
  assert.throws(() => decodeManifest(variant({ entries: [[SHARD_COUNT, 1, 1, 1]] })), reason("format"));
  assert.throws(() => decodeManifest(variant({ entries: [[1, -1, 1, 1]] })), reason("format"));
  assert.throws(() => decodeManifest(encodeManifest(manifest).subarray(0, 30)), reason("truncated"));
});

function pathIn(shard: number, extension: string, skip = 0): string {
  for (let i = 0, seen = 0; ; i++) {
    const path = `n/${i}.${extension}`;
    if (shardOf(path) === shard && seen++ === skip) return path;
  }
}

function content(shard: number): ShardContent {
  const note = pathIn(shard, "md");
  const canvas = pathIn(shard, "canvas");
  const rows: ShardRow[] = [
    {
      path: note,
      mtime: 1_700_000_000_123,
      size: 42,
      hash: "ab".repeat(16),
      facts: { title: "Custom title", tags: ["a/b"], aliases: ["Alias"], tasks: [{ line: 3, text: "do it", done: false, status: " ", heading: null }], words: 9 },
      lengths: [1, 1, 0, 1, 3],
      filter: buildPhraseFilter([["do", "it", "here"], ["custom", "title"]]),
    },
    { path: canvas, mtime: 5, size: 6, hash: "cd".repeat(16), facts: { title: canvas.slice(2, -7), tags: [], aliases: [], tasks: [], words: 2 }, lengths: [1, 0, 0, 0, 2] },
    { path: pathIn(shard, "png"), mtime: 7, size: 8 },
  ];
  const builder = new PostingsBuilder(FIELD_COUNT);
  const body = new Map([["do", 2], ["it", 1], ["here", 1]]);
  builder.addVector(0, { lengths: [1, 1, 0, 1, 3], terms: [new Map([["custom", 1]]), new Map([["alias", 1]]), new Map(), new Map([["a", 1]]), body] });
  builder.addVector(1, { lengths: [1, 0, 0, 0, 2], terms: [new Map([["board", 1]]), new Map(), new Map(), new Map(), new Map([["do", 1], ["here", 3]])] });
  return { shard, rows, metadata: [{ format: "test", notes: { [note]: { links: [], cache: "{}" } } }, { format: "test", notes: {} }], chunks: builder.chunks(2, 4) };
}

test("a shard round-trips its rows, metadata and postings chunks", async () => {
  const original = content(5);
  const bytes = await encodeShard(original, slice);
  const decoded = decodeShard(bytes, { shard: 5, crc: snapshotChecksum(bytes)! });
  assert.deepEqual(decoded.rows, original.rows);
  assert.equal(decoded.rows[0]!.facts!.title, "Custom title");
  assert.deepEqual(
    Array.from({ length: decoded.metadataCount }, (_, i) => decoded.metadata(i)),
    original.metadata,
  );
  assert.equal(decoded.chunkCount, original.chunks.length);
  assert.deepEqual(
    Array.from({ length: decoded.chunkCount }, (_, i) => decodeChunk(decoded.chunk(i), 2, FIELD_COUNT)),
    original.chunks,
  );
});

test("a shard that is not the one the manifest names is refused", async () => {
  const bytes = await encodeShard(content(5), slice);
  const crc = snapshotChecksum(bytes)!;
  assert.throws(() => decodeShard(bytes, { shard: 5, crc: crc ^ 1 }), reason("checksum"));
  assert.throws(() => decodeShard(bytes, { shard: 6, crc }), reason("format"));
  const misplaced = content(5);
  misplaced.rows.push({ path: pathIn(9, "md"), mtime: 1, size: 1 });
  const moved = await encodeShard(misplaced, slice);
  assert.throws(() => decodeShard(moved, { shard: 5, crc: snapshotChecksum(moved)! }), reason("format"));
  const doubled = content(5);
  doubled.rows.push({ ...doubled.rows[0]! });
  const twice = await encodeShard(doubled, slice);
  assert.throws(() => decodeShard(twice, { shard: 5, crc: snapshotChecksum(twice)! }), reason("format"));
});

test("malformed phrase filter sections are refused as format errors", async () => {
  const bytes = await encodeShard(content(5), slice);
  const sections = decodeSnapshot(bytes);
  const filters = sections[2]!;
  const withFilters = (changed: Uint8Array): Uint8Array => encodeSnapshot([sections[0]!, sections[1]!, changed, ...sections.slice(3)]);
  const patched = (...changes: Array<[number, number]>): Uint8Array => {
    const copy = filters.slice();
    for (const [offset, value] of changes) new DataView(copy.buffer).setUint32(offset, value, true);
    return copy;
  };
  const firstLength = new DataView(filters.buffer, filters.byteOffset).getUint32(4, true);
  const cases: Array<[string, Uint8Array]> = [
    ["empty", new Uint8Array(0)],
    ["count differs from the rows", patched([0, 2])],
    ["a filter running past the section", patched([4, 1 << 20])],
    // The first row's filter moved to the third, the attachment.
    ["a filter on a row without postings", patched([4, 0], [12, firstLength])],
    ["bytes after the last filter", Uint8Array.from([...filters, 0])],
  ];
  for (const [what, changed] of cases) {
    const broken = withFilters(changed);
    assert.throws(() => decodeShard(broken, { shard: 5, crc: snapshotChecksum(broken)! }), reason("format"), what);
  }
});

test("malformed rows are refused as format errors", async () => {
  const bytes = await encodeShard(content(5), slice);
  const sections = decodeSnapshot(bytes);
  const rows = decodeJson(sections[1], "rows") as unknown[][];
  const withRows = (changed: unknown): Uint8Array => encodeSnapshot([sections[0]!, encodeJson(changed), ...sections.slice(2)]);
  assert.equal(sections.length, 3 + 2 + content(5).chunks.length, "header, rows, filters, two metadata parts, then the chunks");
  const first = rows[0]!;
  const cases: unknown[] = [
    [[...first.slice(0, 5)], ...rows.slice(1)],
    [[1, ...first.slice(1)], ...rows.slice(1)],
    [[...first.slice(0, 3), 5, ...first.slice(4)], ...rows.slice(1)],
    [[...first.slice(0, 4), ["t", ["a"], [], [[1, "x", " "]], 1], first[5]], ...rows.slice(1)],
    [[...first.slice(0, 4), ["t", "a", [], [], 1], first[5]], ...rows.slice(1)],
    [[...first.slice(0, 5), "lengths"], ...rows.slice(1)],
    rows.slice(1),
  ];
  for (const changed of cases) {
    const broken = withRows(changed);
    assert.throws(() => decodeShard(broken, { shard: 5, crc: snapshotChecksum(broken)! }), reason("format"), JSON.stringify(changed).slice(0, 120));
  }
});
