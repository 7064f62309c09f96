// The files of an index snapshot: a base and a journal (SPEC §7). The base holds every file's record,
// facts and linkpaths and the whole index, its postings exactly as the index keeps them in memory (see
// ../search/posting-list.ts), so that loading it is taking views of its bytes; the notes' parsed
// metadata is in a file beside it (metadata-file.ts), read a note at a time. The journal
// holds what changed since the base was written, each changed note with its term vector, so that
// persisting a few edits writes a few kilobytes instead of the whole index; it names the base it
// follows by the base's checksum, and is ignored next to any other base.
//
// Base sections: header, row parts (JSON, a few hundred rows each so that no parse holds the event
// loop for long), term parts (JSON), list ranges (u32 per term and field: the list's length in bytes,
// 0 for none), then what the index keeps views of: phrase filters, postings. Journal sections: header,
// rows, removed paths, phrase filters, metadata, term vectors.
import { noPause } from "../time-slice";
import type { FactsRecord } from "./stored-facts";
import { FIELD_COUNT, NOTE_INDEX_VERSION, type DocVector } from "../search/note-index";
import {
  SNAPSHOT_HEADER_BYTES,
  SnapshotError,
  SnapshotSectionReader,
  decodeJson,
  decodeSnapshot,
  encodeJson,
  encodeSnapshotParts,
  sectionOffset,
} from "../search/snapshot";

/** Bump when what a base or journal holds changes: older snapshots are then rebuilt. */
export const SNAPSHOT_VERSION = 10;
export const BASE_KEY = "index-base";
export const JOURNAL_KEY = "index-journal";
/** Files of earlier snapshot layouts (a manifest and shards), removed when found. */
export const OBSOLETE_KEY = /^index(-[0-9a-f]{2})?$/;

const ROWS_PER_PART = 512;
/** Term vectors of a journal encoded between two pauses. */
const VECTORS_PER_PART = 128;
const TERMS_PER_PART = 16_384;

/** One file of the vault as a snapshot stores it; `lengths` only for notes with postings. */
export interface SnapshotRow {
  path: string;
  mtime: number;
  size: number;
  hash?: string;
  facts?: FactsRecord;
  /** Distinct terms per field (the index's field lengths). */
  lengths?: number[];
  /** The note's phrase filter, only with `lengths`. */
  filter?: Uint8Array;
  /** Linkpaths of the note's parsed metadata (see MetadataPort.exportNote). */
  links?: readonly string[];
  /**
   * The note's parsed metadata, packed by the host's metadata port, with `links`: a journal holds it,
   * a base's metadata file (metadata-file.ts) beside it.
   */
  metadata?: Uint8Array;
}

export interface BaseContent {
  createdAt: number;
  /** Notes with postings first, in the order of the postings' document numbers, then the rest. */
  rows: readonly SnapshotRow[];
  terms: readonly string[];
  ranges: Uint32Array;
  /** The postings, in pieces concatenated in order. */
  postings: readonly Uint8Array[];
}

export interface DecodedBase {
  /** The base's checksum: a journal written after it names it. */
  id: number;
  createdAt: number;
  rows: SnapshotRow[];
  /** Rows with postings: rows[0 … docs) are the postings' documents 0 … docs − 1. */
  docs: number;
  terms: string[];
  ranges: Uint32Array;
  postings: Uint8Array;
}

export interface JournalContent {
  base: number;
  createdAt: number;
  rows: readonly SnapshotRow[];
  removed: readonly string[];
  /** Term vectors of the rows with `lengths`, by path. */
  vectors: ReadonlyMap<string, DocVector>;
}

export type DecodedJournal = JournalContent & { rows: SnapshotRow[]; vectors: Map<string, DocVector> };

