// Vault-wide changes are transactions (SPEC §9): the built server, killed with SIGKILL at points spread
// over note_move, tag_rename, vault_replace, note_merge and note_split across 400+ notes, restarts
// with every file of the vault in its complete before-state or its complete after-state, the index
// agreeing (links, broken links, tags), and the summary commit in the history exactly when the
// after-state was reached. Most kills come from the server's test-only crash hook
// (SECONDBRAIN_TEST_SIGKILL_AT_TXN_EVENT: the N-th durable event of a transaction, N drawn from each
// third of the transaction); one per operation lands at a random moment of the call instead.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { vaultDataDir } from "../../src/hosts/node/host";
import { callTool, type ToolCallResult } from "../support/server";
import { startCli, type CliServer } from "../support/cli";
import { seededRandom } from "../support/random";
import { vaultFiles } from "../support/vaults";

const TOKEN = "txn-crash-token-0123456789abcdef";
const VAULT = "crash";
const NOTES = 400;
const HOOK_KILLS_PER_OPERATION = 3;
/** Operations run two at a time, each in a folder of its own: much of a run waits on fsync. */
const WORKERS = 2;
// Kill points are random but reproducible: a failing run prints its seed; CRASH_SEED replays it.
const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);

interface Operation {
  tool: string;
  args: Record<string, unknown>;
  /** Durable events of its transaction: the journal saved, one per file step, applied, committed. */
  events(result: Record<string, unknown>): number;
}

const count = (result: Record<string, unknown>, key: string): number => (result[key] as unknown[]).length;

const OPERATIONS: Operation[] = [
  { tool: "note_move", args: { path: "target.md", to: "archive/Moved target.md" }, events: (result) => 3 + 1 + count(result, "notes") },
  { tool: "tag_rename", args: { from: "crashtag", to: "renamed/tag" }, events: (result) => 3 + count(result, "notes") },
  { tool: "vault_replace", args: { pattern: "old phrase", replace: "new phrase", literal: true, limit: 1000, dry_run: false }, events: (result) => 3 + count(result, "notes") },
  { tool: "note_merge", args: { path: "source.md", into: "target.md" }, events: (result) => 3 + 1 + count(result, "notes") + 1 },
  { tool: "note_split", args: { path: "big.md" }, events: (result) => 3 + count(result, "created") + 1 + count(result, "notes") },
];

type Snapshot = Record<string, string>;

let base: string;
let template: { vault: string; data: string };

function removeTree(dir: string): void {
  // rm -rf takes tens of milliseconds where rmSync's recursion took most of a second per tree.
  if (spawnSync("rm", ["-rf", dir]).status !== 0) rmSync(dir, { recursive: true, force: true });
}

/**
 * A copy of a template made of hard links (mtimes kept, so the index starts warm): safe because the
 * server never writes a file in place; it replaces files by rename, removes them, and adds new ones.
 * `copied` files are rewritten in place by someone (git refs), so they get a copy of their own;
 * `rename` maps a relative path of the template to the copy's.
 */
function linkTree(from: string, to: string, copied: (relative: string) => boolean, rename: (relative: string) => string, relative = ""): void {
  for (const entry of readdirSync(path.join(from, relative), { withFileTypes: true })) {
    const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
    const target = path.join(to, rename(child));
    if (entry.isDirectory()) {
      mkdirSync(target, { recursive: true });
      linkTree(from, to, copied, rename, child);
    } else if (copied(child)) cpSync(path.join(from, child), target, { preserveTimestamps: true });
    else linkSync(path.join(from, child), target);
  }
}

function snapshot(vault: string): Snapshot {
  return Object.fromEntries(vaultFiles(vault).map((file) => [file, createHash("sha256").update(readFileSync(path.join(vault, file))).digest("hex")]));
}

