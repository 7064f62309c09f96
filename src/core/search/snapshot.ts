// The on-disk container of every index snapshot file (the manifest and each shard). The index is a
// cache: a file cut short by a crash, bit rot, a sync conflict or another plugin version must be
// recognised and discarded (SPEC §7), which a magic, a format version, the payload length and a
// CRC-32 make cheap and certain.
//
// Layout (little-endian): "SBMCP-IDX" (9 bytes ASCII), 0x0A, format version (u16), payload byte
// length (u32), CRC-32 of the payload (u32), then the payload: sections, each a u32 byte length and
// that many bytes. Sections let a reader decode a large file piece by piece, giving the event loop
// back in between, instead of parsing one giant JSON text.

import { noPause } from "../time-slice";

export const SNAPSHOT_MAGIC = "SBMCP-IDX";
export const SNAPSHOT_FORMAT_VERSION = 2;
export const SNAPSHOT_HEADER_BYTES = 20;

const MAGIC_BYTES = new TextEncoder().encode(SNAPSHOT_MAGIC);
const SEPARATOR_BYTE = 0x0a;
const VERSION_OFFSET = 10;
const LENGTH_OFFSET = 12;
const CHECKSUM_OFFSET = 16;
const SECTION_LENGTH_BYTES = 4;

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

export function encodeSnapshot(sections: readonly SectionSource[]): Uint8Array {
  const bytes = assemble(sections);
  writeChecksum(bytes, crc32(bytes.subarray(SNAPSHOT_HEADER_BYTES)));
  return bytes;
}

/** Pieces of a section gathered between two pauses. */
const PIECES_PER_PAUSE = 16_384;

/** Bytes checksummed between two pauses: a few milliseconds of work. */
const CHECKSUM_STEP = 1 << 22;

/**
 * As `encodeSnapshot`, for files of many megabytes, as the pieces to write one after the other (the
 * header first, with the checksum): nothing is copied into one file-sized buffer, and the checksum is
 * computed a step at a time with `pause` in between, so the event loop is never held for long.
 */
export async function encodeSnapshotParts(sections: readonly SectionSource[], pause: () => Promise<void>): Promise<Uint8Array[]> {
  const parts: Uint8Array[] = [];
  let payloadLength = 0;
  for (const section of sections) {
    const prefix = new Uint8Array(SECTION_LENGTH_BYTES);
    parts.push(prefix);
    let length = 0;
    // A section of postings comes in a piece per term list: some 100,000 at 50,000 notes.
    for (const [index, part] of (section instanceof Uint8Array ? [section] : section).entries()) {
      if (part.length > 0) parts.push(part);
      length += part.length;
      if (index % PIECES_PER_PAUSE === PIECES_PER_PAUSE - 1) await pause();
    }
    new DataView(prefix.buffer).setUint32(0, length, true);
    payloadLength += SECTION_LENGTH_BYTES + length;
  }
  const header = new Uint8Array(SNAPSHOT_HEADER_BYTES);
  writeHeader(header, payloadLength);
  writeChecksum(header, await crc32OfParts(parts, pause));
  return [header, ...parts];
}

/** A section's bytes, whole or in pieces to be concatenated (saving a copy of a large section). */
export type SectionSource = Uint8Array | readonly Uint8Array[];

function sourceLength(section: SectionSource): number {
  return section instanceof Uint8Array ? section.length : section.reduce((sum, part) => sum + part.length, 0);
}

function assemble(sections: readonly SectionSource[]): Uint8Array {
  const payloadLength = sections.reduce((sum, section) => sum + SECTION_LENGTH_BYTES + sourceLength(section), 0);
  const bytes = new Uint8Array(SNAPSHOT_HEADER_BYTES + payloadLength);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  writeHeader(bytes, payloadLength);
  let at = SNAPSHOT_HEADER_BYTES;
  for (const section of sections) {
    view.setUint32(at, sourceLength(section), true);
    at += SECTION_LENGTH_BYTES;
    for (const part of section instanceof Uint8Array ? [section] : section) {
      bytes.set(part, at);
      at += part.length;
    }
  }
  return bytes;
}

