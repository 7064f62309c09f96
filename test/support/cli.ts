// The built CLI as a child process, the way a user runs it; its JSON log lines are collected.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

export const CLI = path.resolve(__dirname, "../../dist/cli.js");

export interface CliServer {
  child: ChildProcess;
  url: string;
  stdout: string;
  logs: Array<Record<string, unknown>>;
  rawLogs: string[];
  waitForLog(predicate: (record: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function startCli(args: string[], env: Record<string, string> = {}): Promise<CliServer> {
  if (!existsSync(CLI)) throw new Error("dist/cli.js is missing: run `npm run build` (npm test does it first)");
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const logs: Array<Record<string, unknown>> = [];
  const rawLogs: string[] = [];
  let stdout = "";
  let stderrRest = "";
  const waiters: Array<() => void> = [];
  const wake = (): void => waiters.splice(0).forEach((resolve) => resolve());
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    wake();
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderrRest += chunk;
    const lines = stderrRest.split("\n");
    stderrRest = lines.pop() ?? "";
    for (const line of lines) {
      rawLogs.push(line);
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // Not a log record (e.g. a usage message).
      }
    }
    wake();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const until = async <T>(probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = probe();
      if (value !== undefined) return value;
      if (child.exitCode !== null) throw new Error(`CLI exited (${child.exitCode}) before ${what}: ${rawLogs.join("\n")}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  };
  const url = await until(() => /MCP endpoint: (\S+)/.exec(stdout)?.[1], 60_000, "the MCP endpoint line");
  return {
    child,
    url,
    get stdout() {
      return stdout;
    },
    logs,
    rawLogs,
    waitForLog: (predicate, timeoutMs = 30_000) => until(() => logs.find(predicate), timeoutMs, "a log line"),
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
