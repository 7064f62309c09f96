// The built plugin (main.js at the repository root, as `npm run build` leaves it) loaded into the
// Obsidian stand-in over a temp vault, and official SDK clients talking to it over HTTP.
import { writeFileSync, mkdirSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { generateToken, hashToken } from "../../src/auth/tokens";
import { createStandInApp, type App } from "../obsidian-stand-in/app";
import type { Plugin } from "../obsidian-stand-in/component";
import { installPlugin, loadPlugin, unloadPlugin } from "../obsidian-stand-in/loader";
import { callTool, type ToolCallResult } from "./server";
import { tempVault, type TempVault } from "./vaults";

export const REPO_ROOT = path.resolve(__dirname, "../..");

/** What the tests read off the plugin instance beyond the Plugin API. */
export interface LoadedPlugin extends Plugin {
  ready: Promise<void>;
  historyIdle(): Promise<void>;
  /** Resolves once data.json holds everything the plugin saved, the save when unloading included. */
  dataSaved(): Promise<void>;
  /** OAuth sign-ins, as the settings tab lists them. */
  signedInClients(): Array<{ client_id: string; client_name?: string; user: string; last_used: number }>;
  config: { server: { port: number } };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface PluginHarness {
  app: App;
  plugin: LoadedPlugin;
  vault: TempVault;
  pluginDir: string;
  port: number;
  url: string;
  token: string;
  connect(token?: string, name?: string): Promise<Client>;
  call(name: string, args?: Record<string, unknown>): Promise<ToolCallResult>;
  /** Unloads the plugin (as disabling it does) and closes the clients. */
  unload(): Promise<void>;
  stop(): Promise<void>;
}

export interface PluginHarnessOptions {
  fixture: string;
  /** Saved settings (data.json) besides the server port and a user `tester` with the harness token. */
  settings?: Record<string, unknown>;
  /** No user in data.json: the settings tab tests add one. */
  noUser?: boolean;
  vault?: TempVault;
  /** Keep the data.json already in the plugin folder (reload tests). */
  keepData?: boolean;
  /** A fixed port instead of a free one (the screenshot shows the default). */
  port?: number;
  /** The app's settings (`vault.getConfig`), e.g. `{ alwaysUpdateLinks: false }`. */
  appConfig?: Record<string, unknown>;
}

export async function startPlugin(options: PluginHarnessOptions): Promise<PluginHarness> {
  const vault = options.vault ?? tempVault(options.fixture);
  const pluginDir = installPlugin(vault.dir, REPO_ROOT);
  const port = options.port ?? (await freePort());
  const token = generateToken();
  const data = {
    server: { enabled: true, port, host: "127.0.0.1" },
    users: options.noUser ? [] : [{ name: "tester", token_hashes: [hashToken(token)], vaults: [], read_only: false, created: 1 }],
    ...options.settings,
  };
  mkdirSync(path.join(vault.dir, pluginDir), { recursive: true });
  if (!options.keepData) writeFileSync(path.join(vault.dir, pluginDir, "data.json"), JSON.stringify(data, null, 2));
  const app = createStandInApp({ vaultDir: vault.dir, ...(options.appConfig ? { config: options.appConfig } : {}) });
  const plugin = (await loadPlugin(app, pluginDir)) as LoadedPlugin;
  try {
    await app.finishStartup();
    await plugin.ready;
    await plugin.historyIdle();
  } catch (error) {
    // A plugin that fails to come up must not keep its port and the test process alive.
    unloadPlugin(plugin);
    if (!options.vault) vault.cleanup();
    throw error;
  }
  const url = `http://127.0.0.1:${plugin.config.server.port}/mcp`;
  const clients: Client[] = [];
  const connect = async (withToken = token, name = "plugin-test-client"): Promise<Client> => {
    const client = new Client({ name, version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${withToken}` } } }));
    clients.push(client);
    return client;
  };
  let shared: Client | null = null;
  let unloaded = false;
  const unload = async (): Promise<void> => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    shared = null;
    if (!unloaded) unloadPlugin(plugin);
    unloaded = true;
  };
  return {
    app,
    plugin,
    vault,
    pluginDir,
    port: plugin.config.server.port,
    url,
    token,
    connect,
    async call(name, args = {}) {
      shared ??= await connect();
      return callTool(shared, name, args);
    },
    unload,
    async stop() {
      await unload();
      // Snapshots are written in the background after onunload; let them finish before the folder goes.
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (!options.vault) vault.cleanup();
    },
  };
}
