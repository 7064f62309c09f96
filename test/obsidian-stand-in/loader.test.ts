// The stand-in's plugin loader against obsidian-api.md §1 and checklist 1: main.js in a function
// wrapper whose `require` serves one `obsidian` module and Node's built-ins, nothing else.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createStandInApp } from "./app";
import { Plugin } from "./component";
import { makeVaultDir, withVaultDir } from "./fixtures";
import { installPlugin, loadPlugin, unloadPlugin } from "./loader";
import { TFile } from "./vault";

const MANIFEST = { id: "tiny-tool", name: "Tiny Tool", version: "0.0.1", minAppVersion: "1.8.7", description: "Test", author: "tests", isDesktopOnly: true };

/** Runs `fn` with a build folder holding main.js and manifest.json, as `npm run build` leaves them. */
async function withBuild(mainJs: string, fn: (buildDir: string) => Promise<void>): Promise<void> {
  const buildDir = makeVaultDir({ "manifest.json": JSON.stringify(MANIFEST), "main.js": mainJs });
  try {
    await fn(buildDir);
  } finally {
    rmSync(buildDir, { recursive: true, force: true });
  }
}

const TINY_PLUGIN = `
const { Plugin, TFile, Notice } = require("obsidian");
const path = require("node:path");
const fs = require("fs");
module.exports = class TinyPlugin extends Plugin {
  async onload() {
    this.steps = ["onload start"];
    await new Promise((resolve) => setTimeout(resolve, 20));
    this.TFile = TFile;
    this.obsidian = require("obsidian");
    this.joined = path.join("a", "b");
    this.fsOk = typeof fs.readFileSync === "function";
    this.addCommand({ id: "hello", name: "Hello", callback: () => { this.said = true; } });
    this.app.workspace.onLayoutReady(() => {
      const note = this.app.vault.getAbstractFileByPath("Note.md");
      this.noteIsTFile = note instanceof TFile;
    });
    this.steps.push("onload end");
  }
  onunload() {
    this.steps.push("onunload");
  }
};
`;

test("installPlugin copies the build into .obsidian/plugins/<id>; loadPlugin sets manifest.dir and awaits onload", async () => {
  await withBuild(TINY_PLUGIN, async (buildDir) => {
    await withVaultDir({ "Note.md": "hello" }, async (vaultDir) => {
      const pluginDir = installPlugin(vaultDir, buildDir);
      assert.equal(pluginDir, ".obsidian/plugins/tiny-tool");
      assert.ok(existsSync(path.join(vaultDir, ".obsidian/plugins/tiny-tool/main.js")));
      assert.ok(existsSync(path.join(vaultDir, ".obsidian/plugins/tiny-tool/manifest.json")));
      const app = createStandInApp({ vaultDir });
      const plugin = (await loadPlugin(app, pluginDir)) as Plugin & Record<string, unknown>;
      assert.equal(plugin.manifest.dir, ".obsidian/plugins/tiny-tool");
      assert.equal(plugin.manifest.id, "tiny-tool");
      assert.equal(plugin.app, app);
      assert.deepEqual(plugin.steps, ["onload start", "onload end"], "loadPlugin resolved only after the async onload finished");
      assert.equal(app.commands.commands.has("tiny-tool:hello"), true);
      await app.finishStartup();
      assert.equal(plugin.noteIsTFile, true, "instanceof holds inside the plugin for the app's files");
      unloadPlugin(plugin);
      assert.deepEqual(plugin.steps, ["onload start", "onload end", "onunload"]);
      assert.equal(app.commands.commands.has("tiny-tool:hello"), false);
    });
  });
});

test('require("obsidian") is the stand-in\'s one module instance, and built-ins pass through', async () => {
  await withBuild(TINY_PLUGIN, async (buildDir) => {
    await withVaultDir({}, async (vaultDir) => {
      const app = createStandInApp({ vaultDir });
      const plugin = (await loadPlugin(app, installPlugin(vaultDir, buildDir))) as Plugin & Record<string, unknown>;
      assert.ok(plugin instanceof Plugin);
      assert.equal(plugin.TFile, TFile);
      assert.equal((plugin.obsidian as { Plugin: unknown }).Plugin, Plugin);
      assert.equal(plugin.joined, path.join("a", "b"));
      assert.equal(plugin.fsOk, true);
    });
  });
});

test("a default export is constructed too", async () => {
  const code = `const { Plugin } = require("obsidian");\nclass P extends Plugin { onload() { this.loadedFlag = true; } }\nexports.default = P;`;
  await withBuild(code, async (buildDir) => {
    await withVaultDir({}, async (vaultDir) => {
      const plugin = (await loadPlugin(createStandInApp({ vaultDir }), installPlugin(vaultDir, buildDir))) as Plugin & Record<string, unknown>;
      assert.equal(plugin.loadedFlag, true);
    });
  });
});

test("requiring anything but obsidian and Node built-ins throws", async () => {
  for (const name of ["yaml", "moment", "./local-file"]) {
    const code = `const { Plugin } = require("obsidian");\nrequire(${JSON.stringify(name)});\nmodule.exports = class extends Plugin {};`;
    await withBuild(code, async (buildDir) => {
      await withVaultDir({}, async (vaultDir) => {
        const app = createStandInApp({ vaultDir });
        await assert.rejects(loadPlugin(app, installPlugin(vaultDir, buildDir)), new RegExp(`Cannot find module '${name.replace(/[./]/g, "\\$&")}'`));
      });
    });
  }
});

test("a main.js that does not export a Plugin is refused", async () => {
  await withBuild("module.exports = class NotAPlugin { constructor() {} };", async (buildDir) => {
    await withVaultDir({}, async (vaultDir) => {
      await assert.rejects(loadPlugin(createStandInApp({ vaultDir }), installPlugin(vaultDir, buildDir)), /does not export a Plugin/);
    });
  });
});

test("a rejecting onload rejects loadPlugin", async () => {
  const code = `const { Plugin } = require("obsidian");\nmodule.exports = class extends Plugin { async onload() { await null; throw new Error("no port"); } };`;
  await withBuild(code, async (buildDir) => {
    await withVaultDir({}, async (vaultDir) => {
      writeFileSync(path.join(buildDir, "styles.css"), ".x{}");
      const pluginDir = installPlugin(vaultDir, buildDir);
      assert.ok(existsSync(path.join(vaultDir, pluginDir, "styles.css")), "styles.css is installed when present");
      await assert.rejects(loadPlugin(createStandInApp({ vaultDir }), pluginDir), /no port/);
    });
  });
});
