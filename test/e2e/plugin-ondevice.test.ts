// The built main.js in the Obsidian stand-in with the on-device provider: the settings tab offers it
// with a model picker and a Download button showing the size; nothing is fetched before the click;
// the click fetches the runtime (npm's own tarballs from a registry stand-in, checked against the
// lockfile) and the tiny model (from a hub stand-in, checked against its pins) into the plugin folder,
// shows progress and the checksums, and the plugin then loads transformers.js from there by absolute
// path, embeds the vault and answers a semantic note_search.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { closeSettingTab, openSettingTab } from "../obsidian-stand-in/ui/setting-tab";
import { REPO_ROOT, startPlugin } from "../support/plugin";
import { within } from "../support/poll";
import { manifestOf, runtimeTarballs, startFileServer, startModelHub, TINY_DIMS, TINY_REVISION, tinyModelFiles } from "../support/tiny-model";
import { tempVault, type TempVault } from "../support/vaults";
import { callTool } from "../support/server";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { RUNTIME_PACKAGES, runtimeSize, tarballUrl } from "../../src/core/search/semantic/on-device-runtime";
import { formatBytes } from "../../src/core/search/semantic/on-device-models";
import type { SemanticStatus as Semantic } from "../../src/core/search/semantic/semantic-index";

const REPO = "test/tiny-bert";

/** Three notes in the tiny model's words. */
function tinyVault(): TempVault {
  const source = mkdtempSync(path.join(os.tmpdir(), "sb-ondevice-src-"));
  writeFileSync(path.join(source, "pets.md"), "# Pets\n\nthe cat sat on the mat\n");
  writeFileSync(path.join(source, "roads.md"), "# Roads\n\ncar road car road\n");
  writeFileSync(path.join(source, "dogs.md"), "# Dogs\n\nthe dog sat\n");
  const vault = tempVault(source);
  rmSync(source, { recursive: true, force: true });
  return vault;
}

function settingNamed(container: HTMLElement, name: string): HTMLElement {
  const item = Array.from(container.querySelectorAll<HTMLElement>(".setting-item")).find((el) => el.querySelector(".setting-item-name")?.textContent === name);
  assert.ok(item, `setting "${name}" is rendered`);
  return item;
}

test("the settings tab downloads the on-device runtime and model on the button, and the built plugin then embeds and searches by meaning", async (t) => {
  const main = readFileSync(path.join(REPO_ROOT, "main.js"), "utf8");
  assert.ok(!main.includes("FeatureExtractionPipeline") && !main.includes("onnxruntime_binding"), "transformers.js and ONNX Runtime are not in main.js");

  const files = tinyModelFiles();
  const hub = await startModelHub(REPO, files);
  const registry = await startFileServer(runtimeTarballs());
  const vault = tinyVault();
  const tiny = { id: "tiny", repo: REPO, revision: TINY_REVISION, dims: TINY_DIMS, queryPrefix: "", passagePrefix: "", multilingual: false, files: manifestOf(files) };
  const harness = await startPlugin({
    fixture: "",
    vault,
    settings: {
      history: { enabled: false },
      embeddings: { enabled: true, kind: "endpoint", url: "http://127.0.0.1:9/v1", onDeviceModel: "tiny", pinnedModels: [tiny], modelSource: hub.url, runtimeSource: registry.url },
    },
  });
  t.after(async () => {
    await harness.stop();
    await hub.close();
    await registry.close();
    vault.cleanup();
  });
  const semanticOf = async (): Promise<Semantic> => {
    const listed = await harness.call("vault_list");
    return (listed.structured.vaults as Array<{ semantic: Semantic }>)[0]!.semantic;
  };

  const tab = harness.app.setting.tabs[0] as Parameters<typeof openSettingTab>[0];
  let container = openSettingTab(tab);
  const provider = settingNamed(container, "Embedding provider").querySelector<HTMLSelectElement>("select")!;
  assert.deepEqual(Array.from(provider.options).map((option) => option.textContent), ["Endpoint", "On-device"]);
  provider.value = "on-device";
  provider.dispatchEvent(new window.Event("change"));
  await within(10_000, "the tab shows the on-device settings", () => container.querySelector(".secondbrain-download-info")?.textContent?.startsWith("Fetches") === true);
  container = tab.containerEl;

  const picker = settingNamed(container, "On-device model").querySelector<HTMLSelectElement>("select")!;
  assert.equal(picker.value, "tiny");
  assert.deepEqual(
    Array.from(picker.options).map((option) => option.value),
    ["multilingual-e5-small", "all-MiniLM-L6-v2", "tiny"],
  );
  assert.match(picker.options[0]!.textContent ?? "", /^multilingual-e5-small \(multilingual, 135\.4 MB\)$/);
  const total = runtimeSize() + [...files.values()].reduce((sum, bytes) => sum + bytes.length, 0);
  const download = settingNamed(container, "Download model");
  const info = download.querySelector(".secondbrain-download-info")!.textContent ?? "";
  assert.match(info, new RegExp(`^Fetches ${formatBytes(total).replace(".", "\\.")} into the plugin folder: the runtime \\(Transformers\\.js and ONNX Runtime\\) from 127\\.0\\.0\\.1:\\d+, and tiny's files \\([\\d.]+ kB\\) from 127\\.0\\.0\\.1:\\d+\\. .*Nothing is fetched before you press Download\\.$`));
  const button = download.querySelector<HTMLButtonElement>("button")!;
  assert.equal(button.textContent, `Download (${formatBytes(total)})`);

  let before: Semantic | undefined;
  await within(20_000, "vault_list says the model is to be downloaded", async () => (before = await semanticOf()).state === "failed", 100);
  assert.match(before!.error!, /the on-device model "tiny" is not downloaded; open Settings → Second Brain MCP → Semantic search and press Download/);
  const lexical = await harness.call("note_search", { query: "cat" });
  assert.equal(lexical.structured.mode, "lexical");
  assert.equal((lexical.structured.hits as Array<{ path: string }>)[0]?.path, "pets.md");
  assert.equal(hub.requests.length + registry.requests.length, 0, "nothing is fetched before the click");

  const status = download.querySelector(".secondbrain-download-status")!;
  const seen = new Set<string>();
  button.click();
  await within(120_000, "the download ends", () => {
    seen.add(status.textContent ?? "");
    return /^Checksums verified|^Download refused/.test(status.textContent ?? "");
  }, 5);
  assert.match(status.textContent ?? "", /^Checksums verified: sha512 ok {2}@huggingface\/transformers@4\.3\.2; sha512 ok {2}onnxruntime-common@1\.30\.0; sha512 ok {2}onnxruntime-node@1\.30\.0; sha256 ok {2}config\.json; sha256 ok {2}tokenizer\.json; sha256 ok {2}tokenizer_config\.json; sha256 ok {2}onnx\/model_quantized\.onnx\.$/);
  assert.ok([...seen].some((text) => /^[\d.]+ (kB|MB) of [\d.]+ MB \(\d+%\): onnxruntime-node@1\.30\.0$/.test(text)), `progress was shown: ${[...seen].join(" | ")}`);
  assert.equal(hub.requests.length, files.size);
  assert.equal(registry.requests.length, 3);
  const pluginFolder = path.join(vault.dir, harness.pluginDir);
  assert.ok(existsSync(path.join(pluginFolder, "runtime", "node_modules", "@huggingface", "transformers", "package.json")));
  assert.ok(existsSync(path.join(pluginFolder, "models", "test", "tiny-bert", "onnx", "model_quantized.onnx")));
  await within(5_000, "the button says the model is there", () => button.textContent === "Downloaded");
  closeSettingTab(tab);

  // The download's end reopens the vaults with the new provider, and the server with them: a new session.
  let client: Client | null = null;
  let after: Semantic | undefined;
  await within(
    60_000,
    "the plugin embeds the vault on the device",
    async () => {
      try {
        client ??= await harness.connect();
        const listed = await callTool(client, "vault_list");
        after = (listed.structured.vaults as Array<{ semantic: Semantic }>)[0]!.semantic;
      } catch {
        client = null;
        return false;
      }
      return after.state === "ready" && after.done === 3;
    },
    250,
  ).catch((error: Error) => assert.fail(`${error.message}: ${JSON.stringify(after)}`));
  assert.equal(after!.model, "tiny");
  const semantic = await callTool(client!, "note_search", { query: "cat mat", mode: "semantic" });
  assert.equal(semantic.isError, false, semantic.text);
  assert.equal(semantic.structured.mode, "semantic");
  assert.equal((semantic.structured.hits as Array<{ path: string }>)[0]?.path, "pets.md");
  assert.equal(hub.requests.length + registry.requests.length, files.size + 3, "embedding and searching fetched nothing more");
});

