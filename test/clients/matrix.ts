// npm run test:clients: the real-client matrix. Installs the pinned clients into their own cache
// (install.ts), starts the built server on a copy of the Obsidian Help vault once per client, and runs
// the same script through each: search → read → hash-checked edit → stale-hash conflict → missing note
// → list arguments → limit: 500 → a large result. Claude Code, Gemini CLI and Codex run it as their
// scripted model asks (fake-models.ts) and are judged on what they hand that model; mcp-remote and the
// Inspector CLI have no model and are judged on what they return.
// Env: CLIENTS=claude-code,gemini-cli,… (a subset), CLIENT_TIMEOUT_S (per model session, default 300),
// CLIENTS_OUT (keep logs there; default a temp folder, printed), SECONDBRAIN_CLIENTS_CACHE.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startCli, type CliServer } from "../support/cli";
import { HELP_VAULT, tempVault, type TempVault } from "../support/vaults";
import { CHECKS, type StepContext } from "./checks";
import { connectMcpRemote, inspector, runClaudeCode, runCodex, runGeminiCli, type ClientRun, type ModelClientOptions } from "./drivers";
import { startFakeModel, type FakeModel, type Vendor } from "./fake-models";
import { ensureClients, pins, type InstalledClients } from "./install";
import { MAIN_SCRIPT, type Seen } from "./scenario";

const TOKEN = "client-matrix-token-5f0c7d2e9a41b8";
const SESSION_TIMEOUT_MS = Number(process.env.CLIENT_TIMEOUT_S ?? 300) * 1000;
const ONLY = process.env.CLIENTS?.split(",").map((name) => name.trim());
const OUT = process.env.CLIENTS_OUT ? path.resolve(process.env.CLIENTS_OUT) : mkdtempSync(path.join(os.tmpdir(), "sbmcp-clients-"));
const PINS = pins();

const COLUMNS = ["connect", "tools", ...MAIN_SCRIPT.map((entry) => entry.step), "no schema warnings"] as const;
type Column = (typeof COLUMNS)[number];
const matrix = new Map<string, Map<Column, string>>();
const notes = new Map<string, string[]>();

function mark(client: string, column: Column, verdict: string): void {
  if (!matrix.has(client)) matrix.set(client, new Map());
  matrix.get(client)?.set(column, verdict);
}

function note(client: string, text: string): void {
  notes.set(client, [...(notes.get(client) ?? []), text]);
}

/** A test that is also a cell of the matrix. */
function cell(client: string, column: Column, check: () => void | Promise<void>): void {
  test(column, async () => {
    try {
      await check();
      mark(client, column, "pass");
    } catch (error) {
      mark(client, column, "FAIL");
      throw error;
    }
  });
}

function table(): string {
  const header = `| client | ${COLUMNS.join(" | ")} |`;
  const rule = `|---|${COLUMNS.map(() => "---").join("|")}|`;
  const rows = [...matrix].map(([client, cells]) => `| ${client} | ${COLUMNS.map((column) => cells.get(column) ?? "–").join(" | ")} |`);
  const extra = [...notes].flatMap(([client, lines]) => lines.map((line) => `- ${client}: ${line}`));
  return [header, rule, ...rows, "", ...extra].join("\n");
}

let clients: InstalledClients;

before(async () => {
  clients = await ensureClients();
  console.log(`clients ${clients.installed ? "installed" : "reused"} in ${clients.seconds.toFixed(1)} s: ${clients.dir}`);
  console.log(`logs: ${OUT}`);
});

after(() => {
  const text = table();
  writeFileSync(path.join(OUT, "matrix.md"), `${text}\n`);
  console.log(`\n${text}\n`);
});

interface Served {
  vault: TempVault;
  cli: CliServer;
  expectedTools: string[];
  /** The text of a tool's result as the server sends it (what a client could pass on whole). */
  direct(tool: string, args: Record<string, unknown>): Promise<string>;
  stop(): Promise<void>;
}

