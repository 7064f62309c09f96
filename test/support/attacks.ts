// Hostile single requests against the built server in a child process, each while a second client
// keeps reading a note: the test suite asserts on them (test/e2e/attacks.test.ts) and `npm run
// stress` prints the longest read wait per case. One list of cases, so the two cannot drift apart.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { fork, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, promises as fs } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { startCli, type CliServer } from "./cli";
import { callTool, type ToolCallResult } from "./server";
import type { ReaderReport } from "./steady-reader";

export const VAULT_NAME = "help";
/** A small note of the Help vault that every read of the second client fetches. */
export const READ_TARGET = "Home.md";

export const LONG_LINE_NOTE = "attack/long-line.md";
export const AT_START_FRONTMATTER_NOTE = "attack/frontmatter-512k-at-start.md";
const FRONTMATTER_NOTE = (kib: number): string => `attack/frontmatter-${kib}k.md`;
/** Under the 64 KiB limit (parsed, so its cost must stay small), and far over it. */
const EDITED_FRONTMATTER_KIB = [60, 200, 400, 800];

/** Frontmatter of many small keys, about `bytes` long: the shape that made YAML work quadratic. */
export function manyKeysFrontmatter(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let key = 0; size < bytes; key++) {
    const line = `key_${String(key).padStart(6, "0")}: value ${key}\n`;
    lines.push(line);
    size += line.length;
  }
  return `---\n${lines.join("")}---\n`;
}

/** The notes the cases need, written into the vault before the server starts. */
export async function prepareAttackVault(vaultDir: string): Promise<void> {
  mkdirSync(path.join(vaultDir, "attack"), { recursive: true });
  await fs.writeFile(path.join(vaultDir, LONG_LINE_NOTE), `# Long line\n\n${"a".repeat(50_000)}\n`);
  for (const kib of EDITED_FRONTMATTER_KIB) {
    await fs.writeFile(path.join(vaultDir, FRONTMATTER_NOTE(kib)), `${manyKeysFrontmatter(kib * 1024)}\nfrontmatterbody${kib}\n`);
  }
  await fs.writeFile(path.join(vaultDir, AT_START_FRONTMATTER_NOTE), `${manyKeysFrontmatter(512 * 1024)}\natstartbody\n`);
}

export interface AttackServer {
  cli: CliServer;
  url: string;
  writerToken: string;
  readerToken: string;
  vaultDir: string;
  /** From spawning the process to its "MCP endpoint" line. */
  startMs: number;
  stop(): Promise<number | null>;
}

function strongToken(): string {
  return randomBytes(32).toString("hex");
}

/** The built CLI on the vault, with a writing user and a read-only one, and a rate limit no case reaches. */
export async function startAttackServer(vaultDir: string, dataDir: string): Promise<AttackServer> {
  const writerToken = strongToken();
  const readerToken = strongToken();
  mkdirSync(dataDir, { recursive: true });
  const configFile = path.join(dataDir, "..", "attack-config.yaml");
  const config = [
    "server:",
    "  rate_limit:",
    "    per_minute: 1000000",
    "    burst: 100000",
    "users:",
    "  - name: writer",
    `    tokens: [${JSON.stringify(writerToken)}]`,
    "  - name: reader",
    `    tokens: [${JSON.stringify(readerToken)}]`,
    "    read_only: true",
    "",
  ].join("\n");
  await fs.writeFile(configFile, config, { mode: 0o600 });
  const started = performance.now();
  const cli = await startCli(["serve", "--vault", `${VAULT_NAME}=${vaultDir}`, "--data", dataDir, "--port", "0", "--config", configFile, "--no-history"]);
  const startMs = performance.now() - started;
  return { cli, url: cli.url, writerToken, readerToken, vaultDir, startMs, stop: () => cli.stop() };
}