/** The base file as the parts to write one after the other (see encodeSnapshotParts). */
export async function encodeBase(content: BaseContent, pause: () => Promise<void>): Promise<Uint8Array[]> {
  const { rows, terms } = content;
  const docs = await countDocs(rows, pause);
  const rowParts: Uint8Array[] = [];
  for (let at = 0; at < rows.length; at += ROWS_PER_PART) {
    rowParts.push(encodeJson(rows.slice(at, at + ROWS_PER_PART).map(packRow)));
    await pause();
  }
  const termParts: Uint8Array[] = [];
  for (let at = 0; at < terms.length; at += TERMS_PER_PART) {
    termParts.push(encodeJson(terms.slice(at, at + TERMS_PER_PART)));
    await pause();
  }
  if (content.ranges.length !== terms.length * FIELD_COUNT) throw new Error("Base ranges do not match its terms.");
  const ranges = littleEndian(new Uint8Array(content.ranges.buffer, content.ranges.byteOffset, content.ranges.byteLength));
  const filters = await encodeFilters(rows.slice(0, docs), pause);
  // Bytes between the header section and the kept sections: a reader reads those apart (see baseTail).
  const before = [...rowParts, ...termParts, ranges].reduce((sum, section) => sum + SECTION_PREFIX + section.length, 0);
  const header = encodeJson({
    kind: "base",
    version: SNAPSHOT_VERSION,
    indexVersion: NOTE_INDEX_VERSION,
    createdAt: content.createdAt,
    rows: rows.length,
    rowParts: rowParts.length,
    docs,
    terms: terms.length,
    termParts: termParts.length,
    before,
  });
  return encodeSnapshotParts([header, ...rowParts, ...termParts, ranges, filters, content.postings], pause);
}

/** Bytes of a section's length prefix. */
const SECTION_PREFIX = 4;
/** Enough of a base's first bytes for its header section. */
export const BASE_HEAD_BYTES = 64 * 1024;

/**
 * Where the sections the index keeps (filters, postings) start in a base file, from its
 * first bytes; null when they do not hold the header section. The bytes before are parsed and let go,
 * so a store that reads ranges reads them apart.
 */
export function baseTail(first: Uint8Array): number | null {
  const afterHeader = sectionOffset(first, 1);
  if (afterHeader === null || afterHeader > first.length) return null;
  const sections = splitFirstSection(first, afterHeader);
  let header: unknown;
  try {
    header = decodeJson(sections, "base header");
  } catch {
    return null;
  }
  const before = isRecord(header) ? header.before : undefined;
  return isCount(before) ? afterHeader + before : null;
}

function splitFirstSection(first: Uint8Array, afterHeader: number): Uint8Array {
  const start = sectionOffset(first, 0)! + SECTION_PREFIX;
  return first.subarray(start, afterHeader);
}

/**
 * Checks a base file (checksum, version, shape) and splits it; throws a SnapshotError when it is not
 * one. Given whole, or as a reader of its sections (see SnapshotSectionReader, which lets the parsed
 * part go as it goes): the index's views then hold only what the reader read in one piece at the end.
 */
