// The vault port on disk: walks skip dot-entries, and no path — a symlink included — leads outside.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ToolError } from "../../../src/core/errors";
import { NodeVaultHost } from "../../../src/hosts/node/host";
import { JsonLineLogger } from "../../../src/hosts/node/services";
import { EDGE_VAULT, tempVault, type TempVault } from "../../support/vaults";

let vault: TempVault;
let host: NodeVaultHost;
let outside: string;

before(async () => {
  vault = tempVault(EDGE_VAULT);
  outside = path.join(path.dirname(vault.dir), "outside");
  mkdirSync(outside);
  writeFileSync(path.join(outside, "secret.md"), "Outside the vault.\n");
  symlinkSync(outside, path.join(vault.dir, "escape"));
  symlinkSync(path.join(outside, "secret.md"), path.join(vault.dir, "wiki", "leak.md"));
  mkdirSync(path.join(vault.dir, "wiki", "real"));
  writeFileSync(path.join(vault.dir, "wiki", "real", "inside.md"), "Inside.\n");
  symlinkSync(path.join(vault.dir, "wiki", "real"), path.join(vault.dir, "alias-folder"));
  host = new NodeVaultHost({ name: "edge", root: vault.dir, dataDir: vault.dataDir, logger: new JsonLineLogger({ write: () => undefined }), watch: false });
  await host.start();
});
after(async () => {
  await host.stop();
  vault.cleanup();
});

async function refused(input: string): Promise<void> {
  await assert.rejects(host.engine.read(input, { note: true }), (error: unknown) => error instanceof ToolError && error.code === "invalid_path" && /outside the vault/.test(error.message));
}

test("a symlinked folder or file leading outside the vault is unreachable", async () => {
  await refused("escape/secret.md");
  await refused("wiki/leak.md");
  await refused("escape/not-yet-there.md");
});

test("walks neither list nor index what a symlink brings in from outside", () => {
  const paths = host.engine.files().map((file) => file.path);
  assert.ok(!paths.some((p) => p.startsWith("escape/")));
  assert.ok(!paths.includes("wiki/leak.md"));
});

test("a symlink that stays inside the vault is followed", async () => {
  const paths = host.engine.files().map((file) => file.path);
  assert.ok(paths.includes("alias-folder/inside.md"));
  const read = await host.engine.read("alias-folder/inside.md");
  assert.equal(read.text, "Inside.\n");
});

test("hidden entries never reach the file table", () => {
  const paths = host.engine.files().map((file) => file.path);
  assert.ok(paths.every((p) => p.split("/").every((segment) => !segment.startsWith("."))));
  assert.equal(paths.filter((p) => p.endsWith(".md")).length, 21, "the 19 notes, wiki/real/inside.md and its view through alias-folder");
});

test("the periodic check's scan lists what the walk lists, symlinks and hidden entries alike", async () => {
  const byPath = (a: { path: string }, b: { path: string }): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  const walked = (await host.vault.listFiles()).sort(byPath);
  const scanned = (await host.vault.scanFiles(async () => undefined)).sort(byPath);
  assert.ok(walked.length > 20);
  assert.deepEqual(scanned, walked);
});

test("folders are made inside the vault, never the vault's own folder", async () => {
  await host.vault.makeFolder(path.join(vault.dir, "made", "two", "deep"));
  assert.ok(existsSync(path.join(vault.dir, "made", "two", "deep")));
  const gone = `${vault.dir}-gone`;
  renameSync(vault.dir, gone);
  try {
    const missing = (error: unknown): boolean => error instanceof ToolError && error.code === "unavailable" && /vault "edge" is missing/.test(error.message);
    await assert.rejects(host.vault.makeFolder(path.join(vault.dir, "made", "again")), missing);
    await assert.rejects(host.vault.makeFolder(vault.dir), missing);
    await assert.rejects(host.writer.writeFile("made/note.md", new TextEncoder().encode("x\n"), null), missing);
    assert.equal(existsSync(vault.dir), false);
    assert.equal(host.vault.present(), false);
    assert.deepEqual(await host.vault.listFiles(), []);
  } finally {
    renameSync(gone, vault.dir);
  }
  assert.equal(host.vault.present(), true);
  await assert.rejects(host.vault.makeFolder(path.join(path.dirname(vault.dir), "beside")), /outside the vault/);
  assert.equal(existsSync(path.join(path.dirname(vault.dir), "beside")), false);
});
