// The built CLI serving the load vault in a child process, as a user runs it, on an ephemeral
// loopback port with a config whose rate limit is far above what the clients can send.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";

export const CLI = path.resolve(__dirname, "..", "..", "dist", "cli.js");
export const LOAD_VAULT = "load";

export interface LoadServer {
  url: string;
  /**
   * Resolves once the vault's history has its first snapshot, so the measured minute pays for the
   * commits of its writes: on a large vault recording the snapshot outlasts the load, and writes made
   * meanwhile only queue their commits.
   */
  historyReady(timeoutMs: number): Promise<void>;
  /** Sends SIGTERM and resolves with the exit code once the index is flushed and the process gone. */
  stop(timeoutMs: number): Promise<number | null>;
}

/** A config granting one user the token, with a rate limit no load run reaches. */
export async function writeLoadConfig(file: string, token: string): Promise<void> {
  const yaml = [
    "server:",
    "  rate_limit:",
    "    per_minute: 1000000",
    "    burst: 100000",
    "users:",
    "  - name: load",
    "    tokens:",
    `      - ${JSON.stringify(token)}`,
    "",
  ].join("\n");
  await fs.writeFile(file, yaml, { mode: 0o600 });
}

export async function startLoadServer(options: { vaultDir: string; dataDir: string; configFile: string; token: string; startTimeoutMs: number; cpuProfileDir?: string }): Promise<LoadServer> {
  if (!existsSync(CLI)) throw new Error("dist/cli.js is missing: run `npm run build` (npm run load does it first)");
  const profile = options.cpuProfileDir ? ["--cpu-prof", `--cpu-prof-dir=${options.cpuProfileDir}`] : [];
  const args = [...profile, CLI, "serve", "--vault", `${LOAD_VAULT}=${options.vaultDir}`, "--data", options.dataDir, "--host", "127.0.0.1", "--port", "0", "--config", options.configFile];
  const child: ChildProcess = spawn(process.execPath, args, {
    env: { ...process.env, SECONDBRAIN_TOKEN: options.token },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  // Only the tail is kept, for the failure message; the log lines name paths and events, not content.
  let stderrTail = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  const snapshot: { state: "recording" | "ready" | "failed" } = { state: "recording" };
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-4000);
    // An existing snapshot (its head named) or a finished one; the tail keeps a line cut between chunks.
    if (/"event":"history_baseline_failed"/.test(stderrTail)) snapshot.state = "failed";
    else if (snapshot.state === "recording" && /"event":"history_baseline"|"event":"history_opened","vault":"[^"]*","head":"/.test(stderrTail)) snapshot.state = "ready";
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the server printed no "MCP endpoint:" line within ${options.startTimeoutMs} ms: ${stderrTail.slice(-800)}`));
    }, options.startTimeoutMs);
    const probe = (): void => {
      const found = /MCP endpoint: (\S+)/.exec(stdout)?.[1];
      if (found === undefined) return;
      clearTimeout(timer);
      resolve(found);
    };
    child.stdout!.on("data", probe);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before serving: ${stderrTail.slice(-800)}`));
    });
  });
  const parsed = new URL(url);
  if (!["127.0.0.1", "localhost", "[::1]"].includes(parsed.hostname)) {
    child.kill("SIGKILL");
    throw new Error(`the server bound ${parsed.hostname}; the load test runs on loopback only`);
  }

  return {
    url,
    async historyReady(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (snapshot.state === "recording") {
        if (child.exitCode !== null) throw new Error(`the server exited while recording the history's first snapshot: ${stderrTail.slice(-800)}`);
        if (Date.now() > deadline) throw new Error(`the history's first snapshot was not recorded within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      if (snapshot.state === "failed") throw new Error(`the history's first snapshot failed: ${stderrTail.slice(-800)}`);
    },
    async stop(timeoutMs) {
      if (child.exitCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
