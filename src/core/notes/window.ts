// Bounded reads (SPEC §5): a window of a file's bytes that never cuts a UTF-8 sequence, so every window
// decodes on its own and consecutive windows concatenate to the exact file.
import { ToolError } from "../errors";

/**
 * The default window of note_read and journal: well under the default response limit (36,000 bytes)
 * once JSON escapes and the result's other fields are added, so a default read reaches the model whole.
 */
export const DEFAULT_WINDOW_BYTES = 24 * 1024;

export interface ReadWindow {
  text: string;
  byte_offset: number;
  byte_count: number;
  total_bytes: number;
  /** Present only when bytes remain after this window. */
  next_byte_offset?: number;
}

const MAX_UTF8_SEQUENCE = 4;
// ignoreBOM keeps a leading U+FEFF in the text, so text length and byte_count always agree.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

function isContinuationByte(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

function sequenceLength(leadByte: number): number {
  if (leadByte >= 0xf0) return 4;
  if (leadByte >= 0xe0) return 3;
  if (leadByte >= 0xc0) return 2;
  return 1;
}

// Only a position covered by a lead byte's sequence is "inside" a character. Stray continuation bytes
// (invalid UTF-8) count as boundaries, so the offsets we hand out are always accepted back.
function isInsideCharacter(bytes: Uint8Array, index: number): boolean {
  if (!isContinuationByte(bytes[index])) return false;
  for (let back = 1; back < MAX_UTF8_SEQUENCE && index - back >= 0; back++) {
    const byte = bytes[index - back];
    if (byte === undefined) return false;
    if (!isContinuationByte(byte)) return back < sequenceLength(byte);
  }
  return false;
}

export function readWindow(bytes: Uint8Array, byteOffset: number, maxBytes: number): ReadWindow {
  const total = bytes.length;
  if (!Number.isInteger(byteOffset) || byteOffset < 0 || byteOffset > total) {
    throw new ToolError(
      "invalid_argument",
      `byte_offset ${byteOffset} is outside the file (0..${total}); start at 0 or pass the next_byte_offset from the previous read.`,
    );
  }
  if (!Number.isInteger(maxBytes) || maxBytes < 1) {
    throw new ToolError("invalid_argument", `max_bytes must be a positive whole number of bytes; got ${maxBytes}.`);
  }
  if (isInsideCharacter(bytes, byteOffset)) {
    throw new ToolError(
      "invalid_argument",
      `byte_offset ${byteOffset} falls inside a UTF-8 character; pass the next_byte_offset from the previous read (or 0).`,
    );
  }

  let end = Math.min(total, byteOffset + maxBytes);
  while (end > byteOffset && end < total && isInsideCharacter(bytes, end)) end--;
  if (end === byteOffset && byteOffset < total) {
    throw new ToolError(
      "invalid_argument",
      `max_bytes ${maxBytes} is smaller than the character at byte_offset ${byteOffset}; pass max_bytes of at least ${MAX_UTF8_SEQUENCE}.`,
    );
  }

  const window: ReadWindow = {
    text: decoder.decode(bytes.subarray(byteOffset, end)),
    byte_offset: byteOffset,
    byte_count: end - byteOffset,
    total_bytes: total,
  };
  if (end < total) window.next_byte_offset = end;
  return window;
}

/** The UTF-8 byte length of a string without encoding it; a lone surrogate counts as U+FFFD (3 bytes). */
export function utf8Length(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) length += 1;
    else if (unit < 0x800) length += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length += 4;
        i++;
      } else length += 3;
    } else length += 3;
  }
  return length;
}
