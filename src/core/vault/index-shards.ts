// The files of a sharded index snapshot. Notes are spread over a fixed number of shards by a hash of
// their path; each shard file holds its notes' file records, facts, parsed metadata and postings, so it
// can be loaded, checked, discarded or rewritten on its own. The manifest, written last, names the shard
// files of one consistent snapshot by checksum: a shard that does not match it is not part of it.
//
// Shard sections: header, rows, phrase filters (binary: a u32 count, a u32 length per row, then the
// filters' bytes; length 0 for none), metadata parts, then postings chunks (see ../search/postings.ts).
// Each part is small, so decoding one never holds the event loop for long.
import type { NoteFacts, TaskItem } from "../notes/structure";
import { SnapshotError, decodeJson, decodeSnapshot, encodeJson, encodeSnapshot, snapshotChecksum } from "../search/snapshot";
import { NOTE_INDEX_VERSION } from "../search/note-index";
import { encodeChunk, type PostingsChunk } from "../search/postings";
import type { TimeSlice } from "../time-slice";

/** Bump when what a shard or the manifest holds changes: older snapshots are then rebuilt. */
export const SNAPSHOT_VERSION = 7;
export const MANIFEST_KEY = "index";
export const SHARD_COUNT = 128;
const SHARD_KEY_PREFIX = "index-";
const SHARD_KEY = /^index-[0-9a-f]{2}$/;

/** FNV-1a over the path's UTF-16 code units: stable across runs, hosts and versions. */
export function shardOf(path: string, count: number = SHARD_COUNT): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) {
    hash ^= path.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % count;
}

export function shardKey(shard: number): string {
  return SHARD_KEY_PREFIX + shard.toString(16).padStart(2, "0");
}

export function isShardKey(key: string): boolean {
  return SHARD_KEY.test(key);
}

export interface ManifestEntry {
  shard: number;
  /** CRC-32 of the shard file's payload, as its header records it. */
  crc: number;
  bytes: number;
  docs: number;
}

export interface Manifest {
  createdAt: number;
  shards: number;
  entries: ManifestEntry[];
}

export function encodeManifest(manifest: Manifest): Uint8Array {
  return encodeSnapshot([
    encodeJson({
      kind: "manifest",
      version: SNAPSHOT_VERSION,
      indexVersion: NOTE_INDEX_VERSION,
      createdAt: manifest.createdAt,
      shards: manifest.shards,
      entries: manifest.entries.map((entry) => [entry.shard, entry.crc, entry.bytes, entry.docs]),
    }),
  ]);
}

/** Throws a SnapshotError unless the bytes are a manifest of this version. */
export function decodeManifest(bytes: Uint8Array): Manifest {
  const value = decodeJson(decodeSnapshot(bytes)[0], "manifest");
  if (!isRecord(value) || value.kind !== "manifest") throw new SnapshotError("format", "Not an index manifest.");
  if (value.version !== SNAPSHOT_VERSION || value.indexVersion !== NOTE_INDEX_VERSION) {
    throw new SnapshotError("version", `Index manifest version ${String(value.version)} is not ${SNAPSHOT_VERSION}.`);
  }
  const { createdAt, shards, entries } = value;
  if (typeof createdAt !== "number" || !Number.isInteger(shards) || !Array.isArray(entries)) {
    throw new SnapshotError("format", "Index manifest lacks createdAt, shards or entries.");
  }
  const seen = new Set<number>();
  const parsed = entries.map((entry: unknown): ManifestEntry => {
    if (!Array.isArray(entry) || entry.length !== 4 || !entry.every((part) => Number.isInteger(part) && (part as number) >= 0)) {
      throw new SnapshotError("format", "Index manifest has a malformed entry.");
    }
    const [shard, crc, size, docs] = entry as number[];
    if (shard! >= (shards as number) || seen.has(shard!)) throw new SnapshotError("format", "Index manifest lists a shard twice or out of range.");
    seen.add(shard!);
    return { shard: shard!, crc: crc!, bytes: size!, docs: docs! };
  });
  return { createdAt, shards: shards as number, entries: parsed };
}

/** One file of the vault as a shard stores it; `lengths` only for files with postings. */
export interface ShardRow {
  path: string;
  mtime: number;
  size: number;
  hash?: string;
  facts?: NoteFacts;
  lengths?: number[];
  /** The note's phrase filter (see ../search/phrase-filter.ts), only with `lengths`. */
  filter?: Uint8Array;
}

