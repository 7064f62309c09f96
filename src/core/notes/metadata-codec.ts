// A note's CachedMetadata, packed for the Node host's memory and the index snapshot. Tools print these
// objects, so decoding must give back the same JSON, key order included; deflating JSON did that but cost
// more than parsing the note. This format is a tagged tree in which the parser's key names are single
// bytes, a record with the keys of an earlier one names them by one byte, positions (most of a cache) are
// small varint deltas, and a link's `original` and `displayText` are written as pieces of its `link`.
//
// `frontmatter` is user data: it is written generically, and a user value that happens to look like a
// position or a link is never rewritten. Values JSON has no form for are written as their JSON text, so
// they read back as what the tools print; a cycle (a recursive YAML alias) is kept as a reference upwards.
import type { CachedMetadata } from "./metadata";

const VERSION = 1;

const NULL = 0x00;
const FALSE = 0x01;
const TRUE = 0x02;
/** A value JSON leaves out (or writes as null in an array), which is all the tools can see of it. */
const UNDEFINED = 0x03;
const FLOAT64 = 0x04;
const UINT = 0x05;
/** Followed by the absolute value. */
const NEGATIVE_INT = 0x06;
/** Followed by the UTF-8 byte length; shorter strings use SHORT_STRING. */
const STRING = 0x07;
/** A string with a lone surrogate (YAML's "\ud800" makes one), in the three bytes WTF-8 gives it. */
const LOOSE_STRING = 0x08;
const ARRAY = 0x09;
/** Followed by the key count, then each key and its value. */
const OBJECT = 0x0a;
/** Followed by the key count and the keys, which become the next shape, then the values. */
const NEW_SHAPE = 0x0b;
/** Followed by a shape number beyond the one-byte SHORT_SHAPE range, then the values. */
const SHAPE = 0x0c;
const JSON_TEXT = 0x0d;
/** Followed by how many containers up the cycle closes (0: the innermost open one). */
const CYCLE = 0x0e;
/** This and the next two refer to an earlier string value of the same record of the parser's, by its number. */
const SAME_STRING = 0x0f;
/** Followed by the earlier string's number, then the text before it and the text after it. */
const WRAPPED_STRING = 0x10;
/** Followed by the earlier string's number, then where the slice starts and its length (UTF-16 units). */
const SLICED_STRING = 0x11;
const SHORT_SHAPE = 0x20;
const SHORT_SHAPE_END = 0x30;
const SMALL_UINT = 0x30;
const SMALL_UINT_END = 0x40;
const SHORT_STRING = 0x40;
const SHORT_STRING_END = 0x80;
const WORD = 0x80;

/** In place of a position's flags byte: the value under a position key is not a position, written generically. */
const NOT_A_POSITION = 0xff;
// The flags byte of a position; its upper bits hold the line delta when it is small.
const COL_FOLLOWS = 0x01;
const END_FOLLOWS = 0x02;
const LENGTH_FOLLOWS = 0x04;
const LINE_SHIFT = 3;
const LINE_FOLLOWS = 30;

// Keys and values the parser writes in every note, then common property names. Appending is safe;
// reordering or removing entries needs a new VERSION.
const WORDS: readonly string[] = [
  "links", "embeds", "tags", "headings", "sections", "listItems", "frontmatter", "frontmatterPosition",
  "frontmatterLinks", "blocks", "link", "original", "displayText", "position", "heading", "level", "tag",
  "type", "id", "task", "parent", "key", "start", "end", "line", "col", "offset",
  "yaml", "paragraph", "list", "code", "blockquote", "callout", "table", "thematicBreak", "math", "comment",
  "html", "footnoteDefinition", " ", "x", "X", "-", "/",
  "aliases", "alias", "title", "date", "created", "updated", "modified", "status", "cssclasses", "cssclass",
  "publish", "description", "author", "source", "url", "category", "categories", "draft", "permalink",
];
const WORD_CODES = new Map(WORDS.map((word, index) => [word, WORD + index]));
const LONGEST_WORD = Math.max(...WORDS.map((word) => word.length));

/** Positions beyond this (a note of a gigabyte) are written generically, so that their deltas stay small integers. */
const MAX_POSITION_NUMBER = 0x3fffffff;
const MAX_VARINT_BYTES = 8;
/** Records of up to this many keys, all WORDS, are named by a shape. */
const MAX_SHAPE_KEYS = 6;
/** Sharing a shorter string costs more than writing it. */
const MIN_SHARED_LENGTH = 4;
/** The record being written or read has no string values to share (it is user data). */
const NO_STRINGS = -1;

/** The frontmatter's data, the parser's structures under the cache, and the cache itself. */
const enum Mode {
  User,
  Parser,
  Cache,
}

const INITIAL_ROOM = 4096;
const MAX_KEPT_ROOM = 1 << 20;

