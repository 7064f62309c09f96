// The settings tab rendered in the stand-in's DOM and driven like a user would: add a user, take the
// token shown once, connect with it, revoke it; settings survive a reload, and data.json holds only
// token hashes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { hashToken } from "../../src/auth/tokens";
import { openSettingTab, closeSettingTab } from "../obsidian-stand-in/ui/setting-tab";
import { EDGE_VAULT, tempVault } from "../support/vaults";
import { startPlugin } from "../support/plugin";

function settingNamed(container: HTMLElement, name: string): HTMLElement {
  const item = Array.from(container.querySelectorAll<HTMLElement>(".setting-item")).find((el) => el.querySelector(".setting-item-name")?.textContent === name);
  assert.ok(item, `setting "${name}" is rendered`);
  return item;
}

function button(item: HTMLElement, text: string): HTMLButtonElement {
  const found = Array.from(item.querySelectorAll<HTMLButtonElement>("button")).find((el) => el.textContent === text);
  assert.ok(found, `button "${text}"`);
  return found;
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 20));
}

async function status(url: string, token: string): Promise<number> {
  const response = await fetch(url, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
  await response.text();
  return response.status;
}

test("add a user, use its token once shown, revoke it; settings survive a reload without plaintext tokens", async () => {
  const vault = tempVault(EDGE_VAULT);
  try {
    const harness = await startPlugin({ fixture: EDGE_VAULT, vault, noUser: true });
    const tab = harness.app.setting.tabs[0] as Parameters<typeof openSettingTab>[0];
    const container = openSettingTab(tab);
    assert.match(container.textContent ?? "", /No users yet/);

    const addUser = settingNamed(container, "Add user");
    const input = addUser.querySelector<HTMLInputElement>("input[type=text]")!;
    input.value = "claude";
    input.dispatchEvent(new window.Event("input"));
    button(addUser, "Add").click();
    await settle();

    const shown = container.querySelector(".secondbrain-token-value");
    assert.ok(shown, "the new token is shown");
    const token = shown.textContent ?? "";
    assert.match(token, /^sbm_/);

    const client = new Client({ name: "settings-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(harness.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    const listed = await client.listTools();
    assert.ok(listed.tools.some((tool) => tool.name === "note_read"));
    await client.close();

    const dataPath = path.join(vault.dir, harness.pluginDir, "data.json");
    const saved = readFileSync(dataPath, "utf8");
    assert.ok(!saved.includes(token), "data.json never holds the plaintext token");
    assert.ok(saved.includes(hashToken(token)), "data.json holds its hash");

    // Leaving the tab forgets the plaintext: it is not shown again.
    closeSettingTab(tab);
    const reopened = openSettingTab(tab);
    assert.equal(reopened.querySelector(".secondbrain-token-value"), null);

    const userRow = reopened.querySelector<HTMLElement>('.setting-item[data-user="claude"]');
    assert.ok(userRow);
    button(userRow, "Revoke tokens").click();
    await settle();
    assert.equal(await status(harness.url, token), 401, "a revoked token gets 401");
    closeSettingTab(tab);

    // Reload: the saved settings come back through loadData.
    await harness.unload();
    await settle();
    const reloaded = await startPlugin({ fixture: EDGE_VAULT, vault, keepData: true });
    try {
      const again = openSettingTab(reloaded.app.setting.tabs[0] as Parameters<typeof openSettingTab>[0]);
      const row = again.querySelector<HTMLElement>('.setting-item[data-user="claude"]');
      assert.ok(row, "the user survived the reload");
      assert.match(row.textContent ?? "", /0 tokens/);
      assert.equal(await status(reloaded.url, token), 401);
      const data = JSON.parse(readFileSync(dataPath, "utf8")) as { users: Array<{ name: string; token_hashes: string[] }> };
      assert.deepEqual(data.users.map((user) => [user.name, user.token_hashes.length]), [["claude", 0]]);
    } finally {
      await reloaded.stop();
    }
  } finally {
    vault.cleanup();
  }
});
