// Notes keep their encoding details: a BOM stays, and a file written with CRLF throughout stays CRLF.
// Transforms see plain LF text without a BOM, so agents' `\n` content fits in either kind of file.

export interface NoteEncoding {
  bom: boolean;
  crlf: boolean;
}

const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
const encoder = new TextEncoder();

export function decodeNote(bytes: Uint8Array): { text: string; encoding: NoteEncoding } {
  let text = decoder.decode(bytes);
  const bom = text.startsWith("\uFEFF");
  if (bom) text = text.slice(1);
  const newlines = (text.match(/\n/g) ?? []).length;
  const crlfs = (text.match(/\r\n/g) ?? []).length;
  // Only a file that is CRLF throughout is converted; mixed files are left exactly as they are.
  const crlf = newlines > 0 && newlines === crlfs;
  return { text: crlf ? text.replace(/\r\n/g, "\n") : text, encoding: { bom, crlf } };
}

export function encodeNote(text: string, encoding: NoteEncoding): Uint8Array {
  const lines = encoding.crlf ? text.replace(/\r?\n/g, "\r\n") : text;
  return encoder.encode((encoding.bom ? "\uFEFF" : "") + lines);
}

export const NEW_NOTE_ENCODING: NoteEncoding = { bom: false, crlf: false };