class Writer {
  bytes = new Uint8Array(INITIAL_ROOM);
  view = new DataView(this.bytes.buffer);
  length = 0;
  previousLine = 0;
  previousOffset = 0;
  previousCol = 0;
  /** The position being written: start line, col, offset, end line, col, offset. */
  readonly loc = [0, 0, 0, 0, 0, 0];
  /** Whether the string just written had a lone surrogate. */
  loose = false;
  readonly ancestors: object[] = [];
  /** The key lists named so far, by shape number. */
  readonly shapes: (readonly string[])[] = [];
  /** Each shape's number by its keys' WORDS codes as a string: a record finds its shape without a scan. */
  readonly shapeNumbers = new Map<string, number>();
  /** Each shape's codes string, by shape number, so shapes taken back are forgotten again. */
  readonly shapeNames: string[] = [];
  lastShape = 0;
  /** String values of the records being written, innermost last; each record knows where its own begin. */
  readonly strings: string[] = [];
  stringCount = 0;

  reset(): void {
    // A huge note's room is not kept for the notes after it.
    if (this.bytes.length > MAX_KEPT_ROOM) {
      this.bytes = new Uint8Array(INITIAL_ROOM);
      this.view = new DataView(this.bytes.buffer);
    }
    this.length = 0;
    this.previousLine = 0;
    this.previousOffset = 0;
    this.previousCol = 0;
    this.ancestors.length = 0;
    this.shapes.length = 0;
    this.shapeNumbers.clear();
    this.shapeNames.length = 0;
    this.lastShape = 0;
    this.strings.length = 0;
    this.stringCount = 0;
  }

  reserve(count: number): void {
    const needed = this.length + count;
    if (needed <= this.bytes.length) return;
    let capacity = this.bytes.length * 2;
    while (capacity < needed) capacity *= 2;
    const grown = new Uint8Array(capacity);
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }

  byte(value: number): void {
    this.reserve(1);
    this.bytes[this.length++] = value;
  }

