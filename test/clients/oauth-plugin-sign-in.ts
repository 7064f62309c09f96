// npm run test:clients, next to the headless sign-in: mcp-remote started without any header against
// the built plugin in the Obsidian stand-in, with OAuth turned on in its settings. mcp-remote
// discovers the plugin's server and registers; Chromium opens the authorize page, which waits;
// the test clicks Allow in Obsidian's modal as the person would; the page continues to mcp-remote's
// callback by itself, and mcp-remote lists and calls tools with the token it got.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { openModals, type Modal } from "../obsidian-stand-in/ui/modal";
import { launchChromium, startMcpRemoteOAuth, watchCallback } from "../support/oauth-browser";
import { found, within } from "../support/poll";
import { startPlugin, type PluginHarness } from "../support/plugin";
import { EDGE_VAULT } from "../support/vaults";
import { ensureClients, type InstalledClients } from "./install";

const OUT = mkdtempSync(path.join(os.tmpdir(), "sbmcp-oauth-plugin-e2e-"));

let clients: InstalledClients;
let browser: Browser;
let harness: PluginHarness;

before(async () => {
  clients = await ensureClients();
  browser = await launchChromium();
  // The harness's user "tester" is the only user, so sign-ins act as it; its token is never handed to mcp-remote.
  harness = await startPlugin({ fixture: EDGE_VAULT, settings: { oauth: { enabled: true } } });
});

after(async () => {
  await browser?.close();
  await harness?.stop();
  rmSync(OUT, { recursive: true, force: true });
});

test("mcp-remote without a header registers with the plugin, Chromium waits on the approval page, Allow in Obsidian's modal lets it through, and tools are listed and called", async () => {
  const modals = new Set(openModals);
  const bridge = await startMcpRemoteOAuth({ proxyJs: clients.mcpRemote, mcpUrl: harness.url, work: path.join(OUT, "allowed") });
  const page = await browser.newPage();
  try {
    assert.equal(bridge.authorizeUrl.origin, new URL(harness.url).origin, "the authorize URL is the plugin's");
    assert.equal(bridge.authorizeUrl.searchParams.get("code_challenge_method"), "S256");
    const reached = watchCallback(page, bridge.callbackUrl);
    await page.goto(bridge.authorizeUrl.toString());
    assert.match((await page.textContent("h1")) ?? "", /Approve in Obsidian/);

    const modal: Modal = await found(10_000, "Obsidian shows the approval modal", () =>
      Promise.resolve(openModals.find((open) => !modals.has(open) && open.contentEl.classList.contains("secondbrain-approval"))),
    );
    const text = modal.contentEl.textContent ?? "";
    assert.match(text, /^MCP CLI Proxy asks to connect/, `the modal names the client as mcp-remote registered it: ${text}`);
    assert.match(text, /chose this name itself/);
    assert.match(text, /act as tester/);
    assert.match(text, /Vaults: default/);
    modal.contentEl.querySelector<HTMLButtonElement>("button.secondbrain-approval-allow")!.click();

    await within(15_000, "the page continues to mcp-remote's callback", () => reached.length > 0);
    assert.ok(new URL(reached[0]!).searchParams.get("code"), "the callback got a code");
    await bridge.connected;
    const tools = (await bridge.client.listTools()).tools.map((tool) => tool.name);
    assert.ok(tools.includes("note_read") && tools.includes("note_search"), `tools listed: ${tools.join(", ")}`);
    const read = await bridge.client.callTool({ name: "note_read", arguments: { path: "README.md" } });
    const body = (read.content as Array<{ text?: string }>).map((part) => part.text ?? "").join("\n");
    assert.equal(read.isError ?? false, false, body);
    assert.match(body, /# Edge vault/);
    assert.deepEqual(
      harness.plugin.signedInClients().map((entry) => entry.user),
      ["tester"],
      "the settings tab would list one signed-in client, as tester",
    );
  } finally {
    await page.close();
    await bridge.close();
  }
});
