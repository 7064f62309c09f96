import { test } from "node:test";
import assert from "node:assert/strict";
import { FIELD_COUNT } from "../../../src/core/search/note-index";
import { buildPhraseFilter } from "../../../src/core/search/phrase-filter";
import { packTasks } from "../../../src/core/vault/stored-facts";
import { SnapshotError, SnapshotSectionReader, crc32, decodeJson, decodeSnapshot, encodeJson, encodeSnapshot, snapshotChecksum } from "../../../src/core/search/snapshot";

/** The parts of a file joined, as the store writes them. */
function joined(parts: readonly Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}
import {
  baseTail,
  decodeBase,
  decodeJournal,
  encodeBase,
  encodeJournal,
  type BaseContent,
  type JournalContent,
  type SnapshotRow,
} from "../../../src/core/vault/index-files";

const pauses: number[] = [];
const pause = async (): Promise<void> => {
  pauses.push(1);
};

function reason(expected: string): (error: unknown) => boolean {
  return (error: unknown) => error instanceof SnapshotError && error.reason === expected;
}

const filter = buildPhraseFilter([["do", "it", "here"], ["custom", "title"]]);

function rows(): SnapshotRow[] {
  return [
    {
      path: "wiki/Größe 東京.md",
      mtime: 1_700_000_000_123,
      size: 321,
      hash: "a".repeat(32),
      facts: { title: "Custom title", tags: ["rate", "rate/limit"], aliases: ["Bucket"], tasks: packTasks([{ line: 5, text: "do it", done: false, status: " ", heading: "Plan" }]), words: 42 },
      lengths: [2, 1, 0, 0, 3],
      filter,
      links: ["Token bucket", "other/Note"],
      metadata: Uint8Array.of(1, 2, 3, 4),
    },
    { path: "b.md", mtime: 5, size: 0, facts: { title: null, tags: [], aliases: [], tasks: "", words: 0 }, lengths: [1, 0, 0, 0, 0], links: [], metadata: new Uint8Array(0) },
    { path: "picture.png", mtime: 7, size: 9, hash: "b".repeat(32) },
  ];
}

function base(): BaseContent {
  return {
    createdAt: 1_700_000_000_000,
    rows: rows(),
    terms: ["custom", "title", "東京"],
    ranges: Uint32Array.from([1, 0, 0, 0, 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0]),
    postings: [Uint8Array.of(5), Uint8Array.of(6, 9), Uint8Array.of(5), Uint8Array.of(5, 9)],
  };
}

/** A reader of `bytes` in ranges, each a copy (as from a file), recording the ranges read. */
function rangeReader(bytes: Uint8Array, reads: Array<[number, number]>): (start: number, end: number) => Promise<Uint8Array | null> {
  return async (start, end) => {
    reads.push([start, end]);
    return bytes.slice(start, end);
  };
}

test("a base read section by section, the kept part in one read where baseTail says, decodes the same", async () => {
  const bytes = joined(await encodeBase(base(), pause));
  const tail = baseTail(bytes.subarray(0, 100_000));
  assert.ok(tail !== null && tail > 20 && tail < bytes.length);
  const reads: Array<[number, number]> = [];
  const first = bytes.slice(0, 24);
  const decoded = await decodeBase(new SnapshotSectionReader(rangeReader(bytes, reads), first, tail), pause);
  assert.deepEqual(decoded, await decodeBase(bytes, pause));
  const keptRead = reads.find(([start]) => start === tail);
  assert.deepEqual(keptRead, [tail, bytes.length], "the kept sections in one read");
  assert.ok(reads.every(([start, end]) => end <= tail || start >= tail), "no read spans the parsed and the kept part");
  assert.equal(decoded.postings.byteLength + decoded.postings.byteOffset <= decoded.postings.buffer.byteLength, true);
  assert.equal(decoded.postings.buffer.byteLength, bytes.length - tail, "postings are a view of the kept read");
  assert.equal(decoded.rows[0]!.filter!.buffer, decoded.postings.buffer, "and so are filters");
  assert.equal(baseTail(bytes.subarray(0, 30)), null, "too few bytes for the header");
});