  uint(value: number): void {
    this.reserve(MAX_VARINT_BYTES);
    const bytes = this.bytes;
    let rest = value;
    while (rest >= 0x80) {
      bytes[this.length++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    bytes[this.length++] = rest;
  }

  addString(text: string): void {
    this.strings[this.stringCount++] = text;
  }
}

let spareWriter: Writer | null = null;

const utf8Encoder = new TextEncoder();
/** Below this many characters a JavaScript loop beats the call into TextEncoder. */
const NATIVE_ENCODE_LENGTH = 32;
// With the u flag a surrogate pair is one character, so this finds only unpaired ones, which TextEncoder would
// replace. isWellFormed (ES2024) answers at once for most strings, which have no surrogates at all.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const nativeIsWellFormed = (String.prototype as { isWellFormed?: unknown }).isWellFormed;
const isWellFormed: (text: string) => boolean =
  typeof nativeIsWellFormed === "function"
    ? (text) => (text as unknown as { isWellFormed(): boolean }).isWellFormed()
    : (text) => !LONE_SURROGATE.test(text);

// A buffer of its own for each note cost a tenth of the encode, so small encodings share slabs, as in
// Node's Buffer pool; a slab is freed once none of its notes' encodings is referenced.
const SLAB_SIZE = 65536;
const MAX_SLABBED_LENGTH = 4096;
let slab = new Uint8Array(0);
let slabUsed = 0;

function copyOut(bytes: Uint8Array, length: number): Uint8Array {
  if (length > MAX_SLABBED_LENGTH) return bytes.slice(0, length);
  if (slabUsed + length > slab.length) {
    slab = new Uint8Array(SLAB_SIZE);
    slabUsed = 0;
  }
  const copy = slab.subarray(slabUsed, slabUsed + length);
  copy.set(bytes.subarray(0, length));
  slabUsed += length;
  return copy;
}

/**
 * The cache as bytes, often a view of a buffer shared with other notes' encodings: postMessage would
 * clone the whole buffer, so a copy (`slice()`) is what to send to another thread. Throws only where
 * JSON.stringify would (a BigInt).
 */
export function encodeMetadata(cache: CachedMetadata): Uint8Array {
  // One writer serves every note; a toJSON that encodes from inside an encode gets its own.
  const out = spareWriter ?? new Writer();
  spareWriter = null;
  out.reset();
  try {
    out.byte(VERSION);
    writeValue(out, cache, Mode.Cache);
    return copyOut(out.bytes, out.length);
  } finally {
    spareWriter = out;
  }
}

function writeValue(out: Writer, value: unknown, mode: Mode): void {
  switch (typeof value) {
    case "string":
      writeString(out, value);
      return;
    case "number":
      writeNumber(out, value);
      return;
    case "boolean":
      out.byte(value ? TRUE : FALSE);
      return;
    case "undefined":
      out.byte(UNDEFINED);
      return;
    case "object":
      if (value === null) out.byte(NULL);
      else if (Array.isArray(value)) writeArray(out, value, mode);
      else if (isPlainRecord(value, mode)) writeRecord(out, value, mode);
      else writeJsonText(out, value);
      return;
    default:
      writeJsonText(out, value);
  }
}

// The parser's records are plain, so only user data is asked for a toJSON: a lookup that misses, on every record.
function isPlainRecord(value: object, mode: Mode): value is Record<string, unknown> {
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  return mode !== Mode.User || typeof (value as { toJSON?: unknown }).toJSON !== "function";
}

// Dates, Buffers, Sets (YAML's !!timestamp, !!binary, !!set) and the like: kept as the tools print them.
function writeJsonText(out: Writer, value: unknown): void {
  const text: string | undefined = JSON.stringify(value);
  if (text === undefined) {
    out.byte(UNDEFINED);
    return;
  }
  out.byte(JSON_TEXT);
  writeString(out, text);
}

function writeNumber(out: Writer, value: number): void {
  if (Number.isSafeInteger(value) && !Object.is(value, -0)) {
    if (value < 0) {
      out.byte(NEGATIVE_INT);
      out.uint(-value);
    } else if (value < SMALL_UINT_END - SMALL_UINT) {
      out.byte(SMALL_UINT + value);
    } else {
      out.byte(UINT);
      out.uint(value);
    }
    return;
  }
  out.reserve(9);
  out.bytes[out.length++] = FLOAT64;
  out.view.setFloat64(out.length, value, true);
  out.length += 8;
}

// Only user data can be cyclic; a cycle built into the parser's structures throws, as JSON.stringify would.
function openContainer(out: Writer, value: object): boolean {
  const index = out.ancestors.lastIndexOf(value);
  if (index < 0) {
    out.ancestors.push(value);
    return true;
  }
  out.byte(CYCLE);
  out.uint(out.ancestors.length - 1 - index);
  return false;
}

function writeArray(out: Writer, array: readonly unknown[], mode: Mode): void {
  if (mode === Mode.User && !openContainer(out, array)) return;
  const itemMode = mode === Mode.User ? Mode.User : Mode.Parser;
  out.byte(ARRAY);
  out.uint(array.length);
  for (let index = 0; index < array.length; index++) writeValue(out, array[index], itemMode);
  if (mode === Mode.User) out.ancestors.pop();
}

function writeRecord(out: Writer, record: Record<string, unknown>, mode: Mode): void {
  if (mode === Mode.User) {
    if (!openContainer(out, record)) return;
    writeKeyedRecord(out, record, Object.keys(record), mode);
    out.ancestors.pop();
  } else if (mode === Mode.Cache || !writeRecordOfLastShape(out, record)) {
    writeKeyedRecord(out, record, Object.keys(record), mode);
  }
}

function writeKeyedRecord(out: Writer, record: Record<string, unknown>, keys: readonly string[], mode: Mode): void {
  const keysWritten = writeShape(out, keys);
  const strings = mode === Mode.User ? NO_STRINGS : out.stringCount;
  for (const key of keys) {
    if (!keysWritten) writeString(out, key);
    writeEntry(out, key, record[key], mode, strings);
  }
  if (strings !== NO_STRINGS) out.stringCount = strings;
}

/** `strings`: where the record's string values begin in `out.strings`, which later values may reuse. */
function writeEntry(out: Writer, key: string, item: unknown, mode: Mode, strings: number): void {
  if (mode === Mode.User || (mode === Mode.Cache && key === "frontmatter")) {
    writeValue(out, item, Mode.User);
  } else if (key === "position" || key === "frontmatterPosition") {
    writePosition(out, item, strings);
  } else if (typeof item === "string") {
    writeParserString(out, item, strings, key === "type" || key === "task");
    out.addString(item);
  } else {
    writeValue(out, item, Mode.Parser);
  }
}

// A list's records mostly share their keys, so the last shape used is tried first, in one pass over the
// record that allocates no key list, and undone if the record has other keys.
function writeRecordOfLastShape(out: Writer, record: Record<string, unknown>): boolean {
  const shape = out.lastShape;
  const keys = out.shapes[shape];
  if (keys === undefined) return false;
  const { length, previousLine, previousOffset, previousCol, stringCount } = out;
  const shapeCount = out.shapes.length;
  writeShapeNumber(out, shape);
  let count = 0;
  for (const key in record) {
    if (key !== keys[count]) {
      count = -1;
      break;
    }
    count++;
    writeEntry(out, key, record[key], Mode.Parser, stringCount);
  }
  out.stringCount = stringCount;
  if (count === keys.length) {
    out.lastShape = shape;
    return true;
  }
  out.length = length;
  out.previousLine = previousLine;
  out.previousOffset = previousOffset;
  out.previousCol = previousCol;
  for (let shape = shapeCount; shape < out.shapes.length; shape++) out.shapeNumbers.delete(out.shapeNames[shape] as string);
  out.shapes.length = shapeCount;
  out.shapeNames.length = shapeCount;
  return false;
}

function writeShapeNumber(out: Writer, shape: number): void {
  if (shape < SHORT_SHAPE_END - SHORT_SHAPE) {
    out.byte(SHORT_SHAPE + shape);
  } else {
    out.byte(SHAPE);
    out.uint(shape);
  }
}

/** True when the record's keys are known from a shape; false when each must precede its value. */
function writeShape(out: Writer, keys: readonly string[]): boolean {
  // Only records of a few keys, all WORDS, have shapes.
  const codes: number[] = [];
  for (let index = 0; index < keys.length && keys.length <= MAX_SHAPE_KEYS; index++) {
    const code = WORD_CODES.get(keys[index] as string);
    if (code === undefined) break;
    codes.push(code);
  }
  if (codes.length === 0 || codes.length !== keys.length) {
    out.byte(OBJECT);
    out.uint(keys.length);
    return false;
  }
  const shapes = out.shapes;
  const name = String.fromCharCode(...codes);
  const known = out.shapeNumbers.get(name);
  if (known !== undefined) {
    out.lastShape = known;
    writeShapeNumber(out, known);
    return true;
  }
  out.lastShape = shapes.length;
  out.shapeNumbers.set(name, shapes.length);
  out.shapeNames.push(name);
  shapes.push(keys);
  out.byte(NEW_SHAPE);
  out.uint(codes.length);
  for (const code of codes) out.byte(code);
  return true;
}

// A link's `original` contains its `link`, and its `displayText` is the link or a piece of the original.
// `mayBeWord`: the parser's section types and task marks are WORDS; looking other text up costs more.
function writeParserString(out: Writer, text: string, strings: number, mayBeWord: boolean): void {
  for (let index = strings; index < out.stringCount; index++) {
    const earlier = out.strings[index] as string;
    if (earlier === text) {
      out.byte(SAME_STRING);
      out.uint(index - strings);
      return;
    }
    if (earlier.length >= MIN_SHARED_LENGTH && text.length > earlier.length) {
      const at = text.indexOf(earlier);
      if (at >= 0) {
        out.byte(WRAPPED_STRING);
        out.uint(index - strings);
        writeText(out, text, 0, at);
        writeText(out, text, at + earlier.length, text.length);
        return;
      }
    } else if (text.length >= MIN_SHARED_LENGTH && earlier.length > text.length) {
      const at = earlier.indexOf(text);
      if (at >= 0) {
        out.byte(SLICED_STRING);
        out.uint(index - strings);
        out.uint(at);
        out.uint(text.length);
        return;
      }
    }
  }
  if (mayBeWord) writeString(out, text);
  else writeText(out, text, 0, text.length);
}

/** What a position's length most often equals: the longest string of its record (a link's original, a tag). */
function lengthHint(strings: readonly string[], from: number, to: number): number {
  let longest = -1;
  for (let index = from; index < to; index++) longest = Math.max(longest, (strings[index] as string).length);
  return longest;
}

function isPositionNumber(value: unknown): value is number {
  // `>>> 0` keeps only integers from 0 to 2^32 - 1, and 1 / -0 is -Infinity.
  return typeof value === "number" && value >>> 0 === value && value <= MAX_POSITION_NUMBER && 1 / value > 0;
}

/**
 * Reads a position of exactly the parser's shape, key order included, into `out.loc`, so that writing it
 * as numbers loses nothing; false for anything else.
 */
function readCompactPos(out: Writer, value: unknown): boolean {
  if (typeof value !== "object" || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false;
  const pos = value as Record<string, unknown>;
  let count = 0;
  for (const key in pos) {
    if (key !== (count === 0 ? "start" : "end") || count > 1 || !readCompactLoc(out, pos[key], count * 3)) return false;
    count++;
  }
  const loc = out.loc;
  return count === 2 && (loc[3] as number) >= (loc[0] as number) && (loc[5] as number) >= (loc[2] as number);
}

function readCompactLoc(out: Writer, value: unknown, at: number): boolean {
  if (typeof value !== "object" || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false;
  const loc = value as Record<string, unknown>;
  let count = 0;
  for (const key in loc) {
    if (key !== (count === 0 ? "line" : count === 1 ? "col" : "offset") || count > 2) return false;
    const number = loc[key];
    if (!isPositionNumber(number)) return false;
    out.loc[at + count] = number;
    count++;
  }
  return count === 3;
}

function zigzag(value: number): number {
  return value >= 0 ? value * 2 : -value * 2 - 1;
}

function unzigzag(value: number): number {
  return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
}

// The start as deltas from the previous position's start (lists run down the note, so these are small;
// on the same line the column follows from the offset), the end relative to the start: a one-line span
// whose columns move with its offsets needs only its length, and often not even that.
function writePosition(out: Writer, value: unknown, strings: number): void {
  if (!readCompactPos(out, value)) {
    out.byte(NOT_A_POSITION);
    writeValue(out, value, Mode.Parser);
    return;
  }
  const loc = out.loc;
  const startLine = loc[0] as number;
  const startCol = loc[1] as number;
  const startOffset = loc[2] as number;
  const endCol = loc[4] as number;
  const endOffset = loc[5] as number;
  const line = zigzag(startLine - out.previousLine);
  const offset = startOffset - out.previousOffset;
  const length = endOffset - startOffset;
  const lines = (loc[3] as number) - startLine;
  const colFollows = startCol !== out.previousCol + offset;
  const endFollows = lines !== 0 || endCol !== startCol + length;
  const lengthFollows = length !== lengthHint(out.strings, strings, out.stringCount);
  out.byte(
    (Math.min(line, LINE_FOLLOWS) << LINE_SHIFT) |
      (colFollows ? COL_FOLLOWS : 0) |
      (endFollows ? END_FOLLOWS : 0) |
      (lengthFollows ? LENGTH_FOLLOWS : 0),
  );
  if (line >= LINE_FOLLOWS) out.uint(line - LINE_FOLLOWS);
  out.uint(zigzag(offset));
  if (colFollows) out.uint(startCol);
  if (lengthFollows) out.uint(length);
  if (endFollows) {
    out.uint(lines);
    out.uint(endCol);
  }
  out.previousLine = startLine;
  out.previousOffset = startOffset;
  out.previousCol = startCol;
}

function writeString(out: Writer, text: string): void {
  if (text.length <= LONGEST_WORD) {
    const word = WORD_CODES.get(text);
    if (word !== undefined) {
      out.byte(word);
      return;
    }
  }
  writeText(out, text, 0, text.length);
}

/** Writes `text.slice(from, to)`, not as a word. */
function writeText(out: Writer, text: string, from: number, to: number): void {
  const count = to - from;
  out.reserve(count * 3 + 1 + MAX_VARINT_BYTES);
  const start = out.length;
  // Most text is ASCII: room is left for the header of one byte a character, and the bytes are moved
  // if their header turns out longer.
  const reserved = headerSize(count);
  const bytes = out.bytes;
  let at = start + reserved;
  out.loose = false;
  if (count >= NATIVE_ENCODE_LENGTH && from === 0 && to === text.length && isWellFormed(text)) {
    at += utf8Encoder.encodeInto(text, bytes.subarray(at)).written;
  } else {
    at = encodeWtf8(out, text, from, to, at);
  }
  const loose = out.loose;
  const length = at - start - reserved;
  const header = loose ? 1 + varintSize(length) : headerSize(length);
  if (header !== reserved) bytes.copyWithin(start + header, start + reserved, at);
  out.length = start;
  if (loose) {
    out.byte(LOOSE_STRING);
    out.uint(length);
  } else if (length < SHORT_STRING_END - SHORT_STRING) {
    out.byte(SHORT_STRING + length);
  } else {
    out.byte(STRING);
    out.uint(length);
  }
  out.length = start + header + length;
}

/** Where the bytes end; sets `out.loose` when a lone surrogate was among them. */
function encodeWtf8(out: Writer, text: string, from: number, to: number, start: number): number {
  const bytes = out.bytes;
  let at = start;
  for (let index = from; index < to; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) {
      bytes[at++] = code;
    } else if (code < 0x800) {
      bytes[at++] = 0xc0 | (code >> 6);
      bytes[at++] = 0x80 | (code & 0x3f);
    } else if (code < 0xd800 || code > 0xdfff) {
      bytes[at++] = 0xe0 | (code >> 12);
      bytes[at++] = 0x80 | ((code >> 6) & 0x3f);
      bytes[at++] = 0x80 | (code & 0x3f);
    } else {
      const next = code <= 0xdbff && index + 1 < to ? text.charCodeAt(index + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        const point = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        bytes[at++] = 0xf0 | (point >> 18);
        bytes[at++] = 0x80 | ((point >> 12) & 0x3f);
        bytes[at++] = 0x80 | ((point >> 6) & 0x3f);
        bytes[at++] = 0x80 | (point & 0x3f);
        index++;
      } else {
        out.loose = true;
        bytes[at++] = 0xe0 | (code >> 12);
        bytes[at++] = 0x80 | ((code >> 6) & 0x3f);
        bytes[at++] = 0x80 | (code & 0x3f);
      }
    }
  }
  return at;
}

function headerSize(length: number): number {
  return length < SHORT_STRING_END - SHORT_STRING ? 1 : 1 + varintSize(length);
}

function varintSize(value: number): number {
  let size = 1;
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 0x80)) size++;
  return size;
}

/** Thrown inside the decoder only; decodeMetadata turns it into null. */
const MALFORMED = new Error("malformed metadata encoding");

type Container = unknown[] | Record<string, unknown>;

interface Shape {
  keys: readonly string[];
  /** Builds the record when the parser makes records of these keys. */
  build: BuildRecord | undefined;
}

type BuildRecord = (input: Reader, strings: number) => Record<string, unknown>;

// ignoreBOM keeps a string that starts with U+FEFF (a tag, a block id) as it was, instead of dropping that character.
const utf8Decoder = new TextDecoder("utf-8", { ignoreBOM: true });

class Reader {
  at = 1;
  previousLine = 0;
  previousOffset = 0;
  previousCol = 0;
  readonly containers: Container[] = [];
  readonly shapes: Shape[] = [];
  readonly strings: string[] = [];
  stringCount = 0;
  /**
   * Whether a position key's value or a JSON text was read; until then every value under a position key
   * came from readPosition, so it is a position.
   */
  genericPositions = false;

