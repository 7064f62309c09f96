// Each client configured and run the way its README section says, in a home folder of its own, with
// a scripted model endpoint for the clients that need a model. Nothing of the caller's environment but
// PATH reaches a client: no keys, no config of the machine's user.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { InstalledClients } from "./install";

export const PROMPT = "Use the secondbrain tools to edit the Word count note.";

export interface Outcome {
  command: string;
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  seconds: number;
}

/** A client as a process group of its own, ended whole on timeout; stdin is closed at once. */
export function runClient(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<Outcome> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // The group is already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      // Whatever the client left running in its group (an MCP helper, a language server) goes with it.
      killGroup();
      resolve({ command: [path.basename(command), ...args].join(" "), code, stdout, stderr, timedOut, seconds: (Date.now() - started) / 1000 });
    });
  });
}

export interface ClientRun {
  /** The client's own listing of its MCP servers (`mcp list`). */
  listing: Outcome;
  /** The model-driven run. */
  session: Outcome;
}

export interface ModelClientOptions {
  clients: InstalledClients;
  /** A folder of this client's own: its home, its working folder, its logs. */
  work: string;
  mcpUrl: string;
  token: string;
  modelUrl: string;
  timeoutMs: number;
  /** Lines added to the client's configuration (Codex: config.toml). */
  configExtra?: string;
}

function baseEnv(home: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8", TERM: "dumb", NO_COLOR: "1", CI: "1" };
}

function folders(work: string): { home: string; cwd: string } {
  const home = path.join(work, "home");
  const cwd = path.join(work, "project");
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  return { home, cwd };
}

/** Claude Code: `claude mcp add --transport http … --header`, then `claude -p` against the scripted Messages API. */
export async function runClaudeCode(options: ModelClientOptions): Promise<ClientRun> {
  const { home, cwd } = folders(options.work);
  const env: NodeJS.ProcessEnv = {
    ...baseEnv(home),
    ANTHROPIC_BASE_URL: options.modelUrl,
    ANTHROPIC_API_KEY: "scripted-model",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  };
  const claude = options.clients.claude;
  const add = await runClient(claude, ["mcp", "add", "--transport", "http", "secondbrain", options.mcpUrl, "--header", `Authorization: Bearer ${options.token}`], { cwd, env, timeoutMs: 60_000 });
  if (add.code !== 0) throw new Error(`claude mcp add failed (${add.code}): ${add.stderr || add.stdout}`);
  const listing = await runClient(claude, ["mcp", "list"], { cwd, env, timeoutMs: 60_000 });
  const session = await runClient(claude, ["-p", PROMPT, "--output-format", "stream-json", "--verbose", "--allowedTools", "mcp__secondbrain"], { cwd, env, timeoutMs: options.timeoutMs });
  return { listing, session };
}

/** Gemini CLI: a trusted folder, `gemini mcp add --transport http -H`, then `gemini -p` against the scripted Gemini API. */
export async function runGeminiCli(options: ModelClientOptions): Promise<ClientRun> {
  const { home, cwd } = folders(options.work);
  mkdirSync(path.join(home, ".gemini"), { recursive: true });
  writeFileSync(path.join(home, ".gemini", "trustedFolders.json"), JSON.stringify({ [cwd]: "TRUST_FOLDER" }));
  writeFileSync(path.join(home, ".gemini", "settings.json"), JSON.stringify({
      security: { auth: { selectedType: "gemini-api-key" } },
      privacy: { usageStatisticsEnabled: false },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    }));
  const env: NodeJS.ProcessEnv = { ...baseEnv(home), GEMINI_API_KEY: "scripted-model", GOOGLE_GEMINI_BASE_URL: options.modelUrl };
  const gemini = [options.clients.gemini];
  const add = await runClient(process.execPath, [...gemini, "mcp", "add", "-s", "user", "--transport", "http", "-H", `Authorization: Bearer ${options.token}`, "secondbrain", options.mcpUrl], { cwd, env, timeoutMs: 60_000 });
  if (add.code !== 0) throw new Error(`gemini mcp add failed (${add.code}): ${add.stderr || add.stdout}`);
  const listing = await runClient(process.execPath, [...gemini, "mcp", "list"], { cwd, env, timeoutMs: 60_000 });
  const session = await runClient(process.execPath, [...gemini, "-p", PROMPT, "--approval-mode", "yolo", "--output-format", "stream-json"], { cwd, env, timeoutMs: options.timeoutMs });
  return { listing, session };
}