function writeHeader(bytes: Uint8Array, payloadLength: number): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  bytes.set(MAGIC_BYTES, 0);
  bytes[MAGIC_BYTES.length] = SEPARATOR_BYTE;
  view.setUint16(VERSION_OFFSET, SNAPSHOT_FORMAT_VERSION, true);
  view.setUint32(LENGTH_OFFSET, payloadLength, true);
}

function writeChecksum(bytes: Uint8Array, crc: number): void {
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).setUint32(CHECKSUM_OFFSET, crc, true);
}

/** The CRC-32 recorded in a snapshot's header (not verified), or null when there is no header. */
export function snapshotChecksum(bytes: Uint8Array): number | null {
  if (bytes.length < SNAPSHOT_HEADER_BYTES || !startsWithMagicPrefix(bytes)) return null;
  return new DataView(bytes.buffer, bytes.byteOffset, SNAPSHOT_HEADER_BYTES).getUint32(CHECKSUM_OFFSET, true);
}

/** Checks the header, length and checksum, and returns the sections (views into `bytes`). */
export function decodeSnapshot(bytes: Uint8Array): Uint8Array[] {
  const recorded = checkHeader(bytes);
  if (crc32(bytes.subarray(SNAPSHOT_HEADER_BYTES)) !== recorded) throw checksumMismatch();
  return splitSections(bytes);
}

/** Reads bytes [start, end) of a file: fewer where it ends first, null when it does not exist. */
export type ReadRange = (start: number, end: number) => Promise<Uint8Array | null>;

/** Bytes read at a time from the part of a file that is parsed and let go. */
const READ_STEP = 1 << 20;

/**
 * A snapshot read section by section: the sections before `keptFrom` in reads of about a megabyte,
 * each let go once parsed, instead of one buffer as large as them all that lingers until a garbage
 * collection; the rest in one read, of which the caller keeps views. The checksum is computed as the
 * bytes arrive and checked by `finish`, after the last section: nothing read may be trusted before.
 */
export class SnapshotSectionReader {
  private readonly read: ReadRange;
  private readonly keptFrom: number;
  private readonly total: number;
  private readonly recorded: number;
  private crc = 0xffffffff;
  /** Bytes of the file from `bufferStart` on, read and checksummed. */
  private buffer: Uint8Array;
  private bufferStart: number;
  private position = SNAPSHOT_HEADER_BYTES;
  private readonly pause: () => Promise<void>;

  /**
   * `first`: the file's first bytes (at least its header). `pause` comes between the pieces of a long
   * checksum: the kept part of a 50,000-note base took 50 ms in one piece.
   */
  constructor(read: ReadRange, first: Uint8Array, keptFrom: number, pause: () => Promise<void> = noPause) {
    this.read = read;
    this.keptFrom = keptFrom;
    this.pause = pause;
    this.recorded = checkHeader(first, Number.MAX_SAFE_INTEGER, true);
    const view = new DataView(first.buffer, first.byteOffset, first.byteLength);
    this.total = SNAPSHOT_HEADER_BYTES + view.getUint32(LENGTH_OFFSET, true);
    this.buffer = first.subarray(SNAPSHOT_HEADER_BYTES, Math.min(first.length, this.total));
    this.bufferStart = SNAPSHOT_HEADER_BYTES;
    this.crc = crc32Update(this.crc, this.buffer);
  }

  /** The recorded checksum: the file's id. */
  get checksum(): number {
    return this.recorded;
  }

  /** The next section, undefined after the last. */
  async next(): Promise<Uint8Array | undefined> {
    if (this.position >= this.total) return undefined;
    await this.ensure(this.position + SECTION_LENGTH_BYTES);
    const at = this.position - this.bufferStart;
    const length = new DataView(this.buffer.buffer, this.buffer.byteOffset + at, SECTION_LENGTH_BYTES).getUint32(0, true);
    const end = this.position + SECTION_LENGTH_BYTES + length;
    if (end > this.total) throw new SnapshotError("format", "Snapshot section runs past the payload.");
    await this.ensure(end);
    const start = this.position + SECTION_LENGTH_BYTES - this.bufferStart;
    this.position = end;
    return this.buffer.subarray(start, start + length);
  }