test("a runtime tarball that differs from the lockfile is refused in the settings tab, the reason shown and nothing kept", async (t) => {
  const files = tinyModelFiles();
  const hub = await startModelHub(REPO, files);
  const tarballs = runtimeTarballs();
  const common = RUNTIME_PACKAGES.find((pkg) => pkg.name === "onnxruntime-common")!;
  const key = new URL(tarballUrl("http://x", common)).pathname;
  const tampered = Buffer.from(tarballs.get(key)!);
  tampered[200] = tampered[200]! ^ 0xff;
  tarballs.set(key, tampered);
  const registry = await startFileServer(tarballs);
  const tiny = { id: "tiny", repo: REPO, revision: TINY_REVISION, dims: TINY_DIMS, queryPrefix: "", passagePrefix: "", multilingual: false, files: manifestOf(files) };
  const vault = tinyVault();
  const harness = await startPlugin({
    fixture: "",
    vault,
    settings: { history: { enabled: false }, embeddings: { enabled: true, kind: "on-device", onDeviceModel: "tiny", pinnedModels: [tiny], modelSource: hub.url, runtimeSource: registry.url } },
  });
  t.after(async () => {
    await harness.stop();
    await hub.close();
    await registry.close();
    vault.cleanup();
  });
  const tab = harness.app.setting.tabs[0] as Parameters<typeof openSettingTab>[0];
  const container = openSettingTab(tab);
  const download = settingNamed(container, "Download model");
  const button = download.querySelector<HTMLButtonElement>("button")!;
  await within(10_000, "the button shows the size", () => button.textContent?.startsWith("Download (") === true);
  const status = download.querySelector(".secondbrain-download-status")!;
  button.click();
  await within(60_000, "the download ends", () => /^Checksums verified|^Download refused/.test(status.textContent ?? ""));
  assert.match(status.textContent ?? "", /^Download refused: onnxruntime-common@1\.30\.0 does not match the lockfile's integrity \(got 66795 bytes, sha512-\S+; expected 66795 bytes, sha512-\S+\); refused and deleted$/);
  assert.ok(status.classList.contains("secondbrain-invalid"));
  assert.equal(button.disabled, false, "the button can be pressed again");
  const pluginFolder = path.join(harness.vault.dir, harness.pluginDir);
  assert.equal(existsSync(path.join(pluginFolder, "runtime")), false);
  assert.equal(existsSync(path.join(pluginFolder, "runtime.download")), false);
  assert.equal(hub.requests.length, 0, "the model is not fetched after the runtime was refused");
  closeSettingTab(tab);
});
