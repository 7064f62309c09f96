// A real OAuth client and a real browser for the end-to-end sign-in tests: mcp-remote started as
// Claude Desktop starts it but without any header (so it discovers, registers and asks the user to
// authorize), and headless Chromium doing what the user does on the page the server (headless: a login
// form; plugin: an approval page) shows. mcp-remote's own browser opening is disabled (BROWSER=/bin/false,
// no DISPLAY); the test reads the URL it prints and hands it to Chromium (docs: mcp-clients.md §5, B).
import { existsSync, mkdirSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { found } from "./poll";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Debian's Chromium as a container runs it: no sandbox (no user namespaces), nothing phoning home. */
export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (.ci/run does when it is missing) or set CHROMIUM_PATH`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

/** A port free right now, for mcp-remote's callback (its default is a hash of the URL, shared by parallel runs). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

export interface OAuthRemote {
  /** The SDK client on mcp-remote's stdio; `connected` settles once mcp-remote got its token and relayed initialize. */
  client: Client;
  connected: Promise<void>;
  /** The authorize URL mcp-remote printed for the user. */
  authorizeUrl: URL;
  /** mcp-remote's callback, where the browser lands with the code. */
  callbackUrl: string;
  stderr(): string;
  close(): Promise<void>;
}

const AUTHORIZE_LINE = /Please authorize this client by visiting:\s*\n(\S+)/;

/**
 * mcp-remote (its proxy.js from the pinned client cache) against `mcpUrl` with no header. Its
 * initialize is sent at once and answered only after sign-in, as Claude Desktop's would be.
 */
export async function startMcpRemoteOAuth(options: { proxyJs: string; mcpUrl: string; work: string; timeoutMs?: number }): Promise<OAuthRemote> {
  mkdirSync(options.work, { recursive: true });
  const port = await freePort();
  const timeoutMs = options.timeoutMs ?? 60_000;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [options.proxyJs, options.mcpUrl, String(port), "--transport", "http-only", "--auth-timeout", String(Math.ceil(timeoutMs / 1000))],
    // Nothing of the caller's environment but PATH: no DISPLAY, so no browser opens; BROWSER fails at once.
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: options.work, LANG: "C.UTF-8", BROWSER: "/bin/false", MCP_REMOTE_CONFIG_DIR: path.join(options.work, "mcp-remote-config") },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "oauth-e2e", version: "1.0.0" });
  const connected = client.connect(transport, { timeout: timeoutMs });
  // Until the test awaits it, a failure would be an unhandled rejection.
  connected.catch(() => undefined);
  let exited = false;
  // The client set its own handler in connect(); it still has to hear of the close (pending requests fail).
  const clientOnClose = transport.onclose;
  transport.onclose = () => {
    exited = true;
    clientOnClose?.();
  };
  try {
    const url = await found(timeoutMs, "mcp-remote prints the authorize URL", () => {
      if (exited) throw new Error(`mcp-remote exited before asking for authorization: ${stderr}`);
      return Promise.resolve(AUTHORIZE_LINE.exec(stderr)?.[1]);
    });
    return {
      client,
      connected,
      authorizeUrl: new URL(url),
      callbackUrl: `http://localhost:${port}/oauth/callback`,
      stderr: () => stderr,
      close: () => client.close(),
    };
  } catch (error) {
    await client.close();
    throw new Error(`${(error as Error).message}\nmcp-remote stderr:\n${stderr}`);
  }
}

/** Requests the page made to mcp-remote's callback: a code reaches the client only through one. */
export function watchCallback(page: Page, callbackUrl: string): string[] {
  const reached: string[] = [];
  const callback = new URL(callbackUrl);
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.port === callback.port && url.pathname === callback.pathname) reached.push(request.url());
  });
  return reached;
}

/** The headless server's login form, filled in and submitted as a user would. */
export async function submitLogin(page: Page, username: string, password: string): Promise<void> {
  await page.getByLabel("User name").fill(username);
  await page.getByLabel("Password").fill(password);
  await Promise.all([page.waitForEvent("load"), page.getByRole("button", { name: "Sign in" }).click()]);
}
