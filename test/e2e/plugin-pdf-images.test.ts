// attachment_read of a PDF and an image in the built main.js, loaded by the Obsidian stand-in the way
// the app loads it: the PDF through loadPdfJs() (the stand-in serves unpdf's pdf.js where the app
// serves its own), the image scaled in plain JavaScript inside the plugin.
import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync } from "node:fs";
import path from "node:path";
import { decode as decodeJpeg } from "jpeg-js";
import { IMAGE_MAX_SIDE } from "../../src/core/formats/image-info";
import { startPlugin } from "../support/plugin";
import { callTool } from "../support/server";
import { EDGE_VAULT, tempVault } from "../support/vaults";

const fixtures = path.join(__dirname, "../core/formats/fixtures");

test("the plugin reads a Chromium-printed PDF by page and returns a large JPEG scaled as image content", async () => {
  const vault = tempVault(EDGE_VAULT);
  copyFileSync(path.join(fixtures, "chromium-print.pdf"), path.join(vault.dir, "Attachments/field-notes.pdf"));
  copyFileSync(path.join(fixtures, "chromium-shot-large.jpg"), path.join(vault.dir, "Attachments/shot-large.jpg"));
  const harness = await startPlugin({ fixture: EDGE_VAULT, vault });
  try {
    const client = await harness.connect();
    const pdf = await callTool(client, "attachment_read", { path: "Attachments/field-notes.pdf", pages: "2-3" });
    assert.equal(pdf.isError, false, pdf.text);
    assert.equal(pdf.structured.page_count, 3);
    const pages = pdf.structured.pages as Array<{ page: number; text: string }>;
    assert.deepEqual(
      pages.map((page) => page.page),
      [2, 3],
    );
    assert.match(pages[0]!.text, /Glacier retreat measured at 14 metres/);
    const picture = await client.callTool({ name: "attachment_read", arguments: { path: "Attachments/shot-large.jpg" } });
    const block = (picture.content as Array<{ type: string; data?: string; mimeType?: string }>).find((part) => part.type === "image");
    assert.ok(block?.data, JSON.stringify(picture.content).slice(0, 300));
    assert.equal(block.mimeType, "image/jpeg");
    const jpeg = decodeJpeg(Buffer.from(block.data, "base64"), { useTArray: true });
    assert.deepEqual([jpeg.width, jpeg.height], [IMAGE_MAX_SIDE, 1045]);
  } finally {
    await harness.stop();
    vault.cleanup();
  }
});