export async function decodeBase(file: Uint8Array | SnapshotSectionReader, pause: () => Promise<void>): Promise<DecodedBase> {
  const reader = file instanceof Uint8Array ? wholeFileReader(file, pause) : file;
  const section = async (what: string): Promise<Uint8Array> => {
    const next = await reader.next();
    if (!next) throw new SnapshotError("format", `Index base ends before its ${what}.`);
    return next;
  };
  const header = decodeJson(await section("header"), "base header");
  if (!isRecord(header) || header.kind !== "base") throw new SnapshotError("format", "Not an index base.");
  checkVersion(header);
  const { createdAt, rows: rowCount, rowParts, docs, terms: termCount, termParts } = header;
  if (
    typeof createdAt !== "number" ||
    !isCount(rowCount) ||
    !isCount(rowParts) ||
    !isCount(docs) ||
    !isCount(termCount) ||
    !isCount(termParts) ||
    docs > rowCount ||
    !isCount(header.before)
  ) {
    throw new SnapshotError("format", "Index base header does not match its sections.");
  }
  const rows: SnapshotRow[] = [];
  for (let part = 0; part < rowParts; part++) {
    await pause();
    const value = decodeJson(await section("rows"), "rows");
    if (!Array.isArray(value)) throw new SnapshotError("format", "Index base rows are not a list.");
    for (const row of value) rows.push(unpackRow(row));
  }
  if (rows.length !== rowCount) throw new SnapshotError("format", "Index base rows do not match its header.");
  checkRows(rows, docs);
  const terms: string[] = [];
  for (let part = 0; part < termParts; part++) {
    await pause();
    const value = decodeJson(await section("terms"), "terms");
    if (!Array.isArray(value)) throw new SnapshotError("format", "Index base terms are not a list.");
    for (const term of value) {
      if (typeof term !== "string") throw new SnapshotError("format", "Index base has a term that is not a string.");
      terms.push(term);
    }
  }
  if (terms.length !== termCount) throw new SnapshotError("format", "Index base terms do not match its header.");
  const rangeBytes = await section("list ranges");
  if (rangeBytes.length !== termCount * FIELD_COUNT * 4) throw new SnapshotError("format", "Index base list ranges do not match its terms.");
  const ranges = readUint32s(rangeBytes);
  const filters = await section("phrase filters");
  const postings = await section("postings");
  if ((await reader.next()) !== undefined) throw new SnapshotError("format", "Index base has more sections than its header names.");
  await reader.finish();
  await decodeFilters(filters, rows.slice(0, docs), pause);
  return { id: reader.checksum, createdAt, rows, docs, terms, ranges, postings };
}

/** The whole file in memory, read as one piece (sections are views of it). */
function wholeFileReader(bytes: Uint8Array, pause: () => Promise<void>): SnapshotSectionReader {
  return new SnapshotSectionReader(async (start, end) => bytes.subarray(start, end), bytes.subarray(0, SNAPSHOT_HEADER_BYTES), 0, pause);
}

/**
 * A journal's sections: the header, its rows in parts, the removals, filters, metadata, and the term
 * vectors in parts. Each part is encoded (and parsed) between two pauses: a journal of 1,000 changed
 * notes encoded as one JSON held the event loop 60 ms. A journal without part counts in its header
 * has one part of each.
 */
export async function encodeJournal(content: JournalContent, pause: () => Promise<void> = noPause): Promise<Uint8Array[]> {
  const indexed = content.rows.filter((row) => row.lengths !== undefined);
  const rowParts: Uint8Array[] = [];
  for (let at = 0; at < content.rows.length || at === 0; at += ROWS_PER_PART) {
    rowParts.push(encodeJson(content.rows.slice(at, at + ROWS_PER_PART).map(packRow)));
    await pause();
  }
  const vectorParts: Uint8Array[] = [];
  for (let at = 0; at < indexed.length || at === 0; at += VECTORS_PER_PART) {
    const vectors = indexed.slice(at, at + VECTORS_PER_PART).map((row) => {
      const vector = content.vectors.get(row.path);
      if (!vector) throw new Error("A journal row with postings needs its term vector.");
      return [...vector.terms, ...vector.frequencies];
    });
    vectorParts.push(encodeJson(vectors));
    await pause();
  }
  const header = encodeJson({
    kind: "journal",
    version: SNAPSHOT_VERSION,
    indexVersion: NOTE_INDEX_VERSION,
    base: content.base,
    createdAt: content.createdAt,
    rows: content.rows.length,
    removed: content.removed.length,
    rowParts: rowParts.length,
    vectorParts: vectorParts.length,
  });
  const sections = [header, ...rowParts, encodeJson(content.removed), await encodeFilters(indexed, pause), await encodeMetadata(content.rows, pause), ...vectorParts];
  return encodeSnapshotParts(sections, pause);
}

