import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ToolError } from "../../../src/core/errors";
import { inlineBinaryReader } from "../../../src/core/formats/binary";
import { extractPdfText, PDF_MAX_PAGES, type PdfJsLike } from "../../../src/core/formats/pdf";
import { damagedPdf, encryptedPdf, simplePdf } from "../../support/pdf-files";

const printed = new Uint8Array(readFileSync(path.join(__dirname, "fixtures", "chromium-print.pdf")));
const loadPdfJs = (): Promise<PdfJsLike> => import("unpdf/pdfjs");

function refused(code: string, pattern: RegExp): (error: unknown) => boolean {
  return (error) => error instanceof ToolError && error.code === code && pattern.test(error.message);
}

test("a PDF printed by headless Chromium: page count, title, and each page's own text", async () => {
  const reader = inlineBinaryReader(loadPdfJs, () => Date.now());
  const all = await reader.pdfText(printed, "Attachments/field-notes.pdf", { first_page: 1, last_page: 3 });
  assert.equal(all.page_count, 3);
  assert.equal(all.title, "Field notes");
  assert.deepEqual(
    all.pages.map((page) => page.page),
    [1, 2, 3],
  );
  assert.match(all.pages[0]!.text, /Quarterly field notes[\s\S]*alpine meadows and a marmot census/);
  assert.doesNotMatch(all.pages[0]!.text, /Glacier/);
  assert.match(all.pages[1]!.text, /Glacier retreat measured at 14 metres/);
  assert.match(all.pages[2]!.text, /Accents survive printing: café, naïve, Ångström/);
  assert.equal(all.next_page, undefined);
  const second = await reader.pdfText(printed, "Attachments/field-notes.pdf", { first_page: 2, last_page: 2 });
  assert.deepEqual(
    second.pages.map((page) => page.page),
    [2],
  );
});

test("a long range stops after PDF_MAX_PAGES pages and names the page to continue from", async () => {
  const pdfjs = await loadPdfJs();
  const texts = Array.from({ length: PDF_MAX_PAGES + 5 }, (_, index) => `Page number ${index + 1} speaking`);
  const bytes = new Uint8Array(simplePdf(texts));
  const first = await extractPdfText(pdfjs, bytes, "long.pdf", { first_page: 1, last_page: 999, budget_ms: 60_000 }, () => Date.now());
  assert.equal(first.page_count, PDF_MAX_PAGES + 5);
  assert.equal(first.pages.length, PDF_MAX_PAGES);
  assert.equal(first.next_page, PDF_MAX_PAGES + 1);
  const rest = await extractPdfText(pdfjs, bytes, "long.pdf", { first_page: first.next_page, last_page: 999, budget_ms: 60_000 }, () => Date.now());
  assert.deepEqual(
    rest.pages.map((page) => page.text),
    texts.slice(PDF_MAX_PAGES),
  );
  assert.equal(rest.next_page, undefined);
});

test("the time budget ends a call after the page that used it up, never before the first page", async () => {
  const pdfjs = await loadPdfJs();
  const bytes = new Uint8Array(simplePdf(["one", "two", "three"]));
  // A clock that jumps a minute on every look: the budget is spent as soon as one page is read.
  let clock = 0;
  const result = await extractPdfText(pdfjs, bytes, "slow.pdf", { first_page: 1, last_page: 3, budget_ms: 1_000 }, () => (clock += 60_000));
  assert.deepEqual(
    result.pages.map((page) => page.text),
    ["one"],
  );
  assert.equal(result.next_page, 2);
});

test("encrypted, damaged and out-of-range reads are refused with what to do", async () => {
  const pdfjs = await loadPdfJs();
  const range = { first_page: 1, last_page: 1, budget_ms: 5_000 };
  await assert.rejects(extractPdfText(pdfjs, new Uint8Array(encryptedPdf()), "secret.pdf", range, Date.now), refused("unsupported", /"secret\.pdf" is an encrypted PDF that needs a password/));
  await assert.rejects(extractPdfText(pdfjs, new Uint8Array(damagedPdf()), "broken.pdf", range, Date.now), refused("unsupported", /"broken\.pdf" is not a readable PDF/));
  await assert.rejects(
    extractPdfText(pdfjs, printed, "notes.pdf", { first_page: 4, last_page: 4, budget_ms: 5_000 }, Date.now),
    refused("invalid_argument", /has 3 pages; page 4 does not exist\. Ask for page 1 to 3/),
  );
});
