// attachment_read of PDFs and images through the official SDK client over real HTTP, on a temp copy of
// edge-vault: a PDF headless Chromium printed, Chromium screenshots, a large generated PNG, the
// vault's own (truncated) diagram.png, hand-made encrypted, damaged and slow PDFs; the server's binary
// worker does the parsing, so other calls keep answering while a slow PDF is read.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { decode as decodePng, encode as encodePng } from "fast-png";
import { decode as decodeJpeg } from "jpeg-js";
import { IMAGE_MAX_BYTES, IMAGE_MAX_SIDE } from "../../src/core/formats/image-info";
import { PDF_MAX_PAGES } from "../../src/core/formats/pdf";
import { callTool, startTestServer, type TestServer, type ToolCallResult } from "../support/server";
import { damagedPdf, encryptedPdf, simplePdf, slowPdf } from "../support/pdf-files";
import { startCli } from "../support/cli";
import { EDGE_VAULT, tempVault } from "../support/vaults";

const fixtures = path.join(__dirname, "../core/formats/fixtures");
let server: TestServer;
let client: Client;

// About 67 KB of text on one page: more than the default response limit of 36,000 bytes.
const LONG_PAGE = Array.from({ length: 80 }, (_, line) => Array.from({ length: 120 }, (_, i) => `w${line}x${i}`).join(" ")).join("\n");
const MANY_PAGES = Array.from({ length: PDF_MAX_PAGES + 7 }, (_, i) => `This is page ${i + 1} of the long report`);

function errorOf(result: ToolCallResult): { code: string; message: string } {
  assert.equal(result.isError, true, result.text);
  return result.structured.error as { code: string; message: string };
}

function gradient(width: number, height: number): Uint8Array {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const at = (y * width + x) * 4;
      data[at] = (x * 255) / width;
      data[at + 1] = (y * 255) / height;
      data[at + 2] = x % 64 < 2 ? 0 : 160;
      data[at + 3] = 255;
    }
  }
  return data;
}

before(async () => {
  // The liveness test reads in a tight loop for as long as the slow PDF takes; the default rate limit would answer 429.
  server = await startTestServer({ fixture: EDGE_VAULT, name: "edge", extra: { rateLimit: { perMinute: 1_000_000, burst: 100_000 } } });
  const dir = server.vault.dir;
  copyFileSync(path.join(fixtures, "chromium-print.pdf"), path.join(dir, "Attachments/field-notes.pdf"));
  copyFileSync(path.join(fixtures, "chromium-shot.jpg"), path.join(dir, "Attachments/shot.jpg"));
  copyFileSync(path.join(fixtures, "chromium-shot-large.jpg"), path.join(dir, "Attachments/shot-large.jpg"));
  writeFileSync(path.join(dir, "Attachments/big.png"), encodePng({ width: 3000, height: 2000, data: gradient(3000, 2000), channels: 4, depth: 8 }));
  writeFileSync(path.join(dir, "Attachments/secret.pdf"), encryptedPdf());
  writeFileSync(path.join(dir, "Attachments/broken.pdf"), damagedPdf());
  writeFileSync(path.join(dir, "Attachments/long.pdf"), simplePdf(MANY_PAGES));
  writeFileSync(path.join(dir, "Attachments/wide-page.pdf"), simplePdf(["short first page", LONG_PAGE, "third"]));
  writeFileSync(path.join(dir, "Attachments/slow.pdf"), slowPdf(24));
  client = await server.connect();
});
after(async () => {
  await server.stop();
});

const read = (args: Record<string, unknown>): Promise<ToolCallResult> => callTool(client, "attachment_read", args);

