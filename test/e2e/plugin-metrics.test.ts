// The Prometheus endpoint on the plugin's own server, turned on and keyed in the settings tab as a
// user would, scraped over HTTP and read with a real text-format parser.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { hashToken } from "../../src/auth/tokens";
import { ROUTE_CLASSES, STATUS_CODES, TOOL_OUTCOMES, UNKNOWN_TOOL } from "../../src/core/metrics";
import { closeSettingTab, openSettingTab } from "../obsidian-stand-in/ui/setting-tab";
import { REPO_ROOT, startPlugin } from "../support/plugin";
import { within } from "../support/poll";
import { EDGE_VAULT } from "../support/vaults";

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

async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const response = await fetch(url, { headers });
  return { status: response.status, text: await response.text() };
}

test("the plugin's /metrics is off by default; turned on with a generated key it refuses scrapes without the key and counts a tool call made before", async () => {
  const harness = await startPlugin({ fixture: EDGE_VAULT });
  try {
    const metricsUrl = `${new URL(harness.url).origin}/metrics`;
    assert.equal((await get(metricsUrl)).status, 404, "off by default");

    const tab = harness.app.setting.tabs[0] as Parameters<typeof openSettingTab>[0];
    const container = openSettingTab(tab);
    settingNamed(container, "Prometheus endpoint").querySelector<HTMLElement>(".checkbox-container")!.click();
    await within(5_000, "the endpoint opens once switched on", async () => (await get(metricsUrl)).status === 200);
    button(settingNamed(container, "Metrics key"), "Generate key").click();
    await within(5_000, "the new key is shown", () => (container.querySelector(".secondbrain-metrics-key")?.textContent ?? "") !== "");
    const key = container.querySelector(".secondbrain-metrics-key")?.textContent ?? "";
    assert.match(key, /^sbm_/, "the new key is shown");
    assert.ok(Array.from(container.querySelectorAll("button")).some((el) => el.textContent === "Copy key"));

    const dataFile = path.join(harness.vault.dir, harness.pluginDir, "data.json");
    await within(5_000, "the key's hash is saved", () => readFileSync(dataFile, "utf8").includes(hashToken(key)));
    const saved = readFileSync(dataFile, "utf8");
    assert.ok(!saved.includes(key), "data.json never holds the plaintext key");
    assert.deepEqual((JSON.parse(saved) as { metrics: unknown }).metrics, { enabled: true, keyHash: hashToken(key) });
    closeSettingTab(tab);
    assert.equal(openSettingTab(tab).querySelector(".secondbrain-metrics-key"), null, "shown once");
    closeSettingTab(tab);

    const read = await harness.call("note_read", { path: "wiki/index.md" });
    assert.equal(read.isError, false, read.text);
    await harness.call("note_read", { path: "secret-folder/missing-note-xyz.md" });

    assert.equal((await get(metricsUrl)).status, 401, "no key");
    assert.equal((await get(metricsUrl, { Authorization: "Bearer sbm_wrong-key-of-enough-length" })).status, 401, "a wrong key");
    const scraped = await get(metricsUrl, { Authorization: `Bearer ${key}` });
    assert.equal(scraped.status, 200);
    const families = new Map(parsePrometheusTextFormat(scraped.text).map((family) => [family.name, family]));
    const sample = (name: string, labels: Record<string, string>): number | undefined => {
      const found = families.get(name)?.metrics.find((entry) => Object.entries(labels).every(([label, wanted]) => entry.labels?.[label] === wanted));
      return found?.value === undefined ? undefined : Number(found.value);
    };
    assert.equal(sample("secondbrain_tool_calls_total", { tool: "note_read", outcome: "ok" }), 1);
    assert.equal(sample("secondbrain_tool_calls_total", { tool: "note_read", outcome: "not_found" }), 1);
    assert.ok((sample("secondbrain_http_requests_total", { route: "mcp", code: "200" }) ?? 0) >= 1);
    assert.equal(sample("secondbrain_http_requests_total", { route: "metrics", code: "401" }), 2);
    assert.equal(sample("secondbrain_vault_up", { vault: "0" }), 1);
    assert.ok((sample("secondbrain_vault_notes", { vault: "0" }) ?? 0) > 0, "per-vault gauges from the index");
    assert.equal(sample("secondbrain_oauth_tokens_active", {}), 0);

    // Labels only from fixed sets: the vault's position, never a note, path or user.
    const allowed: Record<string, ReadonlySet<string>> = {
      tool: new Set([...(await (await harness.connect()).listTools()).tools.map((tool) => tool.name), UNKNOWN_TOOL]),
      outcome: new Set(TOOL_OUTCOMES),
      route: new Set(ROUTE_CLASSES),
      code: new Set([...STATUS_CODES.map(String), "1xx", "2xx", "3xx", "4xx", "5xx", "other"]),
      vault: new Set(["0"]),
      version: new Set([(JSON.parse(readFileSync(path.join(REPO_ROOT, "manifest.json"), "utf8")) as { version: string }).version]),
    };
    for (const family of families.values()) {
      for (const entry of family.metrics) {
        for (const [name, labelValue] of Object.entries(entry.labels ?? {})) {
          assert.ok(allowed[name]?.has(labelValue), `${family.name}{${name}="${labelValue}"} comes from a fixed set`);
        }
      }
    }
    for (const secret of ["secret", "xyz", "wiki", "tester", "default"]) assert.ok(!scraped.text.includes(secret), `the scrape does not contain "${secret}"`);

    // Turned off again: 404 at once, no restart.
    const again = openSettingTab(tab);
    settingNamed(again, "Prometheus endpoint").querySelector<HTMLElement>(".checkbox-container")!.click();
    await within(5_000, "the endpoint closes once switched off", async () => (await get(metricsUrl, { Authorization: `Bearer ${key}` })).status === 404);
    closeSettingTab(tab);
  } finally {
    await harness.stop();
  }
});
