// The plugin's approval page in a real browser (Debian's Chromium through playwright-core), with the
// built plugin in the stand-in: the page's nonce script polls under its CSP, and once Obsidian's
// modal is answered the browser lands on the client's callback, with access_denied after Deny; with
// no answer in time the page says the sign-in timed out and the callback is never reached.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { openModals, type Modal } from "../obsidian-stand-in/ui/modal";
import { launchChromium } from "../support/oauth-browser";
import { found, within } from "../support/poll";
import { startPlugin } from "../support/plugin";
import { EDGE_VAULT } from "../support/vaults";

let browser: Browser;
let callback: Server;
let callbackUrl = "";
const reached: URL[] = [];

before(async () => {
  browser = await launchChromium();
  // The client's side: a loopback redirect URI that records what the browser brings it.
  callback = createServer((req, res) => {
    reached.push(new URL(req.url ?? "/", callbackUrl));
    res.writeHead(200, { "Content-Type": "text/plain" });
    res.end("callback reached");
  });
  await new Promise<void>((resolve) => callback.listen(0, "127.0.0.1", resolve));
  callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => callback?.close(resolve));
});

async function authorizeUrl(origin: string, name: string, state: string): Promise<string> {
  const registered = await fetch(`${origin}/register`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ redirect_uris: [callbackUrl], client_name: name }) });
  const { client_id } = (await registered.json()) as { client_id: string };
  const challenge = createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url");
  const params = { response_type: "code", client_id, redirect_uri: callbackUrl, code_challenge: challenge, code_challenge_method: "S256", state };
  return `${origin}/authorize?${new URLSearchParams(params).toString()}`;
}

function approvalModal(before: ReadonlySet<Modal>): Promise<Modal> {
  return found(10_000, "Obsidian shows the approval modal", () => Promise.resolve(openModals.find((open) => !before.has(open) && open.contentEl.classList.contains("secondbrain-approval"))));
}

test("Deny in Obsidian: the waiting page continues by itself to the client's callback with access_denied", async () => {
  const harness = await startPlugin({ fixture: EDGE_VAULT, settings: { oauth: { enabled: true } } });
  const page = await browser.newPage();
  const blocked: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused/.test(message.text())) blocked.push(message.text());
  });
  try {
    const modals = new Set(openModals);
    await page.goto(await authorizeUrl(new URL(harness.url).origin, "Browser Deny", "deny-state"));
    assert.match((await page.textContent("h1")) ?? "", /Approve in Obsidian/);
    const modal = await approvalModal(modals);
    assert.match(modal.contentEl.textContent ?? "", /Browser Deny/);
    modal.contentEl.querySelector<HTMLButtonElement>("button.secondbrain-approval-deny")!.click();
    await within(10_000, "the browser reaches the callback", () => reached.some((url) => url.searchParams.get("state") === "deny-state"));
    const landed = reached.find((url) => url.searchParams.get("state") === "deny-state")!;
    assert.equal(landed.searchParams.get("error"), "access_denied");
    assert.equal(landed.searchParams.get("code"), null);
    assert.match((await page.textContent("body")) ?? "", /callback reached/);
    assert.deepEqual(blocked, [], "the CSP blocked nothing the page needs");
  } finally {
    await page.close();
    await harness.stop();
  }
});

test("no decision in time: the modal goes away and the page says the sign-in timed out and to start again in the client", async () => {
  const harness = await startPlugin({ fixture: EDGE_VAULT, settings: { oauth: { enabled: true, approvalSeconds: 1 } } });
  const page = await browser.newPage();
  try {
    const modals = new Set(openModals);
    const before = reached.length;
    await page.goto(await authorizeUrl(new URL(harness.url).origin, "Browser Slow", "slow-state"));
    const modal = await approvalModal(modals);
    await within(10_000, "the page says it timed out", async () => /timed out/.test((await page.textContent("body").catch(() => "")) ?? ""));
    assert.match((await page.textContent("body")) ?? "", /Start the connection again in the application/);
    assert.ok(!openModals.includes(modal), "the modal closed when the time was up");
    assert.equal(reached.length, before, "the callback was never reached");
  } finally {
    await page.close();
    await harness.stop();
  }
});
