// The real clients the matrix drives, installed at pinned versions (test/clients/pinned: package.json
// and its lockfile) into a cache folder of their own: together they weigh about 800 MB, which
// the project's own `npm install` must not pay. One folder per lockfile, so a changed pin installs
// anew and an unchanged one is reused.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export const PINNED = path.join(__dirname, "pinned");
const MARKER = ".secondbrain-clients";

export interface Pins {
  claudeCode: string;
  geminiCli: string;
  codex: string;
  mcpRemote: string;
  inspectorCli: string;
}

export interface InstalledClients {
  dir: string;
  pins: Pins;
  /** Whether this run installed them (false: the cache was reused). */
  installed: boolean;
  seconds: number;
  claude: string;
  gemini: string;
  codex: string;
  mcpRemote: string;
  inspector: string;
}

function pinnedManifest(): { dependencies: Record<string, string> } {
  return JSON.parse(readFileSync(path.join(PINNED, "package.json"), "utf8")) as { dependencies: Record<string, string> };
}

export function pins(): Pins {
  const dependencies = pinnedManifest().dependencies;
  const pin = (name: string): string => {
    const version = dependencies[name];
    if (version === undefined || !/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`test/clients/pinned/package.json must pin ${name} to an exact version`);
    return version;
  };
  return {
    claudeCode: pin("@anthropic-ai/claude-code"),
    geminiCli: pin("@google/gemini-cli"),
    codex: pin("@openai/codex"),
    mcpRemote: pin("mcp-remote"),
    inspectorCli: pin("@modelcontextprotocol/inspector-cli"),
  };
}

/** The lockfile, the platform and Node's major version decide what is installed (native binaries differ). */
export function lockHash(): string {
  const hash = createHash("sha256");
  for (const file of ["package.json", "package-lock.json"]) hash.update(readFileSync(path.join(PINNED, file)));
  hash.update(`${process.platform}-${process.arch}-node${process.versions.node.split(".")[0]}`);
  return hash.digest("hex").slice(0, 16);
}

export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SECONDBRAIN_CLIENTS_CACHE) return path.resolve(env.SECONDBRAIN_CLIENTS_CACHE);
  const cache = env.XDG_CACHE_HOME ? path.resolve(env.XDG_CACHE_HOME) : path.join(os.homedir(), ".cache");
  return path.join(cache, "secondbrain-mcp", "clients");
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "inherit", "inherit"] });
    child.once("error", reject);
    child.once("close", (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(" ")} exited with ${code} in ${cwd}`))));
  });
}

function located(dir: string, seconds: number, installed: boolean): InstalledClients {
  const modules = path.join(dir, "node_modules");
  const clients = {
    dir,
    pins: pins(),
    installed,
    seconds,
    claude: path.join(modules, ".bin", "claude"),
    gemini: path.join(modules, "@google", "gemini-cli", "bundle", "gemini.js"),
    codex: path.join(modules, "@openai", "codex", "bin", "codex.js"),
    mcpRemote: path.join(modules, "mcp-remote", "dist", "proxy.js"),
    inspector: path.join(modules, "@modelcontextprotocol", "inspector-cli", "build", "cli.js"),
  };
  for (const file of [clients.claude, clients.gemini, clients.codex, clients.mcpRemote, clients.inspector]) {
    if (!existsSync(file)) throw new Error(`${file} is missing from the client cache ${dir}: delete that folder and run again`);
  }
  return clients;
}

/**
 * Earlier installs of other pins (each holds hundreds of megabytes), and staging folders of installs
 * that never finished; a staging folder younger than an hour may be another run's, still installing.
 */
export function prune(root: string, keep: string): void {
  const hourAgo = Date.now() - 3600_000;
  for (const name of readdirSync(root)) {
    const full = path.join(root, name);
    const abandoned = name.startsWith(".install-") && statSync(full).mtimeMs < hourAgo;
    if (full !== keep && (abandoned || existsSync(path.join(full, MARKER)))) rmSync(full, { recursive: true, force: true });
  }
}

/** The pinned clients, from the cache or installed into it with `npm ci` from the pinned lockfile. */
export async function ensureClients(env: NodeJS.ProcessEnv = process.env): Promise<InstalledClients> {
  const started = Date.now();
  const root = cacheRoot(env);
  const dir = path.join(root, lockHash());
  if (existsSync(path.join(dir, MARKER))) return located(dir, (Date.now() - started) / 1000, false);
  mkdirSync(root, { recursive: true });
  const staging = mkdtempSync(path.join(root, ".install-"));
  for (const file of ["package.json", "package-lock.json"]) copyFileSync(path.join(PINNED, file), path.join(staging, file));
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  await run(npm, ["ci", "--no-audit", "--no-fund", "--loglevel=error"], staging, env);
  writeFileSync(path.join(staging, MARKER), `${lockHash()}\n`);
  try {
    renameSync(staging, dir);
  } catch (error) {
    // Another run finished the same install first: use that one.
    if (!existsSync(path.join(dir, MARKER))) throw error;
  }
  prune(root, dir);
  return located(dir, (Date.now() - started) / 1000, true);
}