describe("attachment_read: PDF", () => {
  test("a PDF printed by Chromium: page count, title and the text of a page range", async () => {
    const all = await read({ path: "Attachments/field-notes.pdf" });
    assert.equal(all.isError, false, all.text);
    assert.equal(all.structured.format, "pdf");
    assert.equal(all.structured.page_count, 3);
    assert.equal(all.structured.title, "Field notes");
    assert.equal(typeof all.structured.content_hash, "string");
    const pages = all.structured.pages as Array<{ page: number; text: string }>;
    assert.deepEqual(
      pages.map((page) => page.page),
      [1, 2, 3],
    );
    assert.match(pages[1]!.text, /Glacier retreat measured at 14 metres/);
    assert.equal(all.structured.next_cursor, undefined);
    const range = await read({ path: "Attachments/field-notes.pdf", pages: "2-3" });
    assert.deepEqual(
      (range.structured.pages as Array<{ page: number }>).map((page) => page.page),
      [2, 3],
    );
    assert.match(errorOf(await read({ path: "Attachments/field-notes.pdf", pages: "7" })).message, /has 3 pages; page 7 does not exist/);
    assert.match(errorOf(await read({ path: "Attachments/field-notes.pdf", pages: "3-1" })).message, /pages must be a page number or a range/);
  });

  test("a long PDF continues page by page through next_cursor, every page exactly once", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let calls = 0;
    do {
      const result = await read({ path: "Attachments/long.pdf", ...(cursor ? { cursor } : {}) });
      assert.equal(result.isError, false, result.text);
      for (const page of result.structured.pages as Array<{ text: string }>) seen.push(page.text);
      cursor = result.structured.next_cursor as string | undefined;
      calls += 1;
    } while (cursor !== undefined && calls < 20);
    assert.deepEqual(seen, MANY_PAGES);
    assert.ok(calls >= 2, "more pages than one call returns");
  });

  test("a page longer than the response limit is cut and continued inside the page, losing nothing", async () => {
    let text = "";
    let cursor: string | undefined;
    let calls = 0;
    do {
      const result = await read({ path: "Attachments/wide-page.pdf", ...(cursor ? { cursor } : { pages: "2" }) });
      assert.equal(result.isError, false, result.text);
      const pages = result.structured.pages as Array<{ page: number; text: string }>;
      assert.deepEqual(
        pages.map((page) => page.page),
        [2],
      );
      text += pages[0]!.text;
      cursor = result.structured.next_cursor as string | undefined;
      calls += 1;
    } while (cursor !== undefined && calls < 20);
    assert.ok(calls >= 2, "the page does not fit one response");
    assert.equal(text, LONG_PAGE);
  });

  test("encrypted and damaged PDFs are refused with what to do; page_images says why it is not offered", async () => {
    const secret = errorOf(await read({ path: "Attachments/secret.pdf" }));
    assert.equal(secret.code, "unsupported");
    assert.match(secret.message, /encrypted PDF that needs a password/);
    const broken = errorOf(await read({ path: "Attachments/broken.pdf" }));
    assert.equal(broken.code, "unsupported");
    assert.match(broken.message, /not a readable PDF/);
    const withImages = await read({ path: "Attachments/field-notes.pdf", pages: "1", page_images: true });
    assert.match(((withImages.structured.notes as string[]) ?? []).join(" "), /page_images is not available here: drawing a PDF page needs a canvas/);
  });

  test("while a slow PDF is parsed, other calls answer within 2 s each", async () => {
    const reader = await server.connect();
    let settled = false;
    let outcome: ToolCallResult | undefined;
    void callTool(reader, "attachment_read", { path: "Attachments/slow.pdf" }).then((result) => {
      outcome = result;
      settled = true;
    });
    let answered = 0;
    while (!settled) {
      const started = Date.now();
      const note = await callTool(client, "note_read", { path: "README.md" });
      const took = Date.now() - started;
      assert.equal(note.isError, false, note.text);
      assert.ok(took < 2_000, `note_read took ${took} ms while the PDF was parsed`);
      if (!settled) answered += 1;
    }
    assert.ok(answered >= 3, `only ${answered} reads answered during the slow parse`);
    assert.ok(outcome);
    // The slow file ends either read (its text) or stopped at the time limit, never as a hang.
    if (outcome.isError) assert.equal(errorOf(outcome).code, "too_large");
    else assert.equal(outcome.structured.page_count, 1);
  });
});