/** The config.toml Codex needs: the server's URL and the variable holding the token (the scripted model besides). */
export function codexConfig(mcpUrl: string, modelUrl: string, extra = ""): string {
  return [
    'model = "gpt-scripted"',
    'model_provider = "scripted"',
    'approval_policy = "never"',
    'sandbox_mode = "read-only"',
    "check_for_update_on_startup = false",
    extra,
    "[model_providers.scripted]",
    'name = "Scripted Responses API"',
    `base_url = "${modelUrl}/v1"`,
    'wire_api = "responses"',
    'env_key = "SCRIPTED_MODEL_KEY"',
    "request_max_retries = 0",
    "stream_max_retries = 0",
    "",
    "[mcp_servers.secondbrain]",
    `url = "${mcpUrl}"`,
    'bearer_token_env_var = "SECONDBRAIN_TOKEN"',
    "",
  ].join("\n");
}

/** Codex: `[mcp_servers.secondbrain]` with `bearer_token_env_var` in config.toml, then `codex exec`. */
export async function runCodex(options: ModelClientOptions): Promise<ClientRun> {
  const { home, cwd } = folders(options.work);
  writeFileSync(path.join(home, "config.toml"), codexConfig(options.mcpUrl, options.modelUrl, options.configExtra));
  const env: NodeJS.ProcessEnv = { ...baseEnv(home), CODEX_HOME: home, SCRIPTED_MODEL_KEY: "scripted-model", SECONDBRAIN_TOKEN: options.token };
  const codex = [options.clients.codex];
  const listing = await runClient(process.execPath, [...codex, "mcp", "list"], { cwd, env, timeoutMs: 60_000 });
  const session = await runClient(process.execPath, [...codex, "exec", "--skip-git-repo-check", "--json", PROMPT], { cwd, env, timeoutMs: options.timeoutMs });
  return { listing, session };
}

/** mcp-remote as Claude Desktop launches it (stdio, `--header`), driven by the official SDK client. */
export async function connectMcpRemote(clients: InstalledClients, mcpUrl: string, token: string, work: string): Promise<{ client: Client; stderr(): string }> {
  mkdirSync(work, { recursive: true });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [clients.mcpRemote, mcpUrl, "--transport", "http-only", "--header", `Authorization: Bearer ${token}`],
    env: { ...baseEnv(work), MCP_REMOTE_CONFIG_DIR: path.join(work, "mcp-remote-config") },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "client-matrix", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/**
 * The Inspector CLI as its README runs it (`mcp-inspector-cli --cli URL …`), one method per run. 1.0.3
 * checks for ../package.json relative to the working folder but imports it relative to its own file:
 * without one it stops with "Cannot find module …/package.json". From src/ of this checkout, as the
 * README says, the check finds the repository's package.json and the import finds its own.
 */
export function inspector(clients: InstalledClients, mcpUrl: string, token: string, home: string, args: string[]): Promise<Outcome> {
  mkdirSync(home, { recursive: true });
  return runClient(process.execPath, [clients.inspector, "--cli", mcpUrl, "--transport", "http", "--header", `Authorization: Bearer ${token}`, ...args], {
    cwd: path.resolve(__dirname, "../../src"),
    env: baseEnv(home),
    timeoutMs: 60_000,
  });
}
