// Screenshots of static HTML in headless Chromium (Debian's package) through playwright-core.
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";

const CHROMIUM_CANDIDATES = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"];

export function findChromium(): string {
  const found = CHROMIUM_CANDIDATES.find((candidate): candidate is string => candidate !== undefined && existsSync(candidate));
  if (!found) throw new Error("No Chromium found: install Debian's package (apt-get install chromium) or set CHROMIUM_PATH.");
  return found;
}

export interface ScreenshotOptions {
  width: number;
  fullPage: boolean;
}

export async function screenshotHtml(html: string, out: string, options: ScreenshotOptions): Promise<void> {
  const browser = await chromium.launch({ executablePath: findChromium(), args: ["--no-sandbox"] });
  try {
    const page = await browser.newPage({ viewport: { width: options.width, height: 800 }, deviceScaleFactor: 1 });
    await page.setContent(html, { waitUntil: "load" });
    mkdirSync(path.dirname(out), { recursive: true });
    await page.screenshot({ path: out, fullPage: options.fullPage });
  } finally {
    await browser.close();
  }
}