  constructor(readonly bytes: Uint8Array) {}

  byte(): number {
    const value = this.bytes[this.at++];
    if (value === undefined) throw MALFORMED;
    return value;
  }

  uint(): number {
    let byte = this.byte();
    if (byte < 0x80) return byte;
    let value = byte & 0x7f;
    let scale = 0x80;
    for (let count = 1; ; count++) {
      if (count === MAX_VARINT_BYTES) throw MALFORMED;
      byte = this.byte();
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) break;
      scale *= 0x80;
    }
    if (value > Number.MAX_SAFE_INTEGER) throw MALFORMED;
    return value;
  }

  /** Adds a string value of the record being read, when it is the parser's. */
  addString(text: string, strings: number): void {
    if (strings !== NO_STRINGS) this.strings[this.stringCount++] = text;
  }
}

/** The cache encodeMetadata packed, or null when the bytes are not one (truncated, corrupt, another version). */
export function decodeMetadata(bytes: Uint8Array): CachedMetadata | null {
  if (bytes[0] !== VERSION) return null;
  try {
    const input = new Reader(bytes);
    const value = readValue(input, Mode.Cache, NO_STRINGS);
    if (input.at !== bytes.length) return null;
    return isCachedMetadata(value, input.genericPositions) ? value : null;
  } catch {
    // MALFORMED, a JSON text that does not parse, or a RangeError from nesting deeper than the stack.
    return null;
  }
}

