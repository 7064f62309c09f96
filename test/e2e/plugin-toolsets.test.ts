// Toolsets in the plugin: chosen per user in the settings tab (rendered in the stand-in's DOM and
// typed into like a user would), saved in data.json, and applied to the next tools/list and call.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { openSettingTab, closeSettingTab } from "../obsidian-stand-in/ui/setting-tab";
import { startPlugin } from "../support/plugin";
import { callTool } from "../support/server";
import { EDGE_VAULT } from "../support/vaults";

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 20));
}

test("the settings tab sets a user's toolsets; tools/list and calls follow at once, and the host toolset holds the plugin's own tools", async () => {
  const harness = await startPlugin({ fixture: EDGE_VAULT });
  try {
    const before = (await (await harness.connect()).listTools()).tools.map((tool) => tool.name);
    assert.ok(before.includes("active_note") && before.includes("note_create"), "every toolset by default");

    const tab = harness.app.setting.tabs[0] as Parameters<typeof openSettingTab>[0];
    const container = openSettingTab(tab);
    const row = Array.from(container.querySelectorAll<HTMLElement>(".setting-item")).find(
      (el) => el.querySelector(".setting-item-name")?.textContent === "Toolsets",
    );
    assert.ok(row, "a Toolsets setting under the user");
    const input = row.querySelector<HTMLInputElement>("input[type=text]")!;
    assert.equal(input.value, "", "empty: every toolset");
    input.value = "host, find, bogus";
    input.dispatchEvent(new window.Event("change"));
    await settle();

    const saved = JSON.parse(readFileSync(path.join(harness.vault.dir, harness.pluginDir, "data.json"), "utf8")) as { users: Array<{ name: string; toolsets?: string[] }> };
    assert.deepEqual(saved.users.find((user) => user.name === "tester")?.toolsets, ["find", "host"]);
    const described = container.querySelector<HTMLElement>('.setting-item[data-user="tester"]')?.textContent ?? "";
    assert.match(described, /toolsets: find, host/);

    const client = await harness.connect();
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(names.includes("active_note") && names.includes("open_note") && names.includes("note_search"));
    assert.ok(!names.includes("note_create") && !names.includes("note_history") && !names.includes("note_move"));
    const refused = await callTool(client, "note_history", { path: "wiki/index.md" });
    assert.equal((refused.structured.error as { code: string }).code, "forbidden");
    assert.match(refused.text, /"history" toolset/);

    // Emptying the field gives every toolset back.
    const again = openSettingTab(tab);
    const field = Array.from(again.querySelectorAll<HTMLElement>(".setting-item"))
      .find((el) => el.querySelector(".setting-item-name")?.textContent === "Toolsets")!
      .querySelector<HTMLInputElement>("input[type=text]")!;
    assert.equal(field.value, "find, host");
    field.value = "";
    field.dispatchEvent(new window.Event("change"));
    await settle();
    closeSettingTab(tab);
    const all = (await (await harness.connect()).listTools()).tools.map((tool) => tool.name);
    assert.deepEqual(all.sort(), [...before].sort());
  } finally {
    await harness.stop();
  }
});
