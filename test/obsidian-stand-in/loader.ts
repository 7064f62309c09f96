// Loads a built plugin the way Obsidian does (obsidian-api.md §1): main.js evaluated in a function
// wrapper with a `require` that serves `obsidian` (this one module) and Node's built-ins only.
import { builtinModules, createRequire } from "node:module";
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { App } from "./app";
import { Plugin, type PluginManifest } from "./component";
import * as obsidian from "./index";

const nodeRequire = createRequire(__filename);
const BUILTINS = new Set(builtinModules);

function pluginRequire(id: string): unknown {
  if (id === "obsidian") return obsidian;
  const bare = id.startsWith("node:") ? id.slice(5) : id;
  if (BUILTINS.has(bare) || BUILTINS.has(bare.split("/")[0]!)) return nodeRequire(id) as unknown;
  throw new Error(`Cannot find module '${id}': Obsidian plugins may only require obsidian and Node built-ins`);
}

/** Copies main.js, manifest.json and styles.css into `<vault>/<configDir>/plugins/<id>/`. */
export function installPlugin(vaultDir: string, buildDir: string, configDir = ".obsidian"): string {
  const manifest = JSON.parse(readFileSync(path.join(buildDir, "manifest.json"), "utf8")) as PluginManifest;
  const target = path.join(vaultDir, configDir, "plugins", manifest.id);
  mkdirSync(target, { recursive: true });
  for (const name of ["main.js", "manifest.json", "styles.css"]) {
    if (existsSync(path.join(buildDir, name))) copyFileSync(path.join(buildDir, name), path.join(target, name));
  }
  return `${configDir}/plugins/${manifest.id}`;
}

/** Evaluates `<pluginDir>/main.js`, constructs the plugin and awaits its onload. */
export async function loadPlugin(app: App, pluginDir: string): Promise<Plugin> {
  const base = app.vault.adapter.getFullPath(pluginDir);
  const manifest = JSON.parse(readFileSync(path.join(base, "manifest.json"), "utf8")) as PluginManifest;
  manifest.dir = pluginDir;
  const code = readFileSync(path.join(base, "main.js"), "utf8");
  const module: { exports: Record<string, unknown> } = { exports: {} };
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- evaluating main.js is what the app's loader does
  const wrapper = new Function("require", "module", "exports", `${code}\n//# sourceURL=plugin:${manifest.id}`) as (
    require: (id: string) => unknown,
    module: { exports: Record<string, unknown> },
    exports: Record<string, unknown>,
  ) => void;
  wrapper(pluginRequire, module, module.exports);
  const exported = (module.exports.default ?? module.exports) as new (app: App, manifest: PluginManifest) => unknown;
  const plugin = new exported(app, manifest);
  if (!(plugin instanceof Plugin)) throw new Error(`${manifest.id}: main.js does not export a Plugin`);
  await plugin.loadAwaited();
  return plugin;
}

export function unloadPlugin(plugin: Plugin): void {
  plugin.unload();
}