/** `strings`: where the string values of the parser's record being read begin, or NO_STRINGS. */
function readValue(input: Reader, mode: Mode, strings: number): unknown {
  const tag = input.byte();
  if (tag >= SHORT_STRING) {
    const text = tag >= WORD ? word(tag) : readText(input, tag - SHORT_STRING);
    input.addString(text, strings);
    return text;
  }
  if (tag >= SMALL_UINT) return tag - SMALL_UINT;
  if (tag >= SHORT_SHAPE) return readShapedRecord(input, mode, shape(input, tag - SHORT_SHAPE));
  switch (tag) {
    case NULL:
      return null;
    case FALSE:
      return false;
    case TRUE:
      return true;
    case UNDEFINED:
      return undefined;
    case FLOAT64: {
      const bytes = input.bytes;
      if (input.at + 8 > bytes.length) throw MALFORMED;
      const value = new DataView(bytes.buffer, bytes.byteOffset + input.at, 8).getFloat64(0, true);
      input.at += 8;
      return value;
    }
    case UINT:
      return input.uint();
    case NEGATIVE_INT:
      return -input.uint();
    case STRING:
    case LOOSE_STRING: {
      const length = input.uint();
      const text = tag === STRING ? readText(input, length) : readLooseText(input, length);
      input.addString(text, strings);
      return text;
    }
    case ARRAY:
      return readArray(input, mode);
    case OBJECT:
      return readRecord(input, mode);
    case NEW_SHAPE:
      return readShapedRecord(input, mode, readNewShape(input));
    case SHAPE:
      return readShapedRecord(input, mode, shape(input, input.uint()));
    case JSON_TEXT:
      input.genericPositions = true;
      return JSON.parse(readString(input)) as unknown;
    case CYCLE: {
      const container = input.containers[input.containers.length - 1 - input.uint()];
      if (container === undefined) throw MALFORMED;
      return container;
    }
    case SAME_STRING:
    case WRAPPED_STRING:
    case SLICED_STRING: {
      if (strings === NO_STRINGS) throw MALFORMED;
      const text = readSharedString(input, tag, strings);
      input.addString(text, strings);
      return text;
    }
    default:
      throw MALFORMED;
  }
}