export interface ShardContent {
  shard: number;
  rows: ShardRow[];
  /** What the metadata port exported for the shard's notes, a few notes per part. */
  metadata: unknown[];
  chunks: PostingsChunk[];
}

/** A shard file checked and split, its metadata parts and postings chunks parsed only when asked for. */
export interface DecodedShard {
  shard: number;
  rows: ShardRow[];
  metadataCount: number;
  /** Parses metadata part i. */
  metadata(i: number): unknown;
  chunkCount: number;
  /** Encoded chunk i (unchecked: its reader checks it against the rows, see postings.ts). */
  chunk(i: number): Uint8Array;
}

export async function encodeShard(content: ShardContent, slice: TimeSlice): Promise<Uint8Array> {
  const sections: Uint8Array[] = [
    encodeJson({
      kind: "shard",
      version: SNAPSHOT_VERSION,
      indexVersion: NOTE_INDEX_VERSION,
      shard: content.shard,
      shards: SHARD_COUNT,
      docs: content.rows.length,
      metadata: content.metadata.length,
      chunks: content.chunks.length,
    }),
    encodeJson(content.rows.map(packRow)),
    encodeFilters(content.rows),
  ];
  for (const part of content.metadata) {
    await slice.pause();
    sections.push(encodeJson(part));
  }
  for (const chunk of content.chunks) {
    await slice.pause();
    sections.push(encodeChunk(chunk));
  }
  return encodeSnapshot(sections);
}

/**
 * Checks a shard file against what the manifest says of it (checksum, shard number) and parses its
 * header, rows and metadata. Throws a SnapshotError when it is not that shard.
 */
export function decodeShard(bytes: Uint8Array, expected: { shard: number; crc: number }): DecodedShard {
  const recorded = snapshotChecksum(bytes);
  if (recorded !== null && recorded !== expected.crc) {
    throw new SnapshotError("checksum", "Shard file is not the one the manifest names (another write got there first).");
  }
  const sections = decodeSnapshot(bytes);
  const header = decodeJson(sections[0], "shard header");
  if (!isRecord(header) || header.kind !== "shard") throw new SnapshotError("format", "Not an index shard.");
  if (header.version !== SNAPSHOT_VERSION || header.indexVersion !== NOTE_INDEX_VERSION || header.shards !== SHARD_COUNT) {
    throw new SnapshotError("version", "Index shard was written by another version.");
  }
  if (header.shard !== expected.shard) throw new SnapshotError("format", `Shard file holds shard ${String(header.shard)}, not ${expected.shard}.`);
  const chunkCount = header.chunks;
  const metadataCount = header.metadata;
  if (!Number.isInteger(chunkCount) || !Number.isInteger(metadataCount) || sections.length !== 3 + (metadataCount as number) + (chunkCount as number)) {
    throw new SnapshotError("format", "Index shard has the wrong number of sections.");
  }
  const metadataAt = 3;
  const chunksAt = metadataAt + (metadataCount as number);
  const rowsValue = decodeJson(sections[1], "rows");
  if (!Array.isArray(rowsValue) || rowsValue.length !== header.docs) throw new SnapshotError("format", "Index shard rows do not match its header.");
  const seen = new Set<string>();
  const rows = rowsValue.map((value: unknown) => {
    const row = unpackRow(value);
    if (seen.has(row.path)) throw new SnapshotError("format", "Index shard lists a file twice.");
    if (shardOf(row.path) !== expected.shard) throw new SnapshotError("format", "Index shard holds a file of another shard.");
    seen.add(row.path);
    return row;
  });
  decodeFilters(sections[2]!, rows);
  return {
    shard: expected.shard,
    rows,
    metadataCount: metadataCount as number,
    metadata: (i) => decodeJson(sections[metadataAt + i], "metadata"),
    chunkCount: chunkCount as number,
    chunk: (i) => {
      const section = sections[chunksAt + i];
      if (section === undefined) throw new SnapshotError("format", "Snapshot lacks a postings section.");
      return section;
    },
  };
}

const FILTER_LENGTH_BYTES = 4;