describe("attachment_read: images", () => {
  async function image(pathInVault: string): Promise<{ structured: Record<string, unknown>; bytes: Buffer; mimeType: string }> {
    const result = await client.callTool({ name: "attachment_read", arguments: { path: pathInVault } });
    assert.notEqual(result.isError, true, JSON.stringify(result.content).slice(0, 500));
    const content = result.content as Array<{ type: string; data?: string; mimeType?: string }>;
    assert.equal(content[0]!.type, "text");
    const picture = content.find((part) => part.type === "image");
    assert.ok(picture?.data && picture.mimeType, "the result carries MCP image content");
    return { structured: result.structuredContent as Record<string, unknown>, bytes: Buffer.from(picture.data, "base64"), mimeType: picture.mimeType };
  }

  test("a large PNG comes back as PNG image content the SDK client decodes, scaled to the side limit", async () => {
    const { structured, bytes, mimeType } = await image("Attachments/big.png");
    assert.equal(mimeType, "image/png");
    const png = decodePng(bytes);
    assert.deepEqual([png.width, png.height], [IMAGE_MAX_SIDE, 1045]);
    assert.ok(bytes.length <= IMAGE_MAX_BYTES);
    assert.equal(structured.format, "image");
    assert.equal(structured.image_format, "png");
    assert.deepEqual([structured.width, structured.height, structured.resized], [IMAGE_MAX_SIDE, 1045, true]);
    assert.deepEqual(structured.original, { format: "png", width: 3000, height: 2000, bytes: (structured.original as { bytes: number }).bytes });
    assert.equal(JSON.stringify(structured).includes(bytes.toString("base64").slice(0, 64)), false, "no image bytes in the JSON");
  });

  test("a Chromium JPEG within the limits comes back unchanged; a large one scaled, still JPEG", async () => {
    const small = await image("Attachments/shot.jpg");
    assert.equal(small.mimeType, "image/jpeg");
    assert.deepEqual(small.bytes, readFileSync(path.join(fixtures, "chromium-shot.jpg")));
    assert.deepEqual([small.structured.width, small.structured.height, small.structured.resized], [1200, 800, false]);
    const large = await image("Attachments/shot-large.jpg");
    assert.equal(large.mimeType, "image/jpeg");
    const jpeg = decodeJpeg(large.bytes, { useTArray: true });
    assert.deepEqual([jpeg.width, jpeg.height], [IMAGE_MAX_SIDE, 1045]);
    assert.deepEqual([large.structured.width, large.structured.height], [IMAGE_MAX_SIDE, 1045]);
  });

  test("the vault's own diagram.png, cut after its signature, is refused as unreadable rather than sent", async () => {
    const refused = errorOf(await read({ path: "Attachments/diagram.png" }));
    assert.equal(refused.code, "unsupported");
    assert.match(refused.message, /"Attachments\/diagram\.png" is not a readable PNG image: it ends after 8 bytes/);
  });
});

describe("attachment_read in the built CLI", () => {
  test("dist/cli.js reads a PDF and scales an image through its bundled dist/binary-worker.js", async () => {
    const vault = tempVault(EDGE_VAULT);
    copyFileSync(path.join(fixtures, "chromium-print.pdf"), path.join(vault.dir, "Attachments/field-notes.pdf"));
    copyFileSync(path.join(fixtures, "chromium-shot-large.jpg"), path.join(vault.dir, "Attachments/shot-large.jpg"));
    const token = "sbm_binary_worker_bundle_test_token_0123456789";
    const cli = await startCli(["serve", "--vault", vault.dir, "--data", vault.dataDir, "--port", "0", "--no-history"], { SECONDBRAIN_TOKEN: token });
    const sdk = new Client({ name: "bundle-test", version: "1.0.0" });
    try {
      await sdk.connect(new StreamableHTTPClientTransport(new URL(cli.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      const pdf = await callTool(sdk, "attachment_read", { path: "Attachments/field-notes.pdf", pages: "2" });
      assert.equal(pdf.isError, false, pdf.text);
      assert.match((pdf.structured.pages as Array<{ text: string }>)[0]!.text, /Glacier retreat/);
      const picture = await sdk.callTool({ name: "attachment_read", arguments: { path: "Attachments/shot-large.jpg" } });
      const block = (picture.content as Array<{ type: string; data?: string }>).find((part) => part.type === "image");
      assert.ok(block?.data);
      const jpeg = decodeJpeg(Buffer.from(block.data, "base64"), { useTArray: true });
      assert.deepEqual([jpeg.width, jpeg.height], [IMAGE_MAX_SIDE, 1045]);
    } finally {
      await sdk.close().catch(() => undefined);
      await cli.stop();
      vault.cleanup();
    }
  });
});