  /** Checks that every section was read, the checksum and that nothing follows the payload. */
  async finish(): Promise<void> {
    if (this.position !== this.total) throw new SnapshotError("format", "Snapshot has sections its reader did not expect.");
    if (((this.crc ^ 0xffffffff) >>> 0) !== this.recorded) throw checksumMismatch();
    const after = await this.read(this.total, this.total + 1);
    if (after && after.length > 0) throw new SnapshotError("format", "Snapshot has bytes after its payload.");
  }

  private async ensure(end: number): Promise<void> {
    while (this.bufferStart + this.buffer.length < end) {
      const from = this.bufferStart + this.buffer.length;
      const to = from < this.keptFrom ? Math.min(this.keptFrom, Math.max(end, from + READ_STEP)) : this.total;
      if (from >= this.total || end > this.total) throw new SnapshotError("format", "Snapshot section runs past the payload.");
      const bytes = await this.read(from, to);
      if (!bytes || bytes.length < to - from) {
        throw new SnapshotError("truncated", `Snapshot payload has ${from - SNAPSHOT_HEADER_BYTES + (bytes?.length ?? 0)} of its ${this.total - SNAPSHOT_HEADER_BYTES} bytes.`);
      }
      for (let at = 0; at < bytes.length; at += CHECKSUM_STEP) {
        if (at > 0) await this.pause();
        this.crc = crc32Update(this.crc, bytes.subarray(at, Math.min(bytes.length, at + CHECKSUM_STEP)));
      }
      // What was read before and is not yet handed out is copied ahead of the new bytes; the rest goes.
      const keep = this.buffer.subarray(this.position - this.bufferStart);
      if (keep.length === 0) this.buffer = bytes;
      else {
        const joined = new Uint8Array(keep.length + bytes.length);
        joined.set(keep, 0);
        joined.set(bytes, keep.length);
        this.buffer = joined;
      }
      this.bufferStart = this.position;
    }
  }
}

/**
 * Where the given section starts in a snapshot, from the file's first bytes (null when they do not
 * reach it): a reader that keeps only the later sections reads them apart from the rest.
 */
export function sectionOffset(head: Uint8Array, section: number): number | null {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  let at = SNAPSHOT_HEADER_BYTES;
  for (let index = 0; index < section; index++) {
    if (head.length - at < SECTION_LENGTH_BYTES) return null;
    at += SECTION_LENGTH_BYTES + view.getUint32(at, true);
  }
  return at;
}

/**
 * Checks magic, version and length (`total`: the file's length, when it came in parts; `streamed`:
 * unknown yet, checked as it is read); returns the recorded checksum.
 */
function checkHeader(bytes: Uint8Array, total = bytes.length, streamed = false): number {
  if (bytes.length < SNAPSHOT_HEADER_BYTES) {
    if (startsWithMagicPrefix(bytes)) {
      throw new SnapshotError("truncated", `Snapshot is ${bytes.length} bytes, shorter than its header.`);
    }
    throw new SnapshotError("format", "Not an index snapshot: the magic bytes are missing.");
  }
  if (!startsWithMagicPrefix(bytes) || bytes[MAGIC_BYTES.length] !== SEPARATOR_BYTE) {
    throw new SnapshotError("format", "Not an index snapshot: the magic bytes are missing.");
  }
  const header = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const formatVersion = header.getUint16(VERSION_OFFSET, true);
  if (formatVersion !== SNAPSHOT_FORMAT_VERSION) {
    throw new SnapshotError(
      "version",
      `Snapshot format version ${formatVersion} is not the supported version ${SNAPSHOT_FORMAT_VERSION}.`,
    );
  }
  const length = header.getUint32(LENGTH_OFFSET, true);
  if (streamed) return header.getUint32(CHECKSUM_OFFSET, true);
  const available = total - SNAPSHOT_HEADER_BYTES;
  if (available < length) {
    throw new SnapshotError("truncated", `Snapshot payload has ${available} of its ${length} bytes.`);
  }
  if (available > length) {
    throw new SnapshotError("format", `Snapshot has ${available - length} bytes after its payload.`);
  }
  return header.getUint32(CHECKSUM_OFFSET, true);
}

function checksumMismatch(): SnapshotError {
  return new SnapshotError("checksum", "Snapshot payload does not match its checksum.");
}

