// A full disk, for real: the vault and the data folder each on a small tmpfs, filled up while tools
// write. Writes that cannot finish say which device is full and leave no temp file, no 0-byte or partial
// trash copy and no index temp behind; a history commit cut short leaves the history as it was. Once
// space returns, commits (also of a blob whose write failed before) succeed, `git fsck` is clean and every
// revision can be diffed and restored. Needs root to mount; skipped with a message otherwise.
import { after, before, test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { closeSync, cpSync, fstatSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { promises as fsp } from "node:fs";
import { createHash } from "node:crypto";
import os from "node:os";
import { deflateSync, inflateSync } from "node:zlib";
import path from "node:path";
import * as git from "isomorphic-git";
import { vaultDataDir } from "../../src/hosts/node/host";
import { startTestServer, type TestServer, type ToolCallResult } from "../support/server";
import { EDGE_VAULT, tempVault } from "../support/vaults";
import { DataFolderLock } from "../../src/hosts/node/data-lock";

/** Room for the fixture, its history and index, and the notes written here; the rest is filled up. */
const MOUNT_SIZE = { vault: "16m", data: "8m" };
const PAGE = 4096;

let base = "";
let skipReason: string | null = null;
const mounts: string[] = [];
let vaultMount = "";
let dataMount = "";
let server: TestServer | null = null;
let gitdir = "";

before(async () => {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) {
    skipReason = "mounting a tmpfs needs root; run the tests as root to check behaviour on a full disk";
    return;
  }
  base = mkdtempSync(path.join(os.tmpdir(), "sbmcp-full-"));
  vaultMount = path.join(base, "vault-fs");
  dataMount = path.join(base, "data-fs");
  for (const [mount, size] of [[vaultMount, MOUNT_SIZE.vault], [dataMount, MOUNT_SIZE.data]] as const) {
    mkdirSync(mount);
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", mount], { stdio: "pipe" });
    } catch (error) {
      const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
      skipReason = `mounting a tmpfs is not allowed here (${stderr || (error as Error).message})`;
      return;
    }
    mounts.push(mount);
  }
  const copy = tempVault(EDGE_VAULT);
  const dir = path.join(vaultMount, "vault");
  cpSync(copy.dir, dir, { recursive: true });
  copy.cleanup();
  const dataDir = path.join(dataMount, "data");
  server = await startTestServer({ fixture: EDGE_VAULT, vault: { dir, dataDir, cleanup: () => undefined }, extra: { watch: false } });
  gitdir = path.join(vaultDataDir(dataDir, "test", dir), "history.git");
});

after(async () => {
  await server?.stop();
  for (const mount of mounts.reverse()) {
    if (spawnSync("umount", [mount]).status !== 0) spawnSync("umount", ["-l", mount]);
  }
  if (base !== "") rmSync(base, { recursive: true, force: true });
});

function skipped(t: TestContext): boolean {
  if (skipReason === null) {
    freeSpace();
    return false;
  }
  t.skip(skipReason);
  return true;
}

function call(name: string, args: Record<string, unknown>): Promise<ToolCallResult> {
  return server!.call(name, args);
}

/** Fills the file system up to `leave` free bytes (rounded to pages) with a file outside the vault. */
function fill(mount: string, leave: number): string {
  const file = path.join(mount, `filler-${readdirSync(mount).length}`);
  const fd = openSync(file, "w");
  const chunk = Buffer.alloc(64 * 1024, 7);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOSPC") throw error;
  }
  ftruncateSync(fd, Math.max(0, fstatSync(fd).size - leave));
  closeSync(fd);
  return file;
}

function freeSpace(): void {
  for (const mount of mounts) {
    for (const name of readdirSync(mount)) if (name.startsWith("filler-")) rmSync(path.join(mount, name));
  }
}

/** Text of random lower-case words (seeded): compresses poorly, so its git object stays large. */
function words(seed: number, bytes: number): string {
  let state = seed >>> 0 || 1;
  const next = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x100000000;
  };
  const parts: string[] = [`# Filler ${seed}\n\n`];
  let size = parts[0]!.length;
  while (size < bytes) {
    const length = 3 + Math.floor(next() * 7);
    let word = "";
    for (let i = 0; i < length; i++) word += String.fromCharCode(97 + Math.floor(next() * 26));
    const piece = size % 80 > 70 ? `${word}\n` : `${word} `;
    parts.push(piece);
    size += piece.length;
  }
  return `${parts.join("")}\n`;
}

/** Every file below `root` (hidden ones too), relative, with its size. */
function filesBelow(root: string): Map<string, number> {
  const found = new Map<string, number>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else found.set(path.relative(root, full), statSync(full).size);
    }
  };
  walk(root);
  return found;
}

/** Temp files of any writer here, and empty files that were not there before. */
function leftovers(root: string, emptyBefore: ReadonlySet<string>): string[] {
  return [...filesBelow(root)]
    .filter(([file, size]) => /(^|\/)\.sbtmp-|tmp_obj_|\.lock$|\.tmp$/.test(file.split(path.sep).join("/")) || (size === 0 && !emptyBefore.has(file)))
    .map(([file, size]) => `${file} (${size} bytes)`);
}

