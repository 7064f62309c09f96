// npm run test:clients: the real-client matrix. Installs the pinned clients into their own cache
// (install.ts), starts the built server on a copy of the Obsidian Help vault once per client, and runs
// the same script through each: search → read → hash-checked edit → stale-hash conflict → missing note
// → list arguments → limit: 500 → a large result. Claude Code, Gemini CLI and Codex run it as their
// scripted model asks (fake-models.ts) and are judged on what they hand that model; mcp-remote and the
// Inspector CLI have no model and are judged on what they return. The model clients then fetch three
// large results from a server whose response limit is raised, to measure what each keeps of them
// (the README's "What clients keep").
// Env: CLIENTS=claude-code,gemini-cli,codex,mcp-remote,inspector-cli (a subset), CLIENT_TIMEOUT_S (per
// model session, default 300), CLIENTS_OUT (keep logs there; default a temp folder, printed),
// SECONDBRAIN_CLIENTS_CACHE (where the clients are installed).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startCli, type CliServer } from "../support/cli";
import { HELP_VAULT, tempVault, type TempVault } from "../support/vaults";
import { CHECKS, describeKept, keptOf, type Kept } from "./checks";
import { connectMcpRemote, inspector, runClaudeCode, runCodex, runGeminiCli, type ClientRun, type ModelClientOptions } from "./drivers";
import { startFakeModel, type FakeModel, type Vendor } from "./fake-models";
import { ensureClients, pins, type InstalledClients } from "./install";
import { BULK_FOLDER, BULK_NOTES, KEEPS_SCRIPT, MAIN_SCRIPT, type Seen } from "./scenario";

const TOKEN = "client-matrix-token-5f0c7d2e9a41b8";
const SESSION_TIMEOUT_MS = Number(process.env.CLIENT_TIMEOUT_S ?? 300) * 1000;
const ONLY = process.env.CLIENTS?.split(",").map((name) => name.trim());
const OUT = process.env.CLIENTS_OUT ? path.resolve(process.env.CLIENTS_OUT) : mkdtempSync(path.join(os.tmpdir(), "sbmcp-clients-"));
const PINS = pins();
const RAISED_LIMIT = 300_000;

const COLUMNS = ["connect", "tools", ...MAIN_SCRIPT.map((entry) => entry.step), "no schema warnings", "keeps as the README says"] as const;
type Column = (typeof COLUMNS)[number];
const matrix = new Map<string, Map<Column, string>>();
const keeps = new Map<string, string[]>();
const notes: string[] = [];

