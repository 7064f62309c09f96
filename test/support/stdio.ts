// `serve --stdio` of the built CLI as a client launches it: raw lines written to its stdin, the
// JSON-RPC messages on its stdout and the log lines on its stderr collected, its exit observed.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { CLI } from "./cli";

export type JsonRpcMessage = { jsonrpc: "2.0"; id?: string | number | null; result?: Record<string, unknown>; error?: { code: number; message: string } } & Record<string, unknown>;

export interface StdioCli {
  child: ChildProcessWithoutNullStreams;
  messages: JsonRpcMessage[];
  stderr(): string;
  /** Writes one line (a message object is serialized); resolves once the pipe took it. */
  write(line: string | Record<string, unknown>): Promise<void>;
  request(id: number, method: string, params?: Record<string, unknown>): Promise<JsonRpcMessage>;
  waitFor(predicate: (message: JsonRpcMessage) => boolean, timeoutMs?: number, what?: string): Promise<JsonRpcMessage>;
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** The exit code, or a rejection when the process still runs after timeoutMs. */
  exited(timeoutMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(): void;
}

export async function startStdioCli(args: string[]): Promise<StdioCli> {
  if (!existsSync(CLI)) throw new Error("dist/cli.js is missing: run `npm run build` (npm test does it first)");
  const child = spawn(process.execPath, [CLI, "serve", "--stdio", ...args], { stdio: ["pipe", "pipe", "pipe"] });
  const messages: JsonRpcMessage[] = [];
  let stdoutRest = "";
  let stderr = "";
  const waiters: Array<() => void> = [];
  const wake = (): void => waiters.splice(0).forEach((resolve) => resolve());
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdoutRest += chunk;
    const lines = stdoutRest.split("\n");
    stdoutRest = lines.pop() ?? "";
    for (const line of lines) if (line.trim() !== "") messages.push(JSON.parse(line) as JsonRpcMessage);
    wake();
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
    wake();
  });
  // A child that exits while a write is under way leaves an EPIPE to swallow, not a test crash.
  child.stdin.on("error", () => undefined);
  let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  child.once("exit", (code, signal) => {
    exit = { code, signal };
    wake();
  });
  const until = async <T>(probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; stderr:\n${stderr}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 25);
      });
    }
  };
  const cli: StdioCli = {
    child,
    messages,
    stderr: () => stderr,
    write: (line) =>
      new Promise<void>((resolve, reject) => {
        const text = typeof line === "string" ? line : JSON.stringify(line);
        child.stdin.write(text + "\n", (error) => (error ? reject(error) : resolve()));
      }),
    async request(id, method, params = {}) {
      await cli.write({ jsonrpc: "2.0", id, method, params });
      return cli.waitFor((message) => message.id === id, 30_000, `the answer to ${method} (id ${id})`);
    },
    waitFor: (predicate, timeoutMs = 30_000, what = "a message") =>
      until(() => {
        const found = messages.find(predicate);
        if (found === undefined && exit) throw new Error(`the CLI exited (${exit.code ?? exit.signal}) before ${what}; stderr:\n${stderr}`);
        return found;
      }, timeoutMs, what),
    waitForLog: async (pattern, timeoutMs = 60_000) => {
      await until(() => (pattern.test(stderr) ? true : undefined), timeoutMs, `a log line matching ${pattern}`);
    },
    exited: (timeoutMs) => until(() => exit ?? undefined, timeoutMs, "the CLI to exit"),
    kill: () => {
      if (!exit) child.kill("SIGKILL");
    },
  };
  return cli;
}

/** initialize + notifications/initialized, as every client starts. */
export async function initialize(cli: StdioCli): Promise<void> {
  const answer = await cli.request(0, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "stdio-test", version: "1.0.0" } });
  if (!answer.result) throw new Error(`initialize failed: ${JSON.stringify(answer)}`);
  await cli.write({ jsonrpc: "2.0", method: "notifications/initialized" });
}