function emptyFiles(root: string): Set<string> {
  return new Set([...filesBelow(root)].filter(([, size]) => size === 0).map(([file]) => file));
}

function errorOf(result: ToolCallResult): { code: string; state: string } {
  assert.equal(result.isError, true, `expected a tool error, got: ${result.text.slice(0, 300)}`);
  return result.structured.error as { code: string; state: string };
}

async function head(): Promise<string> {
  return git.resolveRef({ fs: { promises: fsp }, gitdir, ref: "refs/heads/main" });
}

test("a full vault: note_write, note_create and attachment_put say so, change nothing and leave no temp or trash file", async (t) => {
  if (skipped(t)) return;
  const vault = server!.vault.dir;
  const emptyBefore = emptyFiles(vault);
  const trashBefore = [...filesBelow(vault).keys()].filter((file) => file.startsWith(".trash")).sort();
  const original = readFileSync(path.join(vault, "wiki/index.md"));
  const hash = (await call("note_read", { path: "wiki/index.md" })).structured.content_hash;
  assert.equal(typeof hash, "string");
  const cases: Array<{ what: string; leave: number; name: string; args: Record<string, unknown>; check(): void }> = [
    {
      what: "note_write, disk full before the trash copy",
      leave: 0,
      name: "note_write",
      args: { path: "wiki/index.md", content: words(1, 200_000), content_hash: hash, reason: "full disk" },
      check: () => assert.deepEqual(readFileSync(path.join(vault, "wiki/index.md")), original),
    },
    {
      what: "note_write, disk full during the note's own write",
      leave: 16 * 1024,
      name: "note_write",
      args: { path: "wiki/index.md", content: words(2, 200_000), content_hash: hash, reason: "full disk" },
      check: () => assert.deepEqual(readFileSync(path.join(vault, "wiki/index.md")), original),
    },
    {
      what: "note_create",
      leave: 8 * 1024,
      name: "note_create",
      args: { path: "wiki/new-on-full-disk.md", content: words(3, 200_000), reason: "full disk" },
      check: () => assert.equal(filesBelow(vault).has(path.join("wiki", "new-on-full-disk.md")), false),
    },
    {
      what: "attachment_put",
      leave: 8 * 1024,
      name: "attachment_put",
      args: { path: "Attachments/full-disk.png", data_base64: Buffer.from(words(4, 200_000)).toString("base64"), reason: "full disk" },
      check: () => assert.equal(filesBelow(vault).has(path.join("Attachments", "full-disk.png")), false),
    },
  ];
  for (const item of cases) {
    const filler = fill(vaultMount, item.leave);
    const result = await call(item.name, item.args).finally(() => rmSync(filler));
    const error = errorOf(result);
    assert.match(result.text, /no space left on the device that holds the vault/i, item.what);
    assert.equal(error.state, "not_applied", item.what);
    item.check();
    assert.deepEqual(leftovers(vault, emptyBefore), [], item.what);
    assert.deepEqual([...filesBelow(vault).keys()].filter((file) => file.startsWith(".trash")).sort(), trashBefore, `${item.what}: no trash copy left`);
  }
  // With space again the same writes go through.
  const written = await call("note_write", { path: "wiki/index.md", content: words(2, 200_000), content_hash: hash, reason: "space again" });
  assert.equal(written.isError, false, written.text);
  assert.equal(readFileSync(path.join(vault, "wiki/index.md"), "utf8"), words(2, 200_000));
});