function word(tag: number): string {
  const text = WORDS[tag - WORD];
  if (text === undefined) throw MALFORMED;
  return text;
}

function shape(input: Reader, index: number): Shape {
  const found = input.shapes[index];
  if (found === undefined) throw MALFORMED;
  return found;
}

function readNewShape(input: Reader): Shape {
  const count = input.uint();
  const keys: string[] = [];
  // The keys' word codes, as digits in base 256, name the parser's records in PARSER_RECORDS.
  let signature = count <= MAX_SHAPE_KEYS ? 0 : -1;
  for (let index = 0; index < count; index++) {
    const tag = input.bytes[input.at] ?? 0;
    signature = signature >= 0 && tag >= WORD ? signature * 256 + (tag - WORD + 1) : -1;
    keys.push(readString(input));
  }
  const found: Shape = { keys, build: PARSER_RECORDS.get(signature) };
  input.shapes.push(found);
  return found;
}

function readString(input: Reader): string {
  const tag = input.byte();
  if (tag >= WORD) return word(tag);
  if (tag >= SHORT_STRING) return readText(input, tag - SHORT_STRING);
  if (tag === STRING) return readText(input, input.uint());
  if (tag === LOOSE_STRING) return readLooseText(input, input.uint());
  throw MALFORMED;
}

function readSharedString(input: Reader, tag: number, strings: number): string {
  const index = strings + input.uint();
  if (index >= input.stringCount) throw MALFORMED;
  const earlier = input.strings[index] as string;
  if (tag === SAME_STRING) return earlier;
  if (tag === WRAPPED_STRING) {
    const before = readString(input);
    return before + earlier + readString(input);
  }
  const start = input.uint();
  const length = input.uint();
  if (start + length > earlier.length) throw MALFORMED;
  return earlier.slice(start, start + length);
}

