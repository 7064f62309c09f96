// npm run test:clients, next to the matrix: Claude Desktop's bridge, mcp-remote, started without any
// header against the built headless server with OAuth on, and a real browser (Debian's Chromium driven by
// playwright-core) signing in on the server's login page. mcp-remote discovers the server, registers
// itself, prints the authorize URL; Chromium fills in the form and follows the redirect to mcp-remote's
// callback; mcp-remote exchanges the code and relays tools. It lives here rather than in `npm test`
// because mcp-remote comes from the pinned client cache (install.ts), which only this run installs.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import bcrypt from "bcryptjs";
import type { Browser } from "playwright-core";
import { startCli, type CliServer } from "../support/cli";
import { launchChromium, startMcpRemoteOAuth, submitLogin, watchCallback, type OAuthRemote } from "../support/oauth-browser";
import { EDGE_VAULT, tempVault, type TempVault } from "../support/vaults";
import { ensureClients, type InstalledClients } from "./install";

const USER = "alice";
const PASSWORD = randomBytes(18).toString("base64url");
const OUT = mkdtempSync(path.join(os.tmpdir(), "sbmcp-oauth-e2e-"));
// CLIENTS (as in matrix.ts) naming a subset without mcp-remote skips this file.
const skip = process.env.CLIENTS !== undefined && !process.env.CLIENTS.split(",").some((name) => name.trim() === "mcp-remote");

let clients: InstalledClients;
let browser: Browser;
let vault: TempVault;
let cli: CliServer;

before(async () => {
  if (skip) return;
  clients = await ensureClients();
  browser = await launchChromium();
  vault = tempVault(EDGE_VAULT);
  // No token anywhere: the only way in is signing in as alice, whose password the config holds as a bcrypt hash.
  const config = path.join(OUT, "config.yml");
  writeFileSync(config, `users:\n  - name: ${USER}\n    password: "${bcrypt.hashSync(PASSWORD, 4)}"\noauth:\n  enabled: true\n`, { mode: 0o600 });
  cli = await startCli(["serve", "--vault", `notes=${vault.dir}`, "--data", vault.dataDir, "--port", "0", "--no-history", "--config", config]);
});

after(async () => {
  await browser?.close();
  await cli?.stop();
  vault?.cleanup();
  rmSync(OUT, { recursive: true, force: true });
});

async function remote(name: string): Promise<OAuthRemote> {
  return startMcpRemoteOAuth({ proxyJs: clients.mcpRemote, mcpUrl: cli.url, work: path.join(OUT, name) });
}

test("mcp-remote without a header registers, Chromium signs in on the login page, and tools are listed and called through mcp-remote", { skip }, async () => {
  const bridge = await remote("signed-in");
  const page = await browser.newPage();
  try {
    assert.equal(bridge.authorizeUrl.origin, new URL(cli.url).origin, "the authorize URL is this server's");
    assert.ok(bridge.authorizeUrl.searchParams.get("client_id"), "mcp-remote registered itself and names its client");
    assert.equal(bridge.authorizeUrl.searchParams.get("code_challenge_method"), "S256");
    const reached = watchCallback(page, bridge.callbackUrl);
    await page.goto(bridge.authorizeUrl.toString());
    assert.match(await page.textContent("body") ?? "", /asks to use your vaults as you/);
    await submitLogin(page, USER, PASSWORD);
    // The browser followed the redirect (form-action carried mcp-remote's origin) to the callback.
    assert.equal(reached.length, 1, `one request to the callback: ${reached.join(", ")}`);
    assert.ok(new URL(reached[0]!).searchParams.get("code"), "the callback got a code");
    assert.match(await page.textContent("body") ?? "", /Authorization successful/);

    await bridge.connected;
    const tools = (await bridge.client.listTools()).tools.map((tool) => tool.name);
    assert.ok(tools.includes("note_read") && tools.includes("note_search"), `tools listed: ${tools.join(", ")}`);
    const read = await bridge.client.callTool({ name: "note_read", arguments: { path: "README.md" } });
    const text = (read.content as Array<{ text?: string }>).map((part) => part.text ?? "").join("\n");
    assert.equal(read.isError ?? false, false, text);
    assert.match(text, /# Edge vault/);
    const issued = await cli.waitForLog((line) => line.event === "token_issued");
    assert.equal(issued.user, USER);
    // The password went through the browser only: no log line and nothing mcp-remote printed has it.
    assert.ok(!cli.rawLogs.join("\n").includes(PASSWORD), "no log line holds the password");
    assert.ok(!bridge.stderr().includes(PASSWORD));
  } finally {
    await page.close();
    await bridge.close();
  }
});

test("a wrong password shows 'Invalid username or password.' in the browser and no code reaches mcp-remote's callback", { skip }, async () => {
  const bridge = await remote("wrong-password");
  const page = await browser.newPage();
  try {
    const reached = watchCallback(page, bridge.callbackUrl);
    await page.goto(bridge.authorizeUrl.toString());
    await submitLogin(page, USER, `${PASSWORD}-wrong`);
    assert.equal(await page.getByRole("alert").textContent(), "Invalid username or password.");
    assert.equal(new URL(page.url()).origin, bridge.authorizeUrl.origin, "the browser stayed on the login page");
    // An unknown user gets the very same answer.
    await submitLogin(page, "mallory", PASSWORD);
    assert.equal(await page.getByRole("alert").textContent(), "Invalid username or password.");
    assert.deepEqual(reached, [], "the callback was never requested");
    assert.doesNotMatch(bridge.stderr(), /Auth code received/);
  } finally {
    await page.close();
    await bridge.close();
  }
});
