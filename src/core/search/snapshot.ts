// The on-disk container of an index snapshot. The index is a cache: a file cut short by a crash, bit
// rot, a sync conflict or another plugin version must be recognised and discarded (SPEC §7), which a
// magic, a format version, the payload length and a CRC-32 make cheap and certain.
//
// Layout (little-endian): "SBMCP-IDX" (9 bytes ASCII), 0x0A, format version (u16), payload byte
// length (u32), CRC-32 of the payload (u32), then the payload: UTF-8 JSON of a SnapshotPayload.

export const SNAPSHOT_MAGIC = "SBMCP-IDX";
export const SNAPSHOT_FORMAT_VERSION = 1;
export const SNAPSHOT_HEADER_BYTES = 20;

const MAGIC_BYTES = new TextEncoder().encode(SNAPSHOT_MAGIC);
const SEPARATOR_BYTE = 0x0a;
const VERSION_OFFSET = 10;
const LENGTH_OFFSET = 12;
const CHECKSUM_OFFSET = 16;

export interface SnapshotFile {
  path: string;
  mtime: number;
  size: number;
  hash: string;
}

export interface SnapshotPayload {
  /** The caller's own schema version of what it stores (index options, tokenizer), checked on load. */
  version: number;
  createdAt: number;
  files: SnapshotFile[];
  index: unknown;
  extra?: Record<string, unknown>;
}

export type SnapshotErrorReason = "truncated" | "checksum" | "version" | "format";

/** A snapshot that cannot be used; the caller discards it and rebuilds. */
export class SnapshotError extends Error {
  readonly reason: SnapshotErrorReason;

  constructor(reason: SnapshotErrorReason, message: string) {
    super(message);
    this.name = "SnapshotError";
    this.reason = reason;
  }
}

export function isSnapshotError(value: unknown): value is SnapshotError {
  return value instanceof SnapshotError;
}

export function encodeSnapshot(payload: SnapshotPayload): Uint8Array {
  const body = new TextEncoder().encode(JSON.stringify(payload));
  const bytes = new Uint8Array(SNAPSHOT_HEADER_BYTES + body.length);
  bytes.set(MAGIC_BYTES, 0);
  bytes[MAGIC_BYTES.length] = SEPARATOR_BYTE;
  const header = new DataView(bytes.buffer, bytes.byteOffset, SNAPSHOT_HEADER_BYTES);
  header.setUint16(VERSION_OFFSET, SNAPSHOT_FORMAT_VERSION, true);
  header.setUint32(LENGTH_OFFSET, body.length, true);
  header.setUint32(CHECKSUM_OFFSET, crc32(body), true);
  bytes.set(body, SNAPSHOT_HEADER_BYTES);
  return bytes;
}

/**
 * Reads a snapshot back. `expectedVersion`, when given, must equal the payload's `version`, so a
 * snapshot written by an older tokenizer or index layout is refused with reason "version".
 */
export function decodeSnapshot(bytes: Uint8Array, expectedVersion?: number): SnapshotPayload {
  if (bytes.length < SNAPSHOT_HEADER_BYTES) {
    if (startsWithMagicPrefix(bytes)) {
      throw new SnapshotError("truncated", `Snapshot is ${bytes.length} bytes, shorter than its header.`);
    }
    throw new SnapshotError("format", "Not an index snapshot: the magic bytes are missing.");
  }
  if (!startsWithMagicPrefix(bytes) || bytes[MAGIC_BYTES.length] !== SEPARATOR_BYTE) {
    throw new SnapshotError("format", "Not an index snapshot: the magic bytes are missing.");
  }
  const header = new DataView(bytes.buffer, bytes.byteOffset, SNAPSHOT_HEADER_BYTES);
  const formatVersion = header.getUint16(VERSION_OFFSET, true);
  if (formatVersion !== SNAPSHOT_FORMAT_VERSION) {
    throw new SnapshotError(
      "version",
      `Snapshot format version ${formatVersion} is not the supported version ${SNAPSHOT_FORMAT_VERSION}.`,
    );
  }
  const length = header.getUint32(LENGTH_OFFSET, true);
  const available = bytes.length - SNAPSHOT_HEADER_BYTES;
  if (available < length) {
    throw new SnapshotError("truncated", `Snapshot payload has ${available} of its ${length} bytes.`);
  }
  if (available > length) {
    throw new SnapshotError("format", `Snapshot has ${available - length} bytes after its payload.`);
  }
  const body = bytes.subarray(SNAPSHOT_HEADER_BYTES);
  if (crc32(body) !== header.getUint32(CHECKSUM_OFFSET, true)) {
    throw new SnapshotError("checksum", "Snapshot payload does not match its checksum.");
  }
  const payload = parsePayload(body);
  if (expectedVersion !== undefined && payload.version !== expectedVersion) {
    throw new SnapshotError("version", `Snapshot payload version ${payload.version} is not ${expectedVersion}.`);
  }
  return payload;
}

function startsWithMagicPrefix(bytes: Uint8Array): boolean {
  const length = Math.min(bytes.length, MAGIC_BYTES.length);
  for (let i = 0; i < length; i++) if (bytes[i] !== MAGIC_BYTES[i]) return false;
  return true;
}

function parsePayload(body: Uint8Array): SnapshotPayload {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch {
    throw new SnapshotError("format", "Snapshot payload is not UTF-8 JSON.");
  }
  if (!isRecord(value)) throw new SnapshotError("format", "Snapshot payload is not an object.");
  const { version, createdAt, files, index, extra } = value;
  if (typeof version !== "number" || typeof createdAt !== "number" || !Array.isArray(files) || !("index" in value)) {
    throw new SnapshotError("format", "Snapshot payload lacks version, createdAt, files or index.");
  }
  if (!files.every(isSnapshotFile)) throw new SnapshotError("format", "Snapshot payload has a malformed file entry.");
  if (extra !== undefined && !isRecord(extra)) throw new SnapshotError("format", "Snapshot payload extra is not an object.");
  const payload: SnapshotPayload = { version, createdAt, files, index };
  if (extra !== undefined) payload.extra = extra;
  return payload;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isSnapshotFile(value: unknown): value is SnapshotFile {
  return (
    isRecord(value) &&
    typeof value.path === "string" &&
    typeof value.mtime === "number" &&
    typeof value.size === "number" &&
    typeof value.hash === "string"
  );
}

const CRC_TABLE = buildCrcTable();

function buildCrcTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

/** CRC-32 (IEEE 802.3, as in zip and PNG) of the bytes. */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = CRC_TABLE[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
