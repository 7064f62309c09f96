// Renders the plugin's settings tab (the built main.js in the stand-in, with styles.css) in headless
// Chromium and writes docs/settings-tab.png for the README. Run with `npm run screenshot`.
import { readFileSync } from "node:fs";
import path from "node:path";
import { EDGE_VAULT } from "../support/vaults";
import { REPO_ROOT, startPlugin } from "../support/plugin";
import { openSettingTab } from "../obsidian-stand-in/ui/setting-tab";
import { freezeFormState, renderStaticPage } from "../obsidian-stand-in/ui/render";
import { screenshotHtml } from "../obsidian-stand-in/ui/screenshot";

async function main(): Promise<void> {
  const harness = await startPlugin({ fixture: EDGE_VAULT, port: 27126, settings: { vaults: [{ name: "work", folder: "projects" }] } });
  try {
    const container = openSettingTab(harness.app.setting.tabs[0] as Parameters<typeof openSettingTab>[0]);
    // A user added the way a person does it, so the picture shows the one-time token box.
    const addUser = Array.from(container.querySelectorAll<HTMLElement>(".setting-item")).find((el) => el.querySelector(".setting-item-name")?.textContent === "Add user");
    if (!addUser) throw new Error('no "Add user" row in the settings tab');
    const input = addUser.querySelector<HTMLInputElement>("input[type=text]")!;
    input.value = "claude-code";
    input.dispatchEvent(new window.Event("input"));
    Array.from(addUser.querySelectorAll("button")).find((el) => el.textContent === "Add")!.click();
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The picture must not carry a working token, even of a throwaway vault.
    for (const shown of Array.from(container.querySelectorAll(".secondbrain-token-value"))) shown.textContent = "sbm_••••••••••••••••••••••••••••••••••••••••";
    const modal = container.closest(".modal")!;
    freezeFormState(modal);
    const html = renderStaticPage({ bodyHtml: modal.outerHTML, css: [readFileSync(path.join(REPO_ROOT, "styles.css"), "utf8")], theme: "dark" });
    const out = path.join(REPO_ROOT, "docs", "settings-tab.png");
    await screenshotHtml(html, out, { width: 940, fullPage: true });
    console.log(`wrote ${path.relative(REPO_ROOT, out)}`);
  } finally {
    await harness.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