test("a base read in ranges is refused when cut short, followed by more bytes or damaged", async () => {
  const bytes = joined(await encodeBase(base(), pause));
  const tail = baseTail(bytes)!;
  const readerOf = (file: Uint8Array): SnapshotSectionReader => new SnapshotSectionReader(rangeReader(file, []), file.slice(0, 24), tail);
  await assert.rejects(decodeBase(readerOf(bytes.slice(0, bytes.length - 3)), pause), reason("truncated"));
  await assert.rejects(decodeBase(readerOf(joined([bytes, Uint8Array.of(0)])), pause), reason("format"));
  const damaged = bytes.slice();
  damaged[tail + 6]! ^= 0x01;
  await assert.rejects(decodeBase(readerOf(damaged), pause), reason("checksum"));
  await assert.rejects(decodeBase(bytes.slice(0, 10), pause), reason("truncated"));
});

/** The rows as a base holds them: packed metadata goes to the metadata file beside it (metadata-file.ts). */
function baseRows(): SnapshotRow[] {
  return rows().map(({ metadata: _metadata, ...row }) => row);
}

test("a base round-trips rows (without packed metadata), filters, terms, ranges and postings, checked a step at a time", async () => {
  pauses.length = 0;
  const bytes = joined(await encodeBase(base(), pause));
  assert.ok(pauses.length > 0, "encoding pauses");
  const decoded = await decodeBase(bytes, pause);
  assert.equal(decoded.id, snapshotChecksum(bytes));
  assert.equal(decoded.id, crc32(bytes.subarray(20)));
  assert.equal(decoded.docs, 2);
  assert.deepEqual(decoded.rows, baseRows());
  assert.deepEqual(decoded.terms, base().terms);
  assert.deepEqual(decoded.ranges, base().ranges);
  assert.deepEqual([...decoded.postings], [5, 6, 9, 5, 5, 9]);
});

test("many rows and terms are split into parts, so no single parse is long", async () => {
  const many: SnapshotRow[] = Array.from({ length: 1500 }, (_, i) => ({ path: `n/${i}.md`, mtime: i, size: i, lengths: [0, 0, 0, 0, 1] }));
  const terms = Array.from({ length: 40_000 }, (_, i) => `t${i}`);
  const bytes = joined(await encodeBase({ createdAt: 1, rows: many, terms, ranges: new Uint32Array(terms.length * FIELD_COUNT), postings: [] }, pause));
  const header = decodeJson(decodeSnapshot(bytes)[0], "header") as { rowParts: number; termParts: number };
  assert.ok(header.rowParts >= 3 && header.termParts >= 3, JSON.stringify(header));
  const decoded = await decodeBase(bytes, pause);
  assert.equal(decoded.rows.length, 1500);
  assert.deepEqual(decoded.terms, terms);
});

test("rows with postings must come first in a base", async () => {
  await assert.rejects(encodeBase({ ...base(), rows: [...rows()].reverse() }, pause), /first/);
});

test("a base of another version, kind or shape is refused", async () => {
  const bytes = joined(await encodeBase(base(), pause));
  const [header, ...rest] = decodeSnapshot(bytes);
  const fields = decodeJson(header, "header") as Record<string, unknown>;
  const variant = (change: Record<string, unknown>, sections = rest): Uint8Array => encodeSnapshot([encodeJson({ ...fields, ...change }), ...sections]);
  await assert.rejects(decodeBase(variant({ version: 99 }), pause), reason("version"));
  await assert.rejects(decodeBase(variant({ indexVersion: 99 }), pause), reason("version"));
  await assert.rejects(decodeBase(variant({ kind: "journal" }), pause), reason("format"));
  await assert.rejects(decodeBase(variant({ rows: 4 }), pause), reason("format"));
  await assert.rejects(decodeBase(variant({ docs: 3 }), pause), reason("format"));
  await assert.rejects(decodeBase(variant({ terms: 2 }), pause), reason("format"));
  await assert.rejects(decodeBase(variant({}, rest.slice(1)), pause), reason("format"));
  await assert.rejects(decodeBase(bytes.subarray(0, bytes.length - 3), pause), reason("truncated"));
  const flipped = bytes.slice();
  flipped[flipped.length - 1]! ^= 1;
  await assert.rejects(decodeBase(flipped, pause), reason("checksum"));
  const rowsAt = 1;
  const badRows = [...rest];
  badRows[rowsAt - 1] = encodeJson([["a.md", 1, 1, null, null, [1, 2], null]]);
  await assert.rejects(decodeBase(variant({ rows: 1, docs: 1 }, badRows), pause), reason("format"));
});