/** Checks and parses a journal file; throws a SnapshotError when it is not one. */
export async function decodeJournal(bytes: Uint8Array, pause: () => Promise<void> = noPause): Promise<DecodedJournal> {
  const sections = decodeSnapshot(bytes);
  const header = decodeJson(sections[0], "journal header");
  if (!isRecord(header) || header.kind !== "journal") throw new SnapshotError("format", "Not an index journal.");
  checkVersion(header);
  const { base, createdAt } = header;
  const rowParts = header.rowParts ?? 1;
  const vectorParts = header.vectorParts ?? 1;
  if (!isCount(base) || typeof createdAt !== "number" || !isCount(rowParts) || !isCount(vectorParts) || sections.length !== rowParts + vectorParts + 4) {
    throw new SnapshotError("format", "Index journal header does not match its sections.");
  }
  const rows: SnapshotRow[] = [];
  for (let part = 0; part < rowParts; part++) {
    const value = decodeJson(sections[1 + part], "journal rows");
    if (!Array.isArray(value)) throw new SnapshotError("format", "Index journal rows are not a list.");
    for (const row of value) rows.push(unpackRow(row));
    await pause();
  }
  const removed = decodeJson(sections[1 + rowParts], "journal removals");
  if (rows.length !== header.rows || !Array.isArray(removed) || removed.length !== header.removed) {
    throw new SnapshotError("format", "Index journal does not match its header.");
  }
  if (!removed.every((path) => typeof path === "string")) throw new SnapshotError("format", "Index journal has a malformed removal.");
  checkRows(rows, 0, true);
  const indexed = rows.filter((row) => row.lengths !== undefined);
  await decodeFilters(sections[2 + rowParts]!, indexed, pause);
  await decodeMetadata(sections[3 + rowParts]!, rows, pause);
  const vectors = new Map<string, DocVector>();
  let unpacked = 0;
  for (let part = 0; part < vectorParts; part++) {
    const value = decodeJson(sections[4 + rowParts + part], "journal vectors");
    if (!Array.isArray(value)) throw new SnapshotError("format", "Index journal vectors are not a list.");
    for (const packed of value) {
      const row = indexed[unpacked++];
      if (!row) throw new SnapshotError("format", "Index journal vectors do not match its rows.");
      vectors.set(row.path, unpackVector(packed, row));
    }
    await pause();
  }
  if (unpacked !== indexed.length) throw new SnapshotError("format", "Index journal vectors do not match its rows.");
  return { base, createdAt, rows, removed, vectors };
}

function checkVersion(header: Record<string, unknown>): void {
  if (header.version !== SNAPSHOT_VERSION || header.indexVersion !== NOTE_INDEX_VERSION) {
    throw new SnapshotError("version", `Index snapshot version ${String(header.version)} is not ${SNAPSHOT_VERSION}.`);
  }
}

/** Rows come in many shapes (a hash, facts, links or not): at 50,000 rows one pass took 30 ms. */
async function countDocs(rows: readonly SnapshotRow[], pause: () => Promise<void>): Promise<number> {
  let docs = -1;
  for (let at = 0; at < rows.length; at++) {
    if (rows[at]!.lengths === undefined) docs = docs < 0 ? at : docs;
    else if (docs >= 0) throw new Error("Base rows with postings must come first.");
    if (at % ROWS_PER_PART === ROWS_PER_PART - 1) await pause();
  }
  return docs < 0 ? rows.length : docs;
}

/** Paths unique, rows with lengths first (for a base) or anywhere (a journal). */
function checkRows(rows: readonly SnapshotRow[], docs: number, anyOrder = false): void {
  const seen = new Set<string>();
  rows.forEach((row, position) => {
    if (seen.has(row.path)) throw new SnapshotError("format", "Index snapshot lists a file twice.");
    seen.add(row.path);
    if (!anyOrder && (row.lengths !== undefined) !== position < docs) {
      throw new SnapshotError("format", "Index base rows with postings are not first.");
    }
  });
}