function readArray(input: Reader, mode: Mode): unknown[] {
  const count = input.uint();
  const itemMode = mode === Mode.User ? Mode.User : Mode.Parser;
  const array: unknown[] = [];
  input.containers.push(array);
  for (let index = 0; index < count; index++) array.push(readValue(input, itemMode, NO_STRINGS));
  input.containers.pop();
  return array;
}

function readRecord(input: Reader, mode: Mode): Record<string, unknown> {
  const count = input.uint();
  const record: Record<string, unknown> = {};
  input.containers.push(record);
  const strings = mode === Mode.User ? NO_STRINGS : input.stringCount;
  for (let index = 0; index < count; index++) {
    const key = readString(input);
    setEntry(record, key, readEntry(input, mode, key, strings));
  }
  if (strings !== NO_STRINGS) input.stringCount = strings;
  input.containers.pop();
  return record;
}

function readShapedRecord(input: Reader, mode: Mode, found: Shape): Record<string, unknown> {
  const strings = mode === Mode.User ? NO_STRINGS : input.stringCount;
  // User data may be cyclic, so its records are made before their values; the parser's never are.
  if (mode === Mode.Parser && found.build) {
    const built = found.build(input, strings);
    input.stringCount = strings;
    return built;
  }
  const record: Record<string, unknown> = {};
  input.containers.push(record);
  for (const key of found.keys) setEntry(record, key, readEntry(input, mode, key, strings));
  if (strings !== NO_STRINGS) input.stringCount = strings;
  input.containers.pop();
  return record;
}

function readEntry(input: Reader, mode: Mode, key: string, strings: number): unknown {
  if (mode === Mode.User || (mode === Mode.Cache && key === "frontmatter")) return readValue(input, Mode.User, NO_STRINGS);
  if (key === "position" || key === "frontmatterPosition") return readPosition(input, strings);
  return readValue(input, Mode.Parser, strings);
}

function setEntry(record: Record<string, unknown>, key: string, value: unknown): void {
  // Assigning `__proto__` would set the prototype; YAML's `__proto__:` is an ordinary own key.
  if (key === "__proto__") Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else record[key] = value;
}

function value(input: Reader, strings: number): unknown {
  return readValue(input, Mode.Parser, strings);
}

// The parser's records, built as literals: three times faster than adding their keys one by one.
const PARSER_RECORDS = new Map<number, BuildRecord>(
  (
    [
      [["link", "original", "displayText", "position"], (input, strings) => {
        const link = value(input, strings);
        const original = value(input, strings);
        const displayText = value(input, strings);
        return { link, original, displayText, position: readPosition(input, strings) };
      }],
      [["key", "link", "original", "displayText"], (input, strings) => {
        const key = value(input, strings);
        const link = value(input, strings);
        const original = value(input, strings);
        return { key, link, original, displayText: value(input, strings) };
      }],
      [["tag", "position"], (input, strings) => {
        const tag = value(input, strings);
        return { tag, position: readPosition(input, strings) };
      }],
      [["heading", "level", "position"], (input, strings) => {
        const heading = value(input, strings);
        const level = value(input, strings);
        return { heading, level, position: readPosition(input, strings) };
      }],
      [["type", "position"], (input, strings) => {
        const type = value(input, strings);
        return { type, position: readPosition(input, strings) };
      }],
      [["type", "position", "id"], (input, strings) => {
        const type = value(input, strings);
        const position = readPosition(input, strings);
        return { type, position, id: value(input, strings) };
      }],
      [["parent", "position"], (input, strings) => {
        const parent = value(input, strings);
        return { parent, position: readPosition(input, strings) };
      }],
      [["parent", "position", "task"], (input, strings) => {
        const parent = value(input, strings);
        const position = readPosition(input, strings);
        return { parent, position, task: value(input, strings) };
      }],
      [["parent", "position", "id"], (input, strings) => {
        const parent = value(input, strings);
        const position = readPosition(input, strings);
        return { parent, position, id: value(input, strings) };
      }],
      [["parent", "position", "task", "id"], (input, strings) => {
        const parent = value(input, strings);
        const position = readPosition(input, strings);
        const task = value(input, strings);
        return { parent, position, task, id: value(input, strings) };
      }],
      [["id", "position"], (input, strings) => {
        const id = value(input, strings);
        return { id, position: readPosition(input, strings) };
      }],
    ] satisfies [string[], BuildRecord][]
  ).map(([keys, build]) => [keys.reduce((signature, key) => signature * 256 + (WORD_CODES.get(key) ?? 0) - WORD + 1, 0), build]),
);

function readPosition(input: Reader, strings: number): unknown {
  const flags = input.byte();
  if (flags === NOT_A_POSITION) {
    input.genericPositions = true;
    return readValue(input, Mode.Parser, NO_STRINGS);
  }
  let lineDelta = flags >> LINE_SHIFT;
  if (lineDelta === LINE_FOLLOWS) lineDelta += input.uint();
  const line = input.previousLine + unzigzag(lineDelta);
  const offsetDelta = unzigzag(input.uint());
  const offset = input.previousOffset + offsetDelta;
  const col = flags & COL_FOLLOWS ? input.uint() : input.previousCol + offsetDelta;
  const length = flags & LENGTH_FOLLOWS ? input.uint() : lengthHint(input.strings, strings, input.stringCount);
  const endLine = flags & END_FOLLOWS ? line + input.uint() : line;
  const endCol = flags & END_FOLLOWS ? input.uint() : col + length;
  input.previousLine = line;
  input.previousOffset = offset;
  input.previousCol = col;
  return { start: { line, col, offset }, end: { line: endLine, col: endCol, offset: offset + length } };
}