function encodeFilters(rows: readonly ShardRow[]): Uint8Array {
  const total = rows.reduce((sum, row) => sum + (row.filter?.length ?? 0), 0);
  const bytes = new Uint8Array(FILTER_LENGTH_BYTES * (1 + rows.length) + total);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, rows.length, true);
  let at = FILTER_LENGTH_BYTES * (1 + rows.length);
  rows.forEach((row, position) => {
    const filter = row.filter;
    view.setUint32(FILTER_LENGTH_BYTES * (1 + position), filter?.length ?? 0, true);
    if (filter) {
      bytes.set(filter, at);
      at += filter.length;
    }
  });
  return bytes;
}

/** Gives each row its filter, from one copy of the section so the file's bytes need not stay in memory. */
function decodeFilters(section: Uint8Array, rows: ShardRow[]): void {
  const fail = (): never => {
    throw new SnapshotError("format", "Index shard has malformed phrase filters.");
  };
  if (section.length < FILTER_LENGTH_BYTES) fail();
  const view = new DataView(section.buffer, section.byteOffset, section.byteLength);
  if (view.getUint32(0, true) !== rows.length) fail();
  const headerBytes = FILTER_LENGTH_BYTES * (1 + rows.length);
  if (section.length < headerBytes) fail();
  const arena = section.slice(headerBytes);
  let at = 0;
  rows.forEach((row, position) => {
    const length = view.getUint32(FILTER_LENGTH_BYTES * (1 + position), true);
    if (length === 0) return;
    if (at + length > arena.length || row.lengths === undefined) fail();
    row.filter = arena.subarray(at, at + length);
    at += length;
  });
  if (at !== arena.length) fail();
}

// Rows are tuples, and facts inside them too: field names repeated for 20,000 notes would be a
// large share of the snapshot. A title equal to the file's name is left out.
type PackedTask = [number, string, string, string | null];
type PackedFacts = [string | null, string[], string[], PackedTask[], number];
type PackedRow = [string, number, number, string | null, PackedFacts | null, number[] | null];

function packRow(row: ShardRow): PackedRow {
  return [row.path, row.mtime, row.size, row.hash ?? null, row.facts ? packFacts(row.path, row.facts) : null, row.lengths ?? null];
}

function packFacts(path: string, facts: NoteFacts): PackedFacts {
  return [
    facts.title === defaultTitle(path) ? null : facts.title,
    facts.tags,
    facts.aliases,
    facts.tasks.map((task): PackedTask => [task.line, task.text, task.status, task.heading]),
    facts.words,
  ];
}

function unpackRow(value: unknown): ShardRow {
  if (!Array.isArray(value) || value.length !== 6) throw new SnapshotError("format", "Index shard has a malformed row.");
  const [path, mtime, size, hash, facts, lengths] = value as unknown[];
  if (typeof path !== "string" || typeof mtime !== "number" || typeof size !== "number") {
    throw new SnapshotError("format", "Index shard row lacks path, mtime or size.");
  }
  const row: ShardRow = { path, mtime, size };
  if (typeof hash === "string") row.hash = hash;
  else if (hash !== null) throw new SnapshotError("format", "Index shard row has a malformed hash.");
  if (facts !== null) row.facts = unpackFacts(path, facts);
  if (lengths !== null) {
    if (!Array.isArray(lengths)) throw new SnapshotError("format", "Index shard row has malformed field lengths.");
    row.lengths = lengths as number[];
  }
  return row;
}

function unpackFacts(path: string, value: unknown): NoteFacts {
  if (!Array.isArray(value) || value.length !== 5) throw new SnapshotError("format", "Index shard row has malformed facts.");
  const [title, tags, aliases, tasks, words] = value as unknown[];
  if (
    (title !== null && typeof title !== "string") ||
    !isStringArray(tags) ||
    !isStringArray(aliases) ||
    !Array.isArray(tasks) ||
    typeof words !== "number"
  ) {
    throw new SnapshotError("format", "Index shard row has malformed facts.");
  }
  return { title: title ?? defaultTitle(path), tags, aliases, tasks: tasks.map(unpackTask), words };
}

function unpackTask(value: unknown): TaskItem {
  if (!Array.isArray(value) || value.length !== 4) throw new SnapshotError("format", "Index shard row has a malformed task.");
  const [line, text, status, heading] = value as unknown[];
  if (typeof line !== "number" || typeof text !== "string" || typeof status !== "string" || (heading !== null && typeof heading !== "string")) {
    throw new SnapshotError("format", "Index shard row has a malformed task.");
  }
  return { line, text, done: status !== " ", status, heading };
}

function defaultTitle(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