function splitSections(bytes: Uint8Array, from = SNAPSHOT_HEADER_BYTES): Uint8Array[] {
  const header = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const sections: Uint8Array[] = [];
  let at = from;
  while (at < bytes.length) {
    if (bytes.length - at < SECTION_LENGTH_BYTES) throw new SnapshotError("format", "Snapshot ends inside a section header.");
    const sectionLength = header.getUint32(at, true);
    const start = at + SECTION_LENGTH_BYTES;
    if (bytes.length - start < sectionLength) throw new SnapshotError("format", "Snapshot section runs past the payload.");
    sections.push(bytes.subarray(start, start + sectionLength));
    at = start + sectionLength;
  }
  return sections;
}

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder("utf-8", { fatal: true });

export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

/** Parses one section as UTF-8 JSON; `what` names it in the error. */
export function decodeJson(section: Uint8Array | undefined, what: string): unknown {
  if (section === undefined) throw new SnapshotError("format", `Snapshot lacks its ${what} section.`);
  try {
    return JSON.parse(strictDecoder.decode(section));
  } catch {
    throw new SnapshotError("format", `Snapshot ${what} section is not UTF-8 JSON.`);
  }
}

function startsWithMagicPrefix(bytes: Uint8Array): boolean {
  const length = Math.min(bytes.length, MAGIC_BYTES.length);
  for (let i = 0; i < length; i++) if (bytes[i] !== MAGIC_BYTES[i]) return false;
  return true;
}

// Slicing by 8: eight table lookups consume eight bytes at once, several times faster than a byte at
// a time, which matters for snapshots of tens of megabytes checked at every start.
const CRC_TABLES = buildCrcTables();

function buildCrcTables(): Uint32Array[] {
  const tables = Array.from({ length: 8 }, () => new Uint32Array(256));
  const first = tables[0]!;
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    first[n] = c >>> 0;
  }
  for (let n = 0; n < 256; n++) {
    let c = first[n]!;
    for (let t = 1; t < 8; t++) {
      c = first[c & 0xff]! ^ (c >>> 8);
      tables[t]![n] = c >>> 0;
    }
  }
  return tables;
}

/** CRC-32 (IEEE 802.3, as in zip and PNG) of the bytes. */
export function crc32(bytes: Uint8Array): number {
  return (crc32Update(0xffffffff, bytes) ^ 0xffffffff) >>> 0;
}

/** CRC-32 of the parts one after the other, `pause` after every CHECKSUM_STEP bytes. */
async function crc32OfParts(parts: readonly Uint8Array[], pause: () => Promise<void>): Promise<number> {
  let crc = 0xffffffff;
  let sinceLastPause = 0;
  for (const part of parts) {
    for (let at = 0; at < part.length; at += CHECKSUM_STEP) {
      const piece = part.subarray(at, Math.min(part.length, at + CHECKSUM_STEP));
      crc = crc32Update(crc, piece);
      sinceLastPause += piece.length;
      if (sinceLastPause >= CHECKSUM_STEP) {
        sinceLastPause = 0;
        await pause();
      }
    }
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function crc32Update(initial: number, bytes: Uint8Array): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = CRC_TABLES as [Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array];
  let crc = initial;
  let i = 0;
  const length = bytes.length;
  const whole = length - (length % 8);
  while (i < whole) {
    const low = (crc ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24))) >>> 0;
    crc =
      t7[low & 0xff]! ^
      t6[(low >>> 8) & 0xff]! ^
      t5[(low >>> 16) & 0xff]! ^
      t4[low >>> 24]! ^
      t3[bytes[i + 4]!]! ^
      t2[bytes[i + 5]!]! ^
      t1[bytes[i + 6]!]! ^
      t0[bytes[i + 7]!]!;
    i += 8;
  }
  while (i < length) crc = t0[(crc ^ bytes[i++]!) & 0xff]! ^ (crc >>> 8);
  return crc >>> 0;
}

// Both loops run once, on values past the small-integer range, before the first real checksum: what had
// never run when V8 optimized the function (or entered it mid-loop) deoptimized it when first reached,
// and a 50,000-note build did that some 20 times, up to 100 ms of the event loop in one turn.
crc32Update(0xffffffff, Uint8Array.of(0xff, 0x80, 0x7f, 0x01, 0xfe, 0x10, 0xc3, 0x3c, 0xa5));
