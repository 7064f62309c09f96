// The persisted index: a restart over an unchanged vault re-ingests nothing, changes re-ingest exactly
// the changed files, and a damaged snapshot is discarded and rebuilt without refusing service.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { callTool } from "../support/server";
import { startCli, type CliServer } from "../support/cli";
import { EDGE_VAULT, tempVault, type TempVault } from "../support/vaults";

const TOKEN = "persistence-test-token-0123456789";
let vault: TempVault;

before(() => {
  vault = tempVault(EDGE_VAULT);
});
after(() => vault.cleanup());

async function serve(): Promise<CliServer> {
  return startCli(["serve", "--vault", `edge=${vault.dir}`, "--data", vault.dataDir, "--port", "0"], { SECONDBRAIN_TOKEN: TOKEN });
}

async function reconciled(cli: CliServer): Promise<Record<string, unknown>> {
  return cli.waitForLog((record) => record.event === "index_reconciled");
}

function snapshotFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith(".snapshot")) found.push(full.replace(/index-metadata-[0-9a-f]{8}\.snapshot$/, "index-metadata-<id>.snapshot"));
    }
  };
  walk(vault.dataDir);
  return found;
}

async function search(url: string, query: string): Promise<string[]> {
  const client = new Client({ name: "persistence", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  const result = await callTool(client, "note_search", { query });
  await client.close();
  return (result.structured.hits as Array<{ path: string }>).map((hit) => hit.path);
}

test("first start ingests everything and persists on SIGTERM", async () => {
  const cli = await serve();
  const first = await reconciled(cli);
  assert.equal(first.snapshot, "missing");
  assert.equal(first.reingested, 21);
  assert.equal(await cli.stop(), 0);
  const files = snapshotFiles().map((file) => path.basename(file));
  assert.deepEqual(files, ["index-base.snapshot", "index-metadata-<id>.snapshot"], "one base and its notes' metadata, no journal, nothing else in the data folder");
  assert.ok(!readdirSync(vault.dir).some((name) => name.endsWith(".snapshot")), "none in the vault");
});

test("a restart over an unchanged vault re-ingests 0 files", async () => {
  const cli = await serve();
  const report = await reconciled(cli);
  assert.equal(report.snapshot, "loaded");
  assert.equal(report.reingested, 0);
  assert.equal(report.unchanged, 21);
  assert.equal((await search(cli.url, "bucket refills"))[0], "wiki/rate-limiting.md");
  assert.equal(await cli.stop(), 0);
});

test("changing, adding and deleting one file each re-ingests exactly those", async () => {
  const changed = path.join(vault.dir, "wiki", "secrets.md");
  writeFileSync(changed, "# Secrets placeholder\n\nNow about zebras.\n");
  const later = new Date(Date.now() + 5000);
  utimesSync(changed, later, later);
  writeFileSync(path.join(vault.dir, "wiki", "new-note.md"), "# New\n\nQuokkas live here.\n");
  rmSync(path.join(vault.dir, "archive", "orphan.md"));
  const cli = await serve();
  const report = await reconciled(cli);
  assert.equal(report.changed, 1);
  assert.equal(report.added, 1);
  assert.equal(report.removed, 1);
  assert.deepEqual(report.reingested_paths, ["wiki/new-note.md", "wiki/secrets.md"]);
  assert.deepEqual(report.removed_paths, ["archive/orphan.md"]);
  assert.deepEqual(await search(cli.url, "quokkas"), ["wiki/new-note.md"]);
  assert.deepEqual(await search(cli.url, "zebras"), ["wiki/secrets.md"]);
  assert.deepEqual(await search(cli.url, "orphan"), []);
  assert.equal(await cli.stop(), 0);
});

function snapshotFile(name: string): string {
  const found = snapshotFiles().find((file) => path.basename(file) === name);
  assert.ok(found, `${name} in the data folder`);
  return found;
}

test("a truncated journal is ignored: the files it held are re-ingested, the base stays", async () => {
  assert.deepEqual(snapshotFiles().map((file) => path.basename(file)).sort(), ["index-base.snapshot", "index-journal.snapshot", "index-metadata-<id>.snapshot"]);
  const journal = snapshotFile("index-journal.snapshot");
  truncateSync(journal, Math.floor(statSync(journal).size / 2));
  const cli = await serve();
  const discarded = await cli.waitForLog((record) => record.event === "index_discarded");
  assert.equal(discarded.level, "warn");
  assert.equal(discarded.file, "index-journal");
  const report = await reconciled(cli);
  assert.equal(report.snapshot, "loaded");
  assert.deepEqual(report.discarded, ["index-journal"]);
  // The base is the first start's: against it, one file changed, one was added and one removed.
  assert.deepEqual(report.reingested_paths, ["wiki/new-note.md", "wiki/secrets.md"]);
  assert.deepEqual(report.removed_paths, ["archive/orphan.md"]);
  assert.equal(report.unchanged, 19);
  assert.deepEqual(await search(cli.url, "quokkas"), ["wiki/new-note.md"]);
  assert.equal(await cli.stop(), 0);
  const healed = await serve();
  assert.equal((await reconciled(healed)).reingested, 0);
  await healed.stop();
});

test("a truncated base discards the snapshot, which is rebuilt while the server serves", async () => {
  const snapshot = snapshotFile("index-base.snapshot");
  truncateSync(snapshot, Math.floor(statSync(snapshot).size / 2));
  const cli = await serve();
  const discarded = await cli.waitForLog((record) => record.event === "index_discarded");
  assert.equal(discarded.level, "warn");
  const report = await reconciled(cli);
  assert.equal(report.snapshot, "discarded");
  assert.equal(report.reingested, 21);
  assert.deepEqual(await search(cli.url, "quokkas"), ["wiki/new-note.md"]);
  assert.equal(await cli.stop(), 0);
  assert.deepEqual(snapshotFiles().map((file) => path.basename(file)), ["index-base.snapshot", "index-metadata-<id>.snapshot"], "the stale journal is gone");
  const healed = await serve();
  assert.equal((await reconciled(healed)).reingested, 0);
  await healed.stop();
});
