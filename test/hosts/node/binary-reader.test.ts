import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { decode as decodePng, encode as encodePng } from "fast-png";
import { ToolError } from "../../../src/core/errors";
import { IMAGE_MAX_SIDE } from "../../../src/core/formats/image-info";
import { WorkerBinaryReader } from "../../../src/hosts/node/binary-reader";
import { within } from "../../support/poll";
import { slowPdf } from "../../support/pdf-files";

const printed = new Uint8Array(readFileSync(path.join(__dirname, "../../core/formats/fixtures/chromium-print.pdf")));

test("PDF text and scaled images come back from the worker thread", async () => {
  const reader = new WorkerBinaryReader();
  try {
    const text = await reader.pdfText(printed, "notes.pdf", { first_page: 2, last_page: 3 });
    assert.equal(text.page_count, 3);
    assert.match(text.pages[0]!.text, /Glacier retreat/);
    const data = new Uint8Array(2400 * 1200 * 4).fill(200);
    const image = await reader.image(encodePng({ width: 2400, height: 1200, data, channels: 4, depth: 8 }), "wide.png");
    assert.equal(image.resized, true);
    const decoded = decodePng(image.data);
    assert.deepEqual([decoded.width, decoded.height], [IMAGE_MAX_SIDE, 784]);
  } finally {
    await reader.close();
  }
});

test("a PDF built to be slow to parse is stopped at the time limit while this thread keeps running, and the next read works", async () => {
  const reader = new WorkerBinaryReader({ timeoutMs: 1_500 });
  try {
    const bomb = new Uint8Array(slowPdf(64));
    const started = Date.now();
    let settled = false;
    let outcome: unknown;
    void reader.pdfText(bomb, "bomb.pdf", { first_page: 1, last_page: 1 }).then(
      (value) => ((outcome = value), (settled = true)),
      (error: unknown) => ((outcome = error), (settled = true)),
    );
    // The engine's thread answers timers on time while the worker parses: the longest gap between
    // ticks stays far under the parse time.
    let last = Date.now();
    let longest = 0;
    await within(20_000, "the slow PDF read to settle", () => {
      const now = Date.now();
      longest = Math.max(longest, now - last);
      last = now;
      return settled;
    }, 10);
    assert.ok(outcome instanceof ToolError && outcome.code === "too_large" && /took longer than 1\.5 s and was stopped/.test(outcome.message), String(outcome));
    assert.ok(Date.now() - started < 10_000, "stopped near the limit, not after the whole parse");
    assert.ok(longest < 1_000, `the event loop stalled for ${longest} ms`);
    const after = await reader.pdfText(printed, "notes.pdf", { first_page: 1, last_page: 1 });
    assert.equal(after.page_count, 3);
  } finally {
    await reader.close();
  }
});