async function serve(): Promise<Served> {
  const vault = tempVault(HELP_VAULT);
  const cli = await startCli(["serve", "--vault", `help=${vault.dir}`, "--data", vault.dataDir, "--port", "0", "--no-history"], { SECONDBRAIN_TOKEN: TOKEN });
  const connect = async (): Promise<Client> => {
    const client = new Client({ name: "client-matrix-reference", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(cli.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
    return client;
  };
  const reference = await connect();
  const expectedTools = (await reference.listTools()).tools.map((tool) => tool.name).sort();
  return {
    vault,
    cli,
    expectedTools,
    async direct(tool, args) {
      const result = await reference.callTool({ name: tool, arguments: args });
      return (result.content as Array<{ text?: string }>).map((part) => part.text ?? "").join("\n");
    },
    async stop() {
      await reference.close();
      await cli.stop();
      vault.cleanup();
    },
  };
}

function wanted(client: string): boolean {
  return ONLY === undefined || ONLY.includes(client);
}

/** The checks every client goes through, on what it passed on of each scripted call. */
function scriptCells(client: string, context: () => StepContext, seen: () => ReadonlyArray<Seen | undefined>): void {
  MAIN_SCRIPT.forEach((entry, index) => cell(client, entry.step, () => CHECKS[entry.step](seen()[index], context())));
}

interface ModelClient {
  name: string;
  label: string;
  vendor: Vendor;
  run(options: ModelClientOptions): Promise<ClientRun>;
  /** How `mcp list` says the server is connected, where the client has such a listing. */
  connected: RegExp;
}

const MODEL_CLIENTS: ModelClient[] = [
  { name: "claude-code", label: `Claude Code ${PINS.claudeCode}`, vendor: "anthropic", run: runClaudeCode, connected: /secondbrain: .*Connected/ },
  { name: "gemini-cli", label: `Gemini CLI ${PINS.geminiCli}`, vendor: "gemini", run: runGeminiCli, connected: /secondbrain.*Connected/ },
  { name: "codex", label: `Codex ${PINS.codex}`, vendor: "openai", run: runCodex, connected: /secondbrain/ },
];

for (const spec of MODEL_CLIENTS.filter((candidate) => wanted(candidate.name))) {
  describe(spec.label, () => {
    let served: Served;
    let model: FakeModel;
    let run: ClientRun;
    let largeDirect = "";

    before(async () => {
      served = await serve();
      const work = path.join(OUT, spec.name);
      mkdirSync(work, { recursive: true });
      model = await startFakeModel(spec.vendor, MAIN_SCRIPT, spec.name, path.join(work, "model"));
      run = await spec.run({ clients, work, mcpUrl: served.cli.url, token: TOKEN, modelUrl: model.url, timeoutMs: SESSION_TIMEOUT_MS });
      writeFileSync(path.join(work, "session.stdout"), run.session.stdout);
      writeFileSync(path.join(work, "session.stderr"), run.session.stderr);
      writeFileSync(path.join(work, "mcp-list.txt"), `${run.listing.stdout}\n${run.listing.stderr}`);
      note(spec.name, `session ${run.session.seconds.toFixed(1)} s, exit ${run.session.code}${run.session.timedOut ? " (timed out)" : ""}`);
      const large = MAIN_SCRIPT.findIndex((entry) => entry.step === "large");
      largeDirect = await served.direct("vault_grep", MAIN_SCRIPT[large]?.call([], spec.name).args ?? {});
      const seenLarge = model.seen[large]?.text ?? "";
      note(spec.name, `large result: the model got ${seenLarge.length.toLocaleString("en")} characters of the ${largeDirect.length.toLocaleString("en")} the server sent as text`);
    });

    after(async () => {
      await model?.close();
      await served?.stop();
    });

    cell(spec.name, "connect", () => {
      assert.match(`${run.listing.stdout}\n${run.listing.stderr}`, spec.connected, "the client lists the server");
      assert.ok(model.finished, `the session went through every scripted step (exit ${run.session.code}): ${run.session.stderr.slice(-1500)}`);
    });
    cell(spec.name, "tools", () => assert.deepEqual([...model.offered].sort(), served.expectedTools, "the model was offered every tool"));
    scriptCells(spec.name, () => ({ client: spec.name, vaultDir: served.vault.dir }), () => model.seen);
    if (spec.name === "gemini-cli") {
      cell(spec.name, "no schema warnings", () => {
        assert.doesNotMatch(run.session.stderr, /strict mode|allowUnionTypes/, "Gemini CLI compiled every schema without a warning");
      });
    }
  });
}

if (wanted("mcp-remote")) {
  describe(`mcp-remote ${PINS.mcpRemote}`, () => {
    let served: Served;
    let remote: Awaited<ReturnType<typeof connectMcpRemote>>;
    const seen: Seen[] = [];
    let offered: string[] = [];

    before(async () => {
      served = await serve();
      remote = await connectMcpRemote(clients, served.cli.url, TOKEN, path.join(OUT, "mcp-remote"));
      offered = (await remote.client.listTools()).tools.map((tool) => tool.name).sort();
      for (const entry of MAIN_SCRIPT) {
        const call = entry.call(seen, "mcp-remote");
        const result = await remote.client.callTool({ name: call.tool, arguments: call.args });
        seen.push({ text: (result.content as Array<{ text?: string }>).map((part) => part.text ?? "").join("\n"), isError: result.isError === true });
      }
    });

    after(async () => {
      await remote?.client.close();
      await served?.stop();
    });

    cell("mcp-remote", "connect", () => assert.match(remote.client.getServerVersion()?.name ?? "", /secondbrain/i, "mcp-remote relays the server's identity"));
    cell("mcp-remote", "tools", () => assert.deepEqual(offered, served.expectedTools));
    scriptCells("mcp-remote", () => ({ client: "mcp-remote", vaultDir: served.vault.dir }), () => seen);
  });
}

if (wanted("inspector-cli")) {
  describe(`Inspector CLI ${PINS.inspectorCli}`, () => {
    let served: Served;
    const seen: Seen[] = [];
    let offered: string[] = [];

    before(async () => {
      served = await serve();
      const listed = await inspector(clients, served.cli.url, TOKEN, ["--method", "tools/list"]);
      assert.equal(listed.code, 0, `tools/list through the Inspector CLI: ${listed.stderr}`);
      offered = (JSON.parse(listed.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name).sort();
      for (const entry of MAIN_SCRIPT) {
        const call = entry.call(seen, "inspector-cli");
        // --tool-arg values are parsed as JSON where they parse, so each goes as its JSON.
        const toolArgs = Object.entries(call.args).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
        const outcome = await inspector(clients, served.cli.url, TOKEN, ["--method", "tools/call", "--tool-name", call.tool, "--tool-arg", ...toolArgs]);
        let text = `${outcome.stdout}\n${outcome.stderr}`;
        let isError: boolean | undefined;
        try {
          const result = JSON.parse(outcome.stdout) as { content?: Array<{ text?: string }>; isError?: boolean };
          text = (result.content ?? []).map((part) => part.text ?? "").join("\n");
          isError = result.isError === true;
        } catch {
          // A protocol error is printed as text, not as a result.
        }
        seen.push({ text, isError });
      }
    });

    after(async () => {
      await served?.stop();
    });

    cell("inspector-cli", "connect", () => assert.ok(offered.length > 0, "the Inspector CLI connected and listed tools"));
    cell("inspector-cli", "tools", () => assert.deepEqual(offered, served.expectedTools));
    scriptCells("inspector-cli", () => ({ client: "inspector-cli", vaultDir: served.vault.dir }), () => seen);
  });
}