export async function connectClient(url: string, token: string, name: string): Promise<Client> {
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

/** A second client, in a process of its own, reading one note again and again while a case runs. */
export class SteadyReader {
  private constructor(private readonly child: ChildProcess) {}

  static async start(url: string, token: string): Promise<SteadyReader> {
    const child = fork(path.join(__dirname, "steady-reader.ts"), [url, token], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    await new Promise<void>((resolve, reject) => {
      child.once("message", () => resolve());
      child.once("exit", (code) => reject(new Error(`the steady reader exited (${code}) before it was ready`)));
    });
    return new SteadyReader(child);
  }

  start(): void {
    this.child.send("start");
  }

  /** The longest wait of the reads since start(), counting a read that has not been answered yet. */
  async stop(): Promise<ReaderReport> {
    const report = new Promise<ReaderReport>((resolve) => this.child.once("message", (message) => resolve(message as ReaderReport)));
    this.child.send("stop");
    return report;
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.send("exit");
    await exited;
  }
}

export interface AttackContext {
  server: AttackServer;
  writer: Client;
  reader: Client;
}

export interface AttackCase {
  name: string;
  /** What the case may take to be answered: the tool's documented budget plus transport slack. */
  budgetMs: number;
  /** Builds what the call sends, before the reader starts: a 4 MiB argument takes this process a while. */
  prepare?(): void;
  /** The call (or calls) of the attack; resolves with how it was answered. */
  run(context: AttackContext): Promise<AttackAnswer>;
}

export interface AttackAnswer {
  /** `result`, or the tool error's code. */
  outcome: string;
  /** The answer's text, kept for the failure message only. */
  detail: string;
}

function answerOf(result: ToolCallResult): AttackAnswer {
  if (!result.isError) return { outcome: "result", detail: "" };
  const error = result.structured.error as { code?: string } | undefined;
  return { outcome: error?.code ?? "error", detail: result.text.slice(0, 300) };
}

const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<AttackAnswer> =>
  answerOf(await callTool(client, name, { vault: VAULT_NAME, ...args }));

/** A documented tool budget of 5 s, plus slack for the transport and a busy two-core machine. */
const PATTERN_BUDGET_MS = 5000 + 2000;
const QUICK_BUDGET_MS = 5000;

function globCases(): AttackCase[] {
  const starQuestion = `${"**?".repeat(18)}Z`;
  const starA = `${"*a".repeat(14)}*b`;
  return [
    { name: `note_list glob **?x18+Z (read-only user)`, budgetMs: QUICK_BUDGET_MS, run: ({ reader }) => call(reader, "note_list", { glob: starQuestion }) },
    { name: `note_list glob *a x14+*b`, budgetMs: QUICK_BUDGET_MS, run: ({ reader }) => call(reader, "note_list", { glob: starA }) },
    { name: `note_search glob *a x14+*b`, budgetMs: QUICK_BUDGET_MS, run: ({ reader }) => call(reader, "note_search", { query: "link", glob: starA }) },
  ];
}

function patternCases(): AttackCase[] {
  const grep = ["(a+)+b", "(.*a){20}b", "a*a*a*a*a*a*b"].map(
    (pattern): AttackCase => ({
      name: `vault_grep ${pattern} on a 50,000-char line`,
      budgetMs: PATTERN_BUDGET_MS,
      run: ({ reader }) => call(reader, "vault_grep", { pattern, prefix: "attack" }),
    }),
  );
  const replace = ["(a|aa)+b", "(a+){1,1000}b", "(.*a){20}b", "a*a*a*a*b"].map(
    (pattern): AttackCase => ({
      name: `vault_replace ${pattern} (dry run)`,
      budgetMs: PATTERN_BUDGET_MS,
      run: ({ writer }) => call(writer, "vault_replace", { pattern, replace: "x", dry_run: true, prefix: "attack" }),
    }),
  );
  return [...grep, ...replace];
}

function frontmatterCases(): AttackCase[] {
  const edits = EDITED_FRONTMATTER_KIB.map(
    (kib): AttackCase => ({
      name: `note_frontmatter dry run on ${kib} KB of keys`,
      budgetMs: QUICK_BUDGET_MS,
      run: ({ writer }) => call(writer, "note_frontmatter", { path: FRONTMATTER_NOTE(kib), set: { status: "done" }, dry_run: true }),
    }),
  );
  const creates = [1024, 4096].map((kib): AttackCase => {
    let content = "";
    return {
      name: `note_create with ${kib / 1024} MiB of frontmatter`,
      budgetMs: QUICK_BUDGET_MS,
      prepare: () => (content = `${manyKeysFrontmatter(kib * 1024)}\ncreated body\n`),
      run: ({ writer }) => call(writer, "note_create", { path: `attack/created-${kib}k.md`, content }),
    };
  });
  const watched: AttackCase = {
    name: "512 KB of frontmatter written beside the server (watcher)",
    budgetMs: 20_000,
    async run({ server, reader }) {
      const word = `watchedbody${Date.now()}`;
      await fs.writeFile(path.join(server.vaultDir, "attack", "watched-512k.md"), `${manyKeysFrontmatter(512 * 1024)}\n${word}\n`);
      // Picked up once its body is searchable: the watcher indexed it without parsing it for ever.
      for (;;) {
        const found = await callTool(reader, "note_search", { vault: VAULT_NAME, query: word });
        if (!found.isError && Number(found.structured.total ?? 0) > 0) return { outcome: "result", detail: "" };
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
  };
  return [...edits, ...creates, watched];
}

export function attackCases(): AttackCase[] {
  return [...globCases(), ...patternCases(), ...frontmatterCases()];
}

export interface AttackRun {
  name: string;
  outcome: string;
  detail: string;
  answeredMs: number;
  budgetMs: number;
  longestReadMs: number;
  reads: number;
  readFailures: string[];
}

/** Runs one case while the reader reads; a case not answered within twice its budget counts as hung. */
export async function runAttack(attack: AttackCase, context: AttackContext, steady: SteadyReader): Promise<AttackRun> {
  attack.prepare?.();
  steady.start();
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<AttackAnswer>((resolve) => {
    timer = setTimeout(() => resolve({ outcome: "hung", detail: `no answer within ${attack.budgetMs * 2} ms` }), attack.budgetMs * 2);
  });
  const answer = await Promise.race([attack.run(context).catch((error: unknown) => ({ outcome: "transport_error", detail: String(error) })), hung]);
  clearTimeout(timer);
  const answeredMs = performance.now() - started;
  const reading = await steady.stop();
  return {
    name: attack.name,
    outcome: answer.outcome,
    detail: answer.detail,
    answeredMs: Math.round(answeredMs),
    budgetMs: attack.budgetMs,
    longestReadMs: Math.round(reading.longestMs),
    reads: reading.reads,
    readFailures: reading.failures,
  };
}