function unpackVector(value: unknown, row: SnapshotRow): DocVector {
  const fail = (): never => {
    throw new SnapshotError("format", "Index journal has a malformed term vector.");
  };
  if (!Array.isArray(value) || value.length !== 2 * FIELD_COUNT) fail();
  const lists = value as unknown[];
  const terms = lists.slice(0, FIELD_COUNT);
  const frequencies = lists.slice(FIELD_COUNT);
  const lengths = row.lengths!;
  terms.forEach((list, field) => {
    const counts = frequencies[field];
    if (
      !Array.isArray(list) ||
      !Array.isArray(counts) ||
      list.length !== counts.length ||
      list.length !== lengths[field] ||
      !list.every((term) => typeof term === "string" && term.length > 0) ||
      !counts.every((count) => Number.isInteger(count) && (count as number) > 0)
    ) {
      fail();
    }
  });
  const vector: DocVector = { lengths, terms: terms as string[][], frequencies: frequencies as number[][] };
  if (row.filter) vector.filter = row.filter;
  return vector;
}

const U32 = 4;

/** Rows between two pauses of a pass over a base's rows. */
const ROWS_PER_STEP = 4096;

/** u32 count, a u32 length per row (0: none), then the filters: a table and the filters as they are. */
async function encodeFilters(rows: readonly SnapshotRow[], pause?: () => Promise<void>): Promise<Uint8Array[]> {
  const table = new Uint8Array(U32 * (1 + rows.length));
  const view = new DataView(table.buffer);
  view.setUint32(0, rows.length, true);
  const parts: Uint8Array[] = [table];
  for (let position = 0; position < rows.length; position++) {
    const filter = rows[position]!.filter;
    view.setUint32(U32 * (1 + position), filter?.length ?? 0, true);
    if (filter) parts.push(filter);
    if (pause && position % ROWS_PER_STEP === ROWS_PER_STEP - 1) await pause();
  }
  return parts;
}

/** Gives each row its filter, a view of the section. */
async function decodeFilters(section: Uint8Array, rows: readonly SnapshotRow[], pause?: () => Promise<void>): Promise<void> {
  const fail = (): never => {
    throw new SnapshotError("format", "Index snapshot has malformed phrase filters.");
  };
  if (section.length < U32) fail();
  const view = new DataView(section.buffer, section.byteOffset, section.byteLength);
  if (view.getUint32(0, true) !== rows.length) fail();
  let at = U32 * (1 + rows.length);
  if (section.length < at) fail();
  for (let position = 0; position < rows.length; position++) {
    const length = view.getUint32(U32 * (1 + position), true);
    if (length > 0) {
      if (at + length > section.length) fail();
      rows[position]!.filter = section.subarray(at, at + length);
      at += length;
    }
    if (pause && position % ROWS_PER_STEP === ROWS_PER_STEP - 1) await pause();
  }
  if (at !== section.length) fail();
}

/** u32 count, then per packed note its row's position and byte length (u32 each), then the bytes. */
async function encodeMetadata(rows: readonly SnapshotRow[], pause?: () => Promise<void>): Promise<Uint8Array[]> {
  let count = 0;
  for (const row of rows) if (row.metadata) count += 1;
  const table = new Uint8Array(U32 * (1 + 2 * count));
  const view = new DataView(table.buffer);
  view.setUint32(0, count, true);
  const parts: Uint8Array[] = [table];
  for (let position = 0; position < rows.length; position++) {
    const bytes = rows[position]!.metadata;
    if (bytes) {
      const entry = parts.length - 1;
      view.setUint32(U32 * (1 + 2 * entry), position, true);
      view.setUint32(U32 * (2 + 2 * entry), bytes.length, true);
      parts.push(bytes);
    }
    if (pause && position % ROWS_PER_STEP === ROWS_PER_STEP - 1) await pause();
  }
  return parts;
}

