// CSV and TSV: the header and a window of rows. Fields are parsed as RFC 4180 has them (quoted fields
// may hold the delimiter, line breaks and doubled quotes), so a row is a record, not a line. The cursor
// keeps the byte where the next row starts, so continuing a large file does not parse it again from the top.
import { ToolError } from "../errors";
import { utf8Length } from "../notes/window";
import { largestFitting, type FormatReader, type FormatRequest, type FormatResult } from "./registry";

/** Up to this size every row is parsed to give total_rows; a larger file is counted only as far as read. */
const COUNT_ALL_BYTES = 8 * 1024 * 1024;
const SNIFF_ROWS = 20;
const CANDIDATES = [",", ";", "\t", "|"] as const;
// The BOM stays in the text, so character offsets and byte offsets count the same characters.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
const QUOTE = 34;

export interface CsvRow {
  fields: string[];
  /** The index just after this row's line break. */
  end: number;
  /** A quoted field ran to the end of the file. */
  unterminated?: boolean;
}

/** The row starting at `start` (a row boundary), or null at the end of the text. */
export function nextRow(text: string, start: number, delimiter: string): CsvRow | null {
  if (start >= text.length) return null;
  const separator = delimiter.charCodeAt(0);
  const fields: string[] = [];
  let field = "";
  let i = start;
  let unterminated = false;
  for (;;) {
    if (text.charCodeAt(i) === QUOTE) {
      // Quoted: up to the closing quote, "" standing for one quote; what follows before the delimiter is kept.
      i++;
      for (;;) {
        const close = text.indexOf('"', i);
        if (close < 0) {
          field += text.slice(i);
          i = text.length;
          unterminated = true;
          break;
        }
        field += text.slice(i, close);
        if (text.charCodeAt(close + 1) === QUOTE) {
          field += '"';
          i = close + 2;
        } else {
          i = close + 1;
          break;
        }
      }
    }
    // Unquoted (or the rest after a closing quote): up to the delimiter or the line break.
    let j = i;
    while (j < text.length) {
      const code = text.charCodeAt(j);
      if (code === separator || code === 10 || code === 13) break;
      j++;
    }
    field += text.slice(i, j);
    fields.push(field);
    field = "";
    if (j >= text.length) return { fields, end: text.length, ...(unterminated ? { unterminated } : {}) };
    const code = text.charCodeAt(j);
    if (code === separator) {
      i = j + 1;
      continue;
    }
    const end = code === 13 && text.charCodeAt(j + 1) === 10 ? j + 2 : j + 1;
    return { fields, end, ...(unterminated ? { unterminated } : {}) };
  }
}

/** The candidate that splits the first rows into the same number (more than one) of fields most often. */
export function sniffDelimiter(text: string): string {
  let best: string = ",";
  let bestScore = 0;
  for (const candidate of CANDIDATES) {
    const counts: number[] = [];
    let at = 0;
    for (let n = 0; n < SNIFF_ROWS; n++) {
      const row = nextRow(text, at, candidate);
      if (!row) break;
      counts.push(row.fields.length);
      at = row.end;
    }
    const first = counts[0] ?? 1;
    if (first < 2) continue;
    const same = counts.filter((count) => count === first).length;
    const score = same * 1000 + first;
    if (score > bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}

function delimiterName(delimiter: string): string {
  return delimiter === "\t" ? "tab" : delimiter;
}

function readCsv(request: FormatRequest): FormatResult {
  const { bytes, args } = request;
  const whole = decoder.decode(bytes);
  const bom = whole.charCodeAt(0) === 0xfeff ? 1 : 0;
  const delimiter = request.extension === "tsv" || request.extension === "tab" ? "\t" : sniffDelimiter(whole.slice(bom, bom + 64 * 1024));
  const header = nextRow(whole, bom, delimiter);
  const warnings: string[] = [];

  // Where the first row of the window starts: from the cursor's byte, or by walking `offset` rows.
  let at: number;
  if (args.continued && args.byte_offset > 0) {
    if (args.byte_offset > bytes.length) throw new ToolError("invalid_argument", "cursor points past the end of the file; read it again without cursor.");
    at = decoder.decode(bytes.subarray(0, args.byte_offset)).length;
  } else {
    at = header?.end ?? whole.length;
    for (let skipped = 0; skipped < args.offset; skipped++) {
      const row = nextRow(whole, at, delimiter);
      if (!row) break;
      at = row.end;
    }
  }
  const rows: string[][] = [];
  const ends: number[] = [];
  let cursor = at;
  let ragged = 0;
  const columns = header?.fields.length ?? 0;
  while (rows.length < args.limit) {
    const row = nextRow(whole, cursor, delimiter);
    if (!row) break;
    if (row.unterminated) warnings.push(`A quoted field in row ${args.offset + rows.length + 1} has no closing quote; it runs to the end of the file.`);
    if (row.fields.length !== columns) ragged++;
    rows.push(row.fields);
    ends.push(row.end);
    cursor = row.end;
  }
  let total: number | undefined;
  if (bytes.length <= COUNT_ALL_BYTES) {
    let counted = args.offset + rows.length;
    let walk = cursor;
    for (let row = nextRow(whole, walk, delimiter); row; row = nextRow(whole, walk, delimiter)) {
      counted++;
      walk = row.end;
    }
    total = counted;
  } else if (nextRow(whole, cursor, delimiter) === null) total = args.offset + rows.length;

  const build = (count: number, shortened: boolean): FormatResult => {
    const end = count > 0 ? ends[count - 1]! : at;
    const more = end < whole.length && nextRow(whole, end, delimiter) !== null;
    const body: Record<string, unknown> = {
      format: "csv",
      delimiter: delimiterName(delimiter),
      columns,
      header: header?.fields ?? [],
      offset: args.offset,
      returned: count,
      ...(total !== undefined ? { total_rows: total } : { total_rows_known: false }),
      ...(shortened ? { window_shortened: `${rows.length} rows do not fit the response limit, so ${count} are returned; continue with the cursor.` } : {}),
      ...(ragged > 0 ? { ragged_rows: `${ragged} of these rows have a different number of fields than the header's ${columns}.` } : {}),
      ...(warnings.length > 0 ? { warnings } : {}),
      rows: rows.slice(0, count),
    };
    if (!more) return { body };
    const byteOffset = utf8Length(whole.slice(0, end));
    return { body, next: { offset: args.offset + count, byte_offset: byteOffset } };
  };
  const full = build(rows.length, false);
  if (request.fits(full.body)) return full;
  return largestFitting(request, rows.length, (middle) => build(middle, true), () => build(1, true));
}

export const csvReader: FormatReader = {
  format: "csv",
  extensions: ["csv", "tsv", "tab"],
  read: readCsv,
};