function writeNote(vault: string, relative: string, text: string): void {
  const file = path.join(vault, ...relative.split("/"));
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** One worker's vault and data folder, put back to the template before each run. */
class Workspace {
  readonly vault: string;
  readonly data: string;

  constructor(dir: string) {
    this.vault = path.join(dir, "vault");
    this.data = path.join(dir, "data");
  }

  restore(): void {
    removeTree(this.vault);
    removeTree(this.data);
    mkdirSync(this.vault, { recursive: true });
    mkdirSync(this.data, { recursive: true });
    linkTree(template.vault, this.vault, () => false, (relative) => relative);
    // The data folder is keyed by the vault's path; git objects are only ever added, refs rewritten.
    const from = path.relative(template.data, vaultDataDir(template.data, VAULT, template.vault)).split(path.sep).join("/");
    const to = path.relative(this.data, vaultDataDir(this.data, VAULT, this.vault)).split(path.sep).join("/");
    linkTree(
      template.data,
      this.data,
      (relative) => relative.includes("/history.git/") && !relative.includes("/history.git/objects/"),
      (relative) => (relative === from || relative.startsWith(`${from}/`) ? to + relative.slice(from.length) : relative),
    );
  }

  async serve(env: Record<string, string> = {}): Promise<{ cli: CliServer; client: Client }> {
    return serve(this.vault, this.data, env);
  }
}

async function serve(vault: string, data: string, env: Record<string, string> = {}): Promise<{ cli: CliServer; client: Client }> {
  const cli = await startCli(["serve", "--vault", `${VAULT}=${vault}`, "--data", data, "--port", "0"], { SECONDBRAIN_TOKEN: TOKEN, ...env });
  const client = new Client({ name: "txn-crash", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(cli.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  return { cli, client };
}

async function call(client: Client, tool: string, args: Record<string, unknown> = {}): Promise<ToolCallResult> {
  const result = await callTool(client, tool, args);
  assert.equal(result.isError, false, `${tool}: ${result.text}`);
  return result;
}

/** Everything vault_stats counts except the time of the last change: links, broken links, tags, words… */
async function stats(client: Client): Promise<Record<string, unknown>> {
  const { last_modified: _lastModified, ...rest } = (await call(client, "vault_stats")).structured.stats as Record<string, unknown>;
  return rest;
}

async function summaryCommits(client: Client, tool: string): Promise<number> {
  const revisions = (await call(client, "note_history", { path: "notes/n000.md", limit: 20 })).structured.revisions as Array<{ message: string }>;
  return revisions.filter((revision) => revision.message.startsWith(`${tool}:`)).length;
}

async function exited(cli: CliServer): Promise<NodeJS.Signals | null> {
  if (cli.child.exitCode === null && cli.child.signalCode === null) await new Promise((resolve) => cli.child.once("exit", resolve));
  return cli.child.signalCode;
}

/** One operation: a reference run for its before- and after-states, then its kills; returns how many. */
async function crashOperation(workspace: Workspace, operation: Operation, next: () => number): Promise<number> {
  workspace.restore();
  const beforeState = snapshot(workspace.vault);
  const reference = await workspace.serve();
  const beforeStats = await stats(reference.client);
  const started = Date.now();
  const result = await call(reference.client, operation.tool, operation.args);
  const duration = Date.now() - started;
  const afterState = snapshot(workspace.vault);
  const afterStats = await stats(reference.client);
  assert.equal(await summaryCommits(reference.client, operation.tool), 1);
  await reference.client.close();
  await reference.cli.stop("SIGKILL");
  const changed = Object.keys({ ...beforeState, ...afterState }).filter((file) => beforeState[file] !== afterState[file]);
  assert.ok(changed.length >= NOTES, `${operation.tool} changes ${changed.length} files`);
  const events = operation.events(result.structured);

  const plans: Array<{ event: number } | { delayMs: number }> = [];
  for (let part = 0; part < HOOK_KILLS_PER_OPERATION; part++) {
    const low = Math.floor((events * part) / HOOK_KILLS_PER_OPERATION) + 1;
    const high = Math.floor((events * (part + 1)) / HOOK_KILLS_PER_OPERATION);
    plans.push({ event: low + Math.floor(next() * (high - low + 1)) });
  }
  plans.push({ delayMs: Math.floor(next() * duration) });

  for (const [index, plan] of plans.entries()) {
    const where = `${operation.tool}, ${"event" in plan ? `event ${plan.event} of ${events}` : `${plan.delayMs} ms of ${duration}`} (seed ${SEED})`;
    workspace.restore();
    const doomed = await workspace.serve("event" in plan ? { SECONDBRAIN_TEST_SIGKILL_AT_TXN_EVENT: String(plan.event) } : {});
    const answered = callTool(doomed.client, operation.tool, operation.args).then(
      (answer) => !answer.isError,
      () => false,
    );
    if ("delayMs" in plan) {
      await new Promise((resolve) => setTimeout(resolve, plan.delayMs));
      doomed.cli.child.kill("SIGKILL");
    }
    assert.equal(await exited(doomed.cli), "SIGKILL", `killed: ${where}`);
    if ("event" in plan) assert.equal(await answered, false, `the call was cut off: ${where}`);
    await doomed.client.close().catch(() => undefined);

    const restarted = await workspace.serve();
    try {
      const state = snapshot(workspace.vault);
      const done = JSON.stringify(state) === JSON.stringify(afterState);
      assert.ok(done || JSON.stringify(state) === JSON.stringify(beforeState), `every file is in its before- or its after-state: ${where}`);
      if ("event" in plan) assert.ok(done, `a journaled change is completed at the start: ${where}`);
      assert.deepEqual(await stats(restarted.client), done ? afterStats : beforeStats, `links, broken links and tags agree with the files: ${where}`);
      assert.equal(await summaryCommits(restarted.client, operation.tool), done ? 1 : 0, `the summary commit exactly when the after-state was reached: ${where}`);
      if ("event" in plan) {
        const listed = (await call(restarted.client, "vault_list")).structured.vaults as Array<{ recovered?: Record<string, unknown> }>;
        const recovered = listed[0]!.recovered;
        assert.deepEqual(recovered && { operation: recovered.operation, outcome: recovered.outcome }, { operation: operation.tool, outcome: "completed" }, `vault_list reports the recovery: ${where}`);
        assert.ok(Number(recovered!.files) >= NOTES, `${where}: files ${String(recovered!.files)}`);
        assert.ok(restarted.cli.logs.some((record) => record.event === "transaction_recovered" && record.operation === operation.tool && record.outcome === "completed"));
      }
      if (index === plans.length - 1) {
        // The same call again after the restart never applies it twice.
        const again = await callTool(restarted.client, operation.tool, operation.args);
        assert.equal(again.isError, done, `${operation.tool} again, refused exactly when it is done already: ${again.text}`);
        assert.deepEqual(snapshot(workspace.vault), afterState, `after the call again the vault is in the after-state, once: ${where}`);
      }
    } finally {
      await restarted.client.close().catch(() => undefined);
      // Its state is thrown away by the next restore: no graceful shutdown needed.
      await restarted.cli.stop("SIGKILL");
    }
  }
  return plans.length;
}

before(async () => {
  base = mkdtempSync(path.join(os.tmpdir(), "sbmcp-txn-crash-"));
  template = { vault: path.join(base, "template", "vault"), data: path.join(base, "template", "data") };
  writeNote(template.vault, "target.md", "# Target\n\nWhere every note points.\n");
  writeNote(template.vault, "source.md", "---\naliases: [Origin]\ntags: [merged]\n---\n# Source\n\nText that moves into the target.\n\n## Detail\n\nMore of it.\n");
  const parts = [1, 2, 3, 4, 5].map((part) => `## Part ${part}\n\nSection ${part} of the big note, with words of its own.\n`);
  writeNote(template.vault, "big.md", `# Big\n\nAn introduction.\n\n${parts.join("\n")}`);
  for (let note = 0; note < NOTES; note++) {
    writeNote(
      template.vault,
      `notes/n${String(note).padStart(3, "0")}.md`,
      `---\ntags: [crashtag, other]\n---\n# Note ${note}\n\nSee [[target]], [[source]] and [[big#Part 3]].\n\nThe old phrase number ${note}. #crashtag\n`,
    );
  }
  // The template's data folder holds the index snapshot and the history's first commit.
  const { cli, client } = await serve(template.vault, template.data);
  await cli.waitForLog((record) => record.event === "history_baseline", 60_000);
  await client.close();
  assert.equal(await cli.stop(), 0);
});

after(() => {
  removeTree(base);
});

test(`SIGKILL during vault-wide changes over ${NOTES} notes: after a restart each is wholly done (with its one summary commit) or wholly undone (seed ${SEED})`, async () => {
  const queue = OPERATIONS.map((operation, index) => ({ operation, next: seededRandom(SEED + index) }));
  let kills = 0;
  await Promise.all(
    Array.from({ length: WORKERS }, async (_, worker) => {
      const workspace = new Workspace(path.join(base, `worker-${worker}`));
      for (let item = queue.shift(); item; item = queue.shift()) {
        const done = await crashOperation(workspace, item.operation, item.next);
        kills += done;
      }
    }),
  );
  assert.ok(kills >= 20, `${kills} kills`);
});