/** Below this many bytes a JavaScript loop beats the call into TextDecoder, for ASCII. */
const NATIVE_DECODE_LENGTH = 24;
// One array per length: setting an array's length costs more than decoding the string.
const asciiUnits: number[][] = Array.from({ length: NATIVE_DECODE_LENGTH }, (_, length) => new Array<number>(length).fill(0));

function readText(input: Reader, length: number): string {
  const bytes = input.bytes;
  const start = input.at;
  const end = start + length;
  if (end > bytes.length) throw MALFORMED;
  input.at = end;
  if (length < NATIVE_DECODE_LENGTH) {
    const units = asciiUnits[length] as number[];
    let ascii = true;
    for (let at = start; at < end; at++) {
      const byte = bytes[at] as number;
      if (byte >= 0x80) {
        ascii = false;
        break;
      }
      units[at - start] = byte;
    }
    if (ascii) return String.fromCharCode.apply(null, units);
  }
  return utf8Decoder.decode(bytes.subarray(start, end));
}

function continuation(bytes: Uint8Array, at: number, end: number): number {
  const byte = at < end ? (bytes[at] as number) : 0;
  if ((byte & 0xc0) !== 0x80) throw MALFORMED;
  return byte & 0x3f;
}

const DECODE_CHUNK = 4096;

function readLooseText(input: Reader, length: number): string {
  const bytes = input.bytes;
  const start = input.at;
  const end = start + length;
  if (end > bytes.length) throw MALFORMED;
  input.at = end;
  const units: number[] = [];
  let at = start;
  while (at < end) {
    const lead = bytes[at] as number;
    if (lead < 0x80) {
      units.push(lead);
      at += 1;
    } else if (lead >= 0xc0 && lead < 0xe0) {
      units.push(((lead & 0x1f) << 6) | continuation(bytes, at + 1, end));
      at += 2;
    } else if (lead >= 0xe0 && lead < 0xf0) {
      units.push(((lead & 0x0f) << 12) | (continuation(bytes, at + 1, end) << 6) | continuation(bytes, at + 2, end));
      at += 3;
    } else if (lead >= 0xf0 && lead < 0xf5) {
      const point =
        ((lead & 0x07) << 18) |
        (continuation(bytes, at + 1, end) << 12) |
        (continuation(bytes, at + 2, end) << 6) |
        continuation(bytes, at + 3, end);
      if (point < 0x10000 || point > 0x10ffff) throw MALFORMED;
      units.push(0xd800 + ((point - 0x10000) >> 10), 0xdc00 + ((point - 0x10000) & 0x3ff));
      at += 4;
    } else {
      throw MALFORMED;
    }
  }
  let text = "";
  for (let from = 0; from < units.length; from += DECODE_CHUNK) text += String.fromCharCode(...units.slice(from, from + DECODE_CHUNK));
  return text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isLoc(value: unknown): boolean {
  return isRecord(value) && typeof value["line"] === "number" && typeof value["col"] === "number" && typeof value["offset"] === "number";
}

function isPos(value: unknown): boolean {
  return isRecord(value) && isLoc(value["start"]) && isLoc(value["end"]);
}

/** Undefined, or a list of records whose `key` satisfies `check`. */
function isListOf(list: unknown, key: string, check: (value: unknown) => boolean): boolean {
  if (list === undefined) return true;
  if (!Array.isArray(list)) return false;
  for (const item of list as unknown[]) if (!isRecord(item) || !check(item[key])) return false;
  return true;
}

function isString(value: unknown): boolean {
  return typeof value === "string";
}

function isPresent(value: unknown): boolean {
  return value !== undefined;
}

const REFERENCE_LISTS = ["links", "embeds", "frontmatterLinks"];
const POSITIONED_LISTS = ["tags", "headings", "sections", "listItems"];

/**
 * What the engine reads without checking: a decoded tree of another shape is not a cache. Unless
 * `genericPositions`, every value decoded under a position key is a position already.
 */
function isCachedMetadata(value: unknown, genericPositions: boolean): value is CachedMetadata {
  if (!isRecord(value)) return false;
  for (const key of REFERENCE_LISTS) {
    if (!isListOf(value[key], "link", isString) || !isListOf(value[key], "original", isString)) return false;
  }
  const isPosition = genericPositions ? isPos : isPresent;
  for (const key of POSITIONED_LISTS) if (!isListOf(value[key], "position", isPosition)) return false;
  const frontmatter = value["frontmatter"];
  const blocks = value["blocks"];
  const position = value["frontmatterPosition"];
  return (
    (frontmatter === undefined || isRecord(frontmatter)) &&
    (blocks === undefined || isRecord(blocks)) &&
    (position === undefined || isPosition(position))
  );
}
