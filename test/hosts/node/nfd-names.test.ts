// Names on disk in another Unicode form than NFC, at the vault port: both walks list them by their
// NFC paths and note their names on disk alike, and every reader (the engine's, the bulk ingest's
// worker threads) finds the file by its NFC path.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FileStat } from "../../../src/core/ports";
import { WorkerBulkIngest } from "../../../src/hosts/node/bulk-ingest";
import { FsVault } from "../../../src/hosts/node/fs-vault";
import { JsonLineLogger } from "../../../src/hosts/node/services";

const nfd = (name: string): string => name.normalize("NFD");
let base: string;
let root: string;

before(() => {
  base = mkdtempSync(path.join(os.tmpdir(), "sbmcp-nfd-"));
  root = path.join(base, "vault");
  mkdirSync(path.join(root, nfd("Übersicht"), nfd("Ärger")), { recursive: true });
  writeFileSync(path.join(root, nfd("Café.md")), "decomposed café\n");
  writeFileSync(path.join(root, nfd("Übersicht"), nfd("Ärger"), nfd("Grüße.md")), "decomposed greetings\n");
  // Both forms of one name in one folder: the NFC file is the one the vault shows.
  writeFileSync(path.join(root, "Thé.md"), "composed tea\n");
  writeFileSync(path.join(root, nfd("Thé.md")), "decomposed tea\n");
  writeFileSync(path.join(root, "plain.md"), "ascii\n");
});
after(() => rmSync(base, { recursive: true, force: true }));

const byPath = (a: FileStat, b: FileStat): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
const EXPECTED = ["Café.md", "Thé.md", "plain.md", "Übersicht/Ärger/Grüße.md"].sort();

test("the walk and the periodic scan list the same NFC paths and learn the same names on disk", async () => {
  const walked = new FsVault(root);
  const listed = (await walked.listFiles()).sort(byPath);
  assert.deepEqual(listed.map((file) => file.path), EXPECTED);
  const scanned = new FsVault(root);
  const scan = (await scanned.scanFiles(async () => undefined)).sort(byPath);
  assert.deepEqual(scan, listed);
  for (const vault of [walked, scanned]) {
    assert.equal(vault.diskPath("Übersicht/Ärger/Grüße.md"), nfd("Übersicht/Ärger/Grüße.md"));
    assert.equal(vault.diskPath("Café.md"), nfd("Café.md"));
    assert.equal(vault.diskPath("Thé.md"), "Thé.md");
    assert.equal(new TextDecoder().decode(await vault.readBytes("Thé.md")), "composed tea\n");
    assert.equal(new TextDecoder().decode(await vault.readBytes("Übersicht/Ärger/Grüße.md")), "decomposed greetings\n");
  }
});

test("a vault that has not walked yet finds an NFD file by its NFC path on the first miss", async () => {
  const fresh = new FsVault(root);
  assert.equal((await fresh.stat("Übersicht/Ärger/Grüße.md"))?.size, "decomposed greetings\n".length);
  assert.equal(new TextDecoder().decode(await fresh.readBytes("Café.md")), "decomposed café\n");
  assert.equal(await fresh.stat("Übersicht/Ärger/Missing.md"), null);
});

test("the bulk ingest's worker threads read NFD files by their NFC paths", { skip: WorkerBulkIngest.available() ? false : "no worker entry here" }, async () => {
  const vault = new FsVault(root);
  const files = await vault.listFiles();
  const bulk = new WorkerBulkIngest({ root, vault: "nfd", workers: 1, logger: new JsonLineLogger({ write: () => undefined }), diskPath: (relative) => vault.diskPath(relative) });
  const hashes = new Map<string, string | null>();
  await bulk.ingest(files, async (batch) => {
    for (const file of batch.files) hashes.set(file.path, file.hash);
  });
  assert.deepEqual([...hashes.keys()].sort(), EXPECTED);
  for (const [file, hash] of hashes) assert.notEqual(hash, null, `${file} was read`);
});
