// The notes' packed metadata of a base (see index-files.ts), in a file of its own beside it. Held in
// memory it was the largest part of a warm start (16 MB for 20,000 notes) while a tool reads a few
// notes' metadata at a time; so the file stays on disk, held open, and a note's bytes are read when
// asked. Unlike the other snapshot files it is not checked whole at load (that would read all of it):
// its table is checked at load and each note's bytes when they are read, each with a CRC-32.
//
// Layout (little-endian): "SBMCP-MD" and 0x0A (9 bytes), format version (u16), the base's id (u32),
// entry count (u32), CRC-32 of the table (u32), the table: per entry the row's position in the base,
// the byte length and the CRC-32 of the bytes (u32 each), then the entries' bytes one after the other.
import { crc32 } from "../search/snapshot";
import type { PinnedFile, StoredMetadata } from "../ports";

const MAGIC = new TextEncoder().encode("SBMCP-MD\n");
export const METADATA_FILE_VERSION = 1;
const HEAD_BYTES = MAGIC.length + 2 + 4 + 4 + 4;
const ENTRY_BYTES = 12;

/** The store key of the metadata file of the base with this id. */
export function metadataKey(baseId: number): string {
  return `index-metadata-${(baseId >>> 0).toString(16).padStart(8, "0")}`;
}

export const METADATA_KEY = /^index-metadata-[0-9a-f]{8}$/;

export interface MetadataEntry {
  /** The note's row in the base. */
  position: number;
  bytes: Uint8Array;
}

/** Entries checksummed between two pauses. */
const ENTRIES_PER_STEP = 512;

/** The file as parts to write one after the other; `pause` between stretches of checksumming. */
export async function encodeMetadataFile(baseId: number, entries: readonly MetadataEntry[], pause: () => Promise<void>): Promise<Uint8Array[]> {
  const table = new Uint8Array(ENTRY_BYTES * entries.length);
  const view = new DataView(table.buffer);
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    view.setUint32(ENTRY_BYTES * i, entry.position, true);
    view.setUint32(ENTRY_BYTES * i + 4, entry.bytes.length, true);
    view.setUint32(ENTRY_BYTES * i + 8, crc32(entry.bytes), true);
    if (i % ENTRIES_PER_STEP === ENTRIES_PER_STEP - 1) await pause();
  }
  const head = new Uint8Array(HEAD_BYTES);
  const headView = new DataView(head.buffer);
  head.set(MAGIC, 0);
  headView.setUint16(MAGIC.length, METADATA_FILE_VERSION, true);
  headView.setUint32(MAGIC.length + 2, baseId >>> 0, true);
  headView.setUint32(MAGIC.length + 6, entries.length, true);
  headView.setUint32(MAGIC.length + 10, tableChecksum(head, table), true);
  return [head, table, ...entries.map((entry) => entry.bytes)];
}

function tableChecksum(head: Uint8Array, table: Uint8Array): number {
  const covered = new Uint8Array(8 + table.length);
  covered.set(head.subarray(MAGIC.length + 2, MAGIC.length + 10), 0);
  covered.set(table, 8);
  return crc32(covered);
}

/**
 * Where each entry's bytes lie in a pinned metadata file of the base `baseId`, by row position; null
 * when the file is not one (another base's, another version, a table that fails its check or points
 * past the end, a position at or beyond `rowCount` or given twice).
 */
export function readMetadataTable(file: PinnedFile, baseId: number, rowCount: number): Map<number, StoredMetadata> | null {
  const head = file.read(0, HEAD_BYTES);
  if (!head || head.length < HEAD_BYTES || MAGIC.some((byte, i) => head[i] !== byte)) return null;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (view.getUint16(MAGIC.length, true) !== METADATA_FILE_VERSION || view.getUint32(MAGIC.length + 2, true) !== baseId >>> 0) return null;
  const count = view.getUint32(MAGIC.length + 6, true);
  if (count > rowCount) return null;
  const table = file.read(HEAD_BYTES, ENTRY_BYTES * count);
  if (!table || table.length !== ENTRY_BYTES * count || tableChecksum(head, table) !== view.getUint32(MAGIC.length + 10, true)) return null;
  const entries = new Map<number, StoredMetadata>();
  const tableView = new DataView(table.buffer, table.byteOffset, table.byteLength);
  let at = HEAD_BYTES + table.length;
  for (let i = 0; i < count; i++) {
    const position = tableView.getUint32(ENTRY_BYTES * i, true);
    const length = tableView.getUint32(ENTRY_BYTES * i + 4, true);
    if (position >= rowCount || entries.has(position)) return null;
    entries.set(position, { file, start: at, length, crc: tableView.getUint32(ENTRY_BYTES * i + 8, true) });
    at += length;
  }
  // The last entry's bytes must be there: a file cut short fails here, not one note at a time.
  if (count > 0 && file.read(at - 1, 1)?.length !== 1) return null;
  return entries;
}

/** A stored note's bytes, null when they cannot be read or fail their check. */
export function readStoredMetadata(stored: StoredMetadata): Uint8Array | null {
  const bytes = stored.file.read(stored.start, stored.length);
  if (!bytes || bytes.length !== stored.length || crc32(bytes) !== stored.crc) return null;
  return bytes;
}

/** A PinnedFile over bytes already in memory, for stores that cannot read synchronously. */
export function pinnedBytes(bytes: Uint8Array): PinnedFile {
  let held: Uint8Array | null = bytes;
  return {
    read: (start, length) => (held && start >= 0 && start + length <= held.length ? held.subarray(start, start + length) : null),
    release: () => {
      held = null;
    },
  };
}