test("a full data folder: the history commit fails whole, the index persist leaves no temp; with space again the history is intact", async (t) => {
  if (skipped(t)) return;
  const dataDir = server!.vault.dataDir;
  const emptyBefore = emptyFiles(dataDir);
  const touched = new Set<string>(["wiki/index.md"]);
  const content = (round: number): string => words(100 + round, 400_000);
  // The disk fills up at points spread over a commit: inside the blob's write, then (with the blob's
  // pages free, and one page more each round) inside the trees', the commit object's, the ref's.
  const pages = (round: number): number => Math.ceil(deflateSync(Buffer.from(`blob ${Buffer.byteLength(content(round))}\0${content(round)}`)).length / PAGE);
  const leaves = [0, PAGE, 16 * PAGE, ...[0, 1, 2, 3, 4].map((extra) => (pages(3 + extra) + extra) * PAGE)];
  let failed = 0;
  for (const [round, leave] of leaves.entries()) {
    const target = `wiki/full-${round}.md`;
    touched.add(target);
    const before = await head();
    const filler = fill(dataMount, leave);
    const result = await call("note_create", { path: target, content: content(round), reason: "history on a full disk" }).finally(() => rmSync(filler));
    // The note itself is on the vault's device, which has room: it is written, the history says why it is not.
    assert.equal(result.isError, false, result.text);
    const warnings = (result.structured.warnings as string[] | undefined) ?? [];
    if ((await head()) === before) {
      failed += 1;
      assert.ok(warnings.some((warning) => /no space left on the device that holds the data folder/.test(warning)), `round ${round}: ${JSON.stringify(warnings)}`);
    } else {
      assert.deepEqual(warnings, [], `round ${round}: the commit went through`);
    }
    assert.deepEqual(leftovers(dataDir, emptyBefore), [], `round ${round}`);
  }
  t.diagnostic(`${failed} of ${leaves.length} commits failed on the full disk`);
  assert.ok(failed >= 5, `${failed} of ${leaves.length} commits failed on the full disk`);
  const before = await head();

  // An index persist on a full disk: refused, and its temp file is gone.
  const filler = fill(dataMount, 0);
  const host = server!.server.hosts[0]!;
  await assert.rejects(host.engine.persist().finally(() => rmSync(filler)), /no space left on the device that holds the data folder/);
  assert.deepEqual(leftovers(dataDir, emptyBefore), [], "after the failed index persist");

  // Space again: the blobs whose writes broke off are needed again (same bytes, other notes), then more.
  freeSpace();
  for (const round of leaves.keys()) {
    const again = `wiki/again-${round}.md`;
    touched.add(again);
    const result = await call("note_create", { path: again, content: content(round), reason: "same bytes as a failed commit" });
    assert.equal(result.isError, false, result.text);
    assert.deepEqual(result.structured.warnings ?? [], [], again);
  }
  const current = (await call("note_read", { path: "wiki/full-0.md" })).structured.content_hash;
  const edit = await call("note_write", { path: "wiki/full-0.md", content: "Short now.\n", content_hash: current, reason: "after the disk was full" });
  assert.equal(edit.isError, false, edit.text);
  assert.notEqual(await head(), before);

  const fsck = spawnSync("git", ["--git-dir", gitdir, "fsck", "--full", "--no-dangling"], { encoding: "utf8" });
  if (fsck.error) {
    t.diagnostic("git is not installed: every loose object is checked against its hash instead");
    for (const oid of looseObjects()) {
      const stored = readFileSync(path.join(gitdir, "objects", oid.slice(0, 2), oid.slice(2)));
      assert.equal(createHash("sha1").update(inflateSync(stored)).digest("hex"), oid);
    }
  } else {
    assert.equal(fsck.status, 0, `${fsck.stdout}${fsck.stderr}`);
    assert.doesNotMatch(`${fsck.stdout}${fsck.stderr}`, /error|corrupt|missing|broken|bad/i);
  }

  let revisions = 0;
  for (const note of touched) {
    const history = await call("note_history", { path: note, limit: 200 });
    assert.equal(history.isError, false, history.text);
    for (const revision of history.structured.revisions as Array<{ commit: string }>) {
      const diff = await call("note_diff", { path: note, from: revision.commit });
      assert.equal(diff.isError, false, `note_diff ${note}@${revision.commit}: ${diff.text}`);
      const restore = await call("note_restore", { path: note, revision: revision.commit, dry_run: true });
      assert.equal(restore.isError, false, `note_restore ${note}@${revision.commit}: ${restore.text}`);
      revisions += 1;
    }
  }
  assert.ok(revisions >= leaves.length + 2, `${revisions} revisions checked`);
  // A real restore, of the vault's first recorded state.
  const first = ((await call("note_history", { path: "wiki/index.md", limit: 200 })).structured.revisions as Array<{ commit: string }>).at(-1)!;
  const restored = await call("note_restore", { path: "wiki/index.md", revision: first.commit });
  assert.equal(restored.isError, false, restored.text);
  assert.deepEqual(readFileSync(path.join(server!.vault.dir, "wiki/index.md")), readFileSync(path.join(EDGE_VAULT, "wiki/index.md")));
  assert.deepEqual(leftovers(dataDir, emptyBefore), []);
});

test("a start with the data folder full goes on without the lock of its vault's data folder, says so, and leaves no empty lock file", async (t) => {
  if (skipped(t)) return;
  const folder = path.join(dataMount, "data", "vaults", "another-vault");
  mkdirSync(folder, { recursive: true });
  const filler = fill(dataMount, 0);
  const reasons: string[] = [];
  try {
    const lock = await DataFolderLock.take(folder, "another", (reason) => reasons.push(reason));
    await lock.release();
  } finally {
    rmSync(filler);
  }
  assert.deepEqual(reasons, ["no space left on the device that holds the data folder"]);
  assert.deepEqual(readdirSync(folder), [], "no lock file, empty or not");
});

function looseObjects(): string[] {
  const found: string[] = [];
  for (const folder of readdirSync(path.join(gitdir, "objects"))) {
    if (!/^[0-9a-f]{2}$/.test(folder)) continue;
    for (const name of readdirSync(path.join(gitdir, "objects", folder))) found.push(folder + name);
  }
  return found;
}