function mark(client: string, column: Column, verdict: string): void {
  if (!matrix.has(client)) matrix.set(client, new Map());
  matrix.get(client)?.set(column, verdict);
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

function markdown(header: string[], rows: string[][]): string {
  return [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`, ...rows.map((row) => `| ${row.join(" | ")} |`)].join("\n");
}

function report(): string {
  const steps = markdown(
    ["client", ...COLUMNS],
    [...matrix].map(([client, cells]) => [client, ...COLUMNS.map((column) => cells.get(column) ?? "–")]),
  );
  const kept = markdown(
    [`what the model got (response limit ${RAISED_LIMIT.toLocaleString("en")})`, ...KEEPS_SCRIPT.map((entry) => entry.step)],
    [...keeps].map(([client, cells]) => [client, ...cells]),
  );
  return [steps, ...(keeps.size > 0 ? ["", kept] : []), "", ...notes.map((line) => `- ${line}`)].join("\n");
}

let clients: InstalledClients;

before(async () => {
  clients = await ensureClients();
  notes.push(`clients ${clients.installed ? "installed" : "reused from the cache"} in ${clients.seconds.toFixed(1)} s (${clients.dir})`);
  console.log(`clients ${clients.installed ? "installed" : "reused"} in ${clients.seconds.toFixed(1)} s: ${clients.dir}; logs: ${OUT}`);
});

after(() => {
  const text = report();
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

/** The built server on a fresh copy of the Help vault; `limit` raises its response limit (a config file). */
async function serve(options: { raisedLimit?: number; prepare?(vaultDir: string): void } = {}): Promise<Served> {
  const vault = tempVault(HELP_VAULT);
  options.prepare?.(vault.dir);
  const args = ["serve", "--vault", `help=${vault.dir}`, "--data", vault.dataDir, "--port", "0", "--no-history"];
  if (options.raisedLimit !== undefined) {
    const config = path.join(path.dirname(vault.dir), "config.yml");
    writeFileSync(config, `users:\n  - name: matrix\n    tokens: ["${TOKEN}"]\nlimits:\n  max_response_bytes: ${options.raisedLimit}\n`, { mode: 0o600 });
    args.push("--config", config);
  }
  const cli = await startCli(args, { SECONDBRAIN_TOKEN: TOKEN });
  const reference = new Client({ name: "client-matrix-reference", version: "1.0.0" });
  await reference.connect(new StreamableHTTPClientTransport(new URL(cli.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
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

/** Small notes enough for a note_list result of about 150 KB, from a tool that declares no result size. */
function addBulkNotes(vaultDir: string): void {
  mkdirSync(path.join(vaultDir, BULK_FOLDER));
  for (let i = 0; i < BULK_NOTES; i++) writeFileSync(path.join(vaultDir, BULK_FOLDER, `Bulk note ${String(i).padStart(4, "0")}.md`), `Filler ${i} for a long listing.\n`);
}

function wanted(client: string): boolean {
  return ONLY === undefined || ONLY.includes(client);
}

/** The checks every client goes through, on what it passed on of each scripted call. */
function scriptCells(client: string, vaultDir: () => string, seen: () => ReadonlyArray<Seen | undefined>): void {
  MAIN_SCRIPT.forEach((entry, index) => cell(client, entry.step, () => CHECKS[entry.step](seen()[index], { client, vaultDir: vaultDir() })));
}

interface ModelClient {
  name: string;
  label: string;
  vendor: Vendor;
  run(options: ModelClientOptions): Promise<ClientRun>;
  /** How `mcp list` shows the server connected. */
  connected: RegExp;
  /**
   * What the client keeps of each KEEPS_SCRIPT result, as the README's "What clients keep" says, under
   * its defaults and under each configuration the README suggests (configExtra).
   */
  keeps: Array<{ label: string; configExtra: string; expect: Keeps[] }>;
}

/** The whole result, or its first `head` and last `tail` characters (the client's own wrapping aside). */
type Keeps = "whole" | { head: number; tail: number };
const CUT_TOLERANCE = 100;

function keepsAsDocumented(kept: Kept, expected: Keeps): boolean {
  if (expected === "whole") return kept.whole;
  return !kept.whole && Math.abs(kept.head - expected.head) <= CUT_TOLERANCE && Math.abs(kept.tail - expected.tail) <= CUT_TOLERANCE;
}

const MODEL_CLIENTS: ModelClient[] = [
  {
    name: "claude-code",
    label: `Claude Code ${PINS.claudeCode}`,
    vendor: "anthropic",
    run: runClaudeCode,
    connected: /secondbrain: .*Connected/,
    // A result over what its tool declares goes to a file; the model gets the path and a 2,000-character preview.
    keeps: [{ label: "defaults", configExtra: "", expect: ["whole", { head: 2000, tail: 0 }, "whole", "whole"] }],
  },
  {
    name: "gemini-cli",
    label: `Gemini CLI ${PINS.geminiCli}`,
    vendor: "gemini",
    run: runGeminiCli,
    connected: /secondbrain.*Connected/,
    keeps: [{ label: "defaults", configExtra: "", expect: [{ head: 8000, tail: 32000 }, { head: 8000, tail: 32000 }, "whole", "whole"] }],
  },
  {
    name: "codex",
    label: `Codex ${PINS.codex}`,
    vendor: "openai",
    run: runCodex,
    connected: /secondbrain\s+http:\/\/127\.0\.0\.1\S*\s+SECONDBRAIN_TOKEN\s+enabled/,
    keeps: [
      { label: "defaults", configExtra: "", expect: [{ head: 6000, tail: 6000 }, { head: 6000, tail: 6000 }, { head: 6000, tail: 6000 }, { head: 6000, tail: 6000 }] },
      {
        label: "tool_output_token_limit = 10000",
        configExtra: "tool_output_token_limit = 10000",
        expect: [{ head: 24000, tail: 24000 }, { head: 24000, tail: 24000 }, "whole", "whole"],
      },
    ],
  },
];

const modelClients = MODEL_CLIENTS.filter((candidate) => wanted(candidate.name));
let raised: Served | undefined;
if (modelClients.length > 0) {
  before(async () => {
    raised = await serve({ raisedLimit: RAISED_LIMIT, prepare: addBulkNotes });
  });
  after(async () => {
    await raised?.stop();
  });
}

async function session(spec: ModelClient, work: string, mcpUrl: string, script: typeof KEEPS_SCRIPT, configExtra?: string): Promise<{ model: FakeModel; run: ClientRun }> {
  mkdirSync(work, { recursive: true });
  const model = await startFakeModel(spec.vendor, script, spec.name, path.join(work, "model"));
  try {
    const run = await spec.run({ clients, work, mcpUrl, token: TOKEN, modelUrl: model.url, timeoutMs: SESSION_TIMEOUT_MS, ...(configExtra ? { configExtra } : {}) });
    writeFileSync(path.join(work, "session.stdout"), run.session.stdout);
    writeFileSync(path.join(work, "session.stderr"), run.session.stderr);
    writeFileSync(path.join(work, "mcp-list.txt"), `${run.listing.stdout}\n${run.listing.stderr}`);
    return { model, run };
  } finally {
    await model.close();
  }
}

for (const spec of modelClients) {
  describe(spec.label, () => {
    let served: Served;
    let main: { model: FakeModel; run: ClientRun };
    const measured: Array<{ label: string; kept: Kept[]; expect: Keeps[] }> = [];

    before(async () => {
      served = await serve();
      main = await session(spec, path.join(OUT, spec.name), served.cli.url, MAIN_SCRIPT);
      const { run, model } = main;
      notes.push(`${spec.name}: scripted session ${run.session.seconds.toFixed(1)} s, exit ${run.session.code}${run.session.timedOut ? " (timed out)" : ""}`);
      const large = MAIN_SCRIPT.findIndex((entry) => entry.step === "large");
      const direct = await served.direct("vault_grep", MAIN_SCRIPT[large]?.call([], spec.name).args ?? {});
      notes.push(`${spec.name}: large result at the default limit: ${describeKept(keptOf(model.seen[large]?.text ?? "", direct))}`);

      for (const variant of spec.keeps) {
        const server = raised;
        assert.ok(server, "the raised-limit server runs");
        const work = path.join(OUT, `${spec.name}-keeps-${measured.length}`);
        const { model: keepsModel } = await session(spec, work, server.cli.url, KEEPS_SCRIPT, variant.configExtra);
        const calls = KEEPS_SCRIPT.map((entry) => entry.call([], spec.name));
        const directs = await Promise.all(calls.map((call) => server.direct(call.tool, call.args)));
        const kept = directs.map((direct, index) => keptOf(keepsModel.seen[index]?.text ?? "", direct));
        measured.push({ label: variant.label, kept, expect: variant.expect });
        keeps.set(variant.configExtra ? `${spec.label} (${variant.label})` : spec.label, kept.map(describeKept));
      }
    });

    after(async () => {
      await served?.stop();
    });

    cell(spec.name, "connect", () => {
      assert.match(`${main.run.listing.stdout}\n${main.run.listing.stderr}`, spec.connected, "the client lists the server");
      assert.ok(main.model.finished, `the session went through every scripted step (exit ${main.run.session.code}): ${main.run.session.stderr.slice(-1500)}`);
    });
    cell(spec.name, "tools", () => assert.deepEqual([...main.model.offered].sort(), served.expectedTools, "the model was offered every tool"));
    scriptCells(spec.name, () => served.vault.dir, () => main.model.seen);
    if (spec.name === "gemini-cli") {
      cell(spec.name, "no schema warnings", () => {
        assert.doesNotMatch(main.run.session.stderr, /strict mode|allowUnionTypes/, "Gemini CLI compiled every schema without a warning");
      });
    }
    cell(spec.name, "keeps as the README says", () => {
      for (const { label, kept, expect } of measured) {
        KEEPS_SCRIPT.forEach((entry, index) => {
          const got = kept[index];
          const expected = expect[index];
          assert.ok(got && expected, `${label}, ${entry.step}: measured`);
          // Whatever a client cuts, a result's start reaches the model: that is where a cut result's note is.
          assert.ok(got.head >= Math.min(1000, got.total), `${label}, ${entry.step}: the model got the result's start (${describeKept(got)})`);
          assert.ok(keepsAsDocumented(got, expected), `${label}, ${entry.step}: the README says ${JSON.stringify(expected)}, the model got ${describeKept(got)}`);
        });
      }
    });
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
    scriptCells("mcp-remote", () => served.vault.dir, () => seen);
  });
}

if (wanted("inspector-cli")) {
  describe(`Inspector CLI ${PINS.inspectorCli}`, () => {
    let served: Served;
    const seen: Seen[] = [];
    let offered: string[] = [];
    const home = path.join(OUT, "inspector-cli");

    before(async () => {
      served = await serve();
      const listed = await inspector(clients, served.cli.url, TOKEN, home, ["--method", "tools/list"]);
      assert.equal(listed.code, 0, `tools/list through the Inspector CLI: ${listed.stderr}`);
      offered = (JSON.parse(listed.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name).sort();
      for (const entry of MAIN_SCRIPT) {
        const call = entry.call(seen, "inspector-cli");
        // --tool-arg values are parsed as JSON where they parse, so each goes as its JSON.
        const toolArgs = Object.entries(call.args).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
        const outcome = await inspector(clients, served.cli.url, TOKEN, home, ["--method", "tools/call", "--tool-name", call.tool, "--tool-arg", ...toolArgs]);
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
    scriptCells("inspector-cli", () => served.vault.dir, () => seen);
  });
}
