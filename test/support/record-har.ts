// Regenerates test/fixtures/formats/chromium.har: headless Chromium loads a small page from a local
// server (the page fetches a JSON API, a CSV and a missing file) while Playwright records the HAR.
// Run: node --import tsx test/support/record-har.ts
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { chromium } from "playwright-core";

const OUT = path.resolve(__dirname, "../fixtures/formats/chromium.har");

const PAGE = `<!doctype html><html><head><title>Sync status</title></head><body><h1>Sync status</h1>
<pre id="out"></pre><script>
Promise.all([fetch("/api/status?vault=edge").then((r) => r.json()), fetch("/export.csv").then((r) => r.text()), fetch("/missing.png")])
  .then(([status, csv, missing]) => { document.getElementById("out").textContent = JSON.stringify(status) + csv + missing.status; document.title = "done"; });
</script></body></html>`;

async function main(): Promise<void> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    if (url.pathname === "/") response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
    else if (url.pathname === "/api/status") response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ vault: url.searchParams.get("vault"), notes: 19, synced: true, pending: ["inbox/a.md", "inbox/b.md"] }));
    else if (url.pathname === "/export.csv") response.writeHead(200, { "content-type": "text/csv" }).end('name,notes\n"Edge, vault",19\n');
    else response.writeHead(404, { "content-type": "text/plain" }).end("not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  try {
    const context = await browser.newContext({ recordHar: { path: OUT, content: "embed" } });
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForFunction(() => document.title === "done");
    await context.close(); // writes the HAR
  } finally {
    await browser.close();
    server.close();
  }
  console.log(`wrote ${OUT}`);
}

void main();
