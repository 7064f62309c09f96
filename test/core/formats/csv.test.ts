// The CSV record parser and the delimiter sniffer on the shapes spreadsheets export.
import { test } from "node:test";
import assert from "node:assert/strict";
import { nextRow, sniffDelimiter } from "../../../src/core/formats/csv";

function all(text: string, delimiter: string): string[][] {
  const rows: string[][] = [];
  for (let at = 0, row = nextRow(text, at, delimiter); row; at = row.end, row = nextRow(text, at, delimiter)) rows.push(row.fields);
  return rows;
}

test("quoted fields hold delimiters, line breaks (LF and CRLF) and doubled quotes; empty fields stay", () => {
  const text = 'id,text,n\r\n1,"a, b",2\r\n2,"line one\r\nline two",3\n3,"say ""hi""",\n4,,\n';
  assert.deepEqual(all(text, ","), [
    ["id", "text", "n"],
    ["1", "a, b", "2"],
    ["2", "line one\r\nline two", "3"],
    ["3", 'say "hi"', ""],
    ["4", "", ""],
  ]);
});

test("a last row without a line break, a lone CR as a line break, and an unterminated quote", () => {
  assert.deepEqual(all("a,b\rc,d", ","), [["a", "b"], ["c", "d"]]);
  const open = nextRow('x,"never closed\nmore', 0, ",");
  assert.deepEqual(open?.fields, ["x", "never closed\nmore"]);
  assert.equal(open?.unterminated, true);
});

test("the delimiter is sniffed from the rows that agree, not from commas inside quotes", () => {
  assert.equal(sniffDelimiter('name;amount\n"Smith, J";1,5\n"Doe, A";2,0\n'), ";");
  assert.equal(sniffDelimiter("a\tb\tc\n1\t2\t3\n"), "\t");
  assert.equal(sniffDelimiter('a,b\n"x;y",2\n'), ",");
  assert.equal(sniffDelimiter("a|b|c\n1|2|3\n"), "|");
  assert.equal(sniffDelimiter("single column\nvalue\n"), ",");
});
