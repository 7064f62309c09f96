// Test helpers for driving the conformance suite: a loopback proxy that adds the bearer header the
// suite cannot send (mcp-clients.md §3), a child-process runner that keeps our event loop free, and
// the Node options that let the suite load on Node 20.
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface RunningProxy {
  url: string;
  close(): Promise<void>;
}

export async function startBearerProxy(targetPort: number, token: string): Promise<RunningProxy> {
  const server: Server = createServer((incoming, outgoing) => {
    const upstream = request(
      {
        host: "127.0.0.1",
        port: targetPort,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on("error", () => outgoing.destroy());
    outgoing.on("close", () => upstream.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface ProcessOutcome {
  code: number | null;
  output: string;
}

export function runProcess(command: string, args: readonly string[], timeoutMs: number): Promise<ProcessOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

export interface ServerUnderTest {
  /** The MCP endpoint. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** `node dist/cli.js serve …`, ready once it prints its endpoint. */
export function startCliServer(cli: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<ServerUnderTest> {
  const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const close = async (): Promise<void> => {
    if (child.exitCode === null) child.kill("SIGTERM");
    await exited;
  };
  return new Promise((resolve, reject) => {
    let output = "";
    const fail = (reason: string): void => {
      void close();
      reject(new Error(`${reason}\n${output}`));
    };
    const timer = setTimeout(() => fail("the CLI did not print its endpoint in time"), timeoutMs);
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const match = /MCP endpoint: (http:\/\/\S+)/.exec(output);
      if (!match?.[1]) return;
      clearTimeout(timer);
      const url = new URL(match[1]);
      resolve({ url: url.href, port: Number(url.port), close });
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      fail(`the CLI exited with ${code}`);
    });
  });
}

const FS_WITH_GLOB = [
  "import fs from 'node:fs';",
  "export * from 'node:fs';",
  "export default fs;",
  "export function globSync() { throw new Error('globSync needs Node 22; the conformance tests do not use it.'); }",
].join("\n");

const FS_HOOKS = `
export async function resolve(specifier, context, next) {
  const fromShim = context.parentURL !== undefined && context.parentURL.startsWith("data:");
  if ((specifier === "fs" || specifier === "node:fs") && !fromShim) {
    return { url: ${JSON.stringify(`data:text/javascript,${encodeURIComponent(FS_WITH_GLOB)}`)}, shortCircuit: true };
  }
  return next(specifier, context);
}`;

/**
 * Node options for running the suite's CLI. It imports `globSync` from `fs` at start-up (for
 * tier-check, a command never run here), which Node 20 lacks; there, every `fs` import of the suite
 * is served node:fs plus a globSync that only throws.
 */
export function suiteNodeOptions(): string[] {
  if (typeof (fs as { globSync?: unknown }).globSync === "function") return [];
  const register = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(FS_HOOKS)}`)});`;
  return ["--import", `data:text/javascript,${encodeURIComponent(register)}`];
}