async function decodeMetadata(section: Uint8Array, rows: readonly SnapshotRow[], pause?: () => Promise<void>): Promise<void> {
  const fail = (): never => {
    throw new SnapshotError("format", "Index snapshot has malformed metadata.");
  };
  if (section.length < U32) fail();
  const view = new DataView(section.buffer, section.byteOffset, section.byteLength);
  const count = view.getUint32(0, true);
  let at = U32 * (1 + 2 * count);
  if (section.length < at) fail();
  for (let i = 0; i < count; i++) {
    const position = view.getUint32(U32 * (1 + 2 * i), true);
    const length = view.getUint32(U32 * (2 + 2 * i), true);
    const row = rows[position];
    if (!row || row.links === undefined || at + length > section.length) fail();
    row!.metadata = section.subarray(at, at + length);
    at += length;
    if (pause && i % ROWS_PER_STEP === ROWS_PER_STEP - 1) await pause();
  }
  if (at !== section.length) fail();
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** The bytes of u32 values as little-endian, whatever the platform's order. */
function littleEndian(bytes: Uint8Array): Uint8Array {
  if (LITTLE_ENDIAN) return bytes;
  const copy = new Uint8Array(bytes.length);
  for (let at = 0; at < bytes.length; at += 4) {
    copy[at] = bytes[at + 3]!;
    copy[at + 1] = bytes[at + 2]!;
    copy[at + 2] = bytes[at + 1]!;
    copy[at + 3] = bytes[at]!;
  }
  return copy;
}

function readUint32s(bytes: Uint8Array): Uint32Array {
  const values = new Uint32Array(bytes.length / 4);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < values.length; i++) values[i] = view.getUint32(4 * i, true);
  return values;
}

// Rows are tuples, and facts inside them too: field names repeated for 20,000 notes would be a
// large share of the snapshot. A title equal to the file's name is left out (FactsRecord's null).
type PackedFacts = [string | null, string[], string[], string, number];
type PackedRow = [string, number, number, string | null, PackedFacts | null, number[] | null, readonly string[] | null];

function packRow(row: SnapshotRow): PackedRow {
  const facts = row.facts;
  return [
    row.path,
    row.mtime,
    row.size,
    row.hash ?? null,
    facts ? [facts.title, facts.tags, facts.aliases, facts.tasks, facts.words] : null,
    row.lengths ?? null,
    row.links ?? null,
  ];
}

function unpackRow(value: unknown): SnapshotRow {
  if (!Array.isArray(value) || value.length !== 7) throw new SnapshotError("format", "Index snapshot has a malformed row.");
  const [path, mtime, size, hash, facts, lengths, links] = value as unknown[];
  if (typeof path !== "string" || typeof mtime !== "number" || typeof size !== "number") {
    throw new SnapshotError("format", "Index snapshot row lacks path, mtime or size.");
  }
  const row: SnapshotRow = { path, mtime, size };
  if (typeof hash === "string") row.hash = hash;
  else if (hash !== null) throw new SnapshotError("format", "Index snapshot row has a malformed hash.");
  if (facts !== null) row.facts = unpackFacts(facts);
  if (lengths !== null) {
    if (!Array.isArray(lengths) || lengths.length !== FIELD_COUNT || !lengths.every((length) => Number.isInteger(length) && (length as number) >= 0)) {
      throw new SnapshotError("format", "Index snapshot row has malformed field lengths.");
    }
    row.lengths = lengths as number[];
  }
  if (links !== null) {
    if (!isStringArray(links)) throw new SnapshotError("format", "Index snapshot row has malformed links.");
    row.links = links;
  }
  return row;
}

function unpackFacts(value: unknown): FactsRecord {
  if (!Array.isArray(value) || value.length !== 5) throw new SnapshotError("format", "Index snapshot row has malformed facts.");
  const [title, tags, aliases, tasks, words] = value as unknown[];
  if (
    (title !== null && typeof title !== "string") ||
    !isStringArray(tags) ||
    !isStringArray(aliases) ||
    typeof tasks !== "string" ||
    typeof words !== "number"
  ) {
    throw new SnapshotError("format", "Index snapshot row has malformed facts.");
  }
  return { title, tags, aliases, tasks, words };
}

function isCount(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