function journal(): JournalContent {
  const [note, , picture] = rows();
  return {
    base: 123456,
    createdAt: 1_700_000_000_999,
    rows: [note!, picture!],
    removed: ["gone.md"],
    vectors: new Map([[note!.path, { lengths: note!.lengths!, terms: [["custom", "title"], ["bucket"], [], [], ["do", "it", "here"]], frequencies: [[1, 1], [1], [], [], [2, 1, 1]], filter }]]),
  };
}

test("a journal round-trips its rows, removals, metadata and term vectors", async () => {
  const decoded = await decodeJournal(joined(await encodeJournal(journal())));
  assert.equal(decoded.base, 123456);
  assert.deepEqual(decoded.rows, journal().rows);
  assert.deepEqual(decoded.removed, ["gone.md"]);
  assert.deepEqual(decoded.vectors, journal().vectors);
});

/** A journal of `count` changed notes, each with its vector, and one of every row without. */
function largeJournal(count: number): JournalContent {
  const [note, , picture] = rows();
  const changed = Array.from({ length: count }, (_, i) => ({ ...note!, path: `many/n${i}.md` }));
  const vector = journal().vectors.get(note!.path)!;
  return {
    base: 99,
    createdAt: 1_700_000_000_999,
    rows: [...changed, picture!],
    removed: ["gone.md", "gone too.md"],
    vectors: new Map(changed.map((row, i) => [row.path, { ...vector, terms: vector.terms.map((terms) => terms.map((term) => `${term}${i}`)) }])),
  };
}

test("a large journal is written and read in parts, between pauses, and round-trips", async () => {
  const content = largeJournal(1300);
  const before = pauses.length;
  const bytes = joined(await encodeJournal(content, pause));
  const encodingPauses = pauses.length - before;
  const header = decodeJson(decodeSnapshot(bytes)[0], "header") as Record<string, unknown>;
  assert.equal(header.rowParts, 3);
  assert.equal(header.vectorParts, 11);
  assert.ok(encodingPauses >= 14, `${encodingPauses} pauses while encoding`);
  const decoded = await decodeJournal(bytes, pause);
  assert.ok(pauses.length - before - encodingPauses >= 14, "and while decoding");
  assert.deepEqual(decoded.rows, content.rows);
  assert.deepEqual(decoded.removed, content.removed);
  assert.deepEqual(decoded.vectors, content.vectors);
});

test("a journal in the layout without parts (one rows and one vectors section) is still read", async () => {
  const sections = decodeSnapshot(joined(await encodeJournal(journal())));
  const { rowParts, vectorParts, ...header } = decodeJson(sections[0], "header") as Record<string, unknown>;
  assert.deepEqual([rowParts, vectorParts], [1, 1]);
  const earlier = encodeSnapshot([encodeJson(header), ...sections.slice(1)]);
  const decoded = await decodeJournal(earlier);
  assert.deepEqual(decoded.rows, journal().rows);
  assert.deepEqual(decoded.vectors, journal().vectors);
  const miscounted = encodeSnapshot([encodeJson({ ...header, rowParts: 2, vectorParts: 1 }), ...sections.slice(1)]);
  await assert.rejects(decodeJournal(miscounted), reason("format"));
});

test("a journal row with postings needs its vector, and a malformed journal is refused", async () => {
  await assert.rejects(encodeJournal({ ...journal(), vectors: new Map() }), /vector/);
  const bytes = joined(await encodeJournal(journal()));
  const sections = decodeSnapshot(bytes);
  const header = decodeJson(sections[0], "header") as Record<string, unknown>;
  const variant = (index: number, section: Uint8Array): Uint8Array => encodeSnapshot(sections.map((part, i) => (i === index ? section : part)));
  await assert.rejects(decodeJournal(variant(0, encodeJson({ ...header, version: 1 }))), reason("version"));
  await assert.rejects(decodeJournal(variant(0, encodeJson({ ...header, kind: "base" }))), reason("format"));
  await assert.rejects(decodeJournal(variant(2, encodeJson(["gone.md", 7]))), reason("format"));
  // A vector whose lists disagree with the row's field lengths, or whose counts are not positive.
  await assert.rejects(decodeJournal(variant(5, encodeJson([[["custom"], ["bucket"], [], [], ["do", "it", "here"], [1], [1], [], [], [2, 1, 1]]]))), reason("format"));
  await assert.rejects(decodeJournal(variant(5, encodeJson([[["custom", "title"], ["bucket"], [], [], ["do", "it", "here"], [1, 0], [1], [], [], [2, 1, 1]]]))), reason("format"));
  await assert.rejects(decodeJournal(bytes.subarray(0, 40)), reason("truncated"));
});
