// The history's file layer against a full disk, at the port: an fs whose writes stop with ENOSPC after
// a byte budget. A failed commit leaves the ref where it was and no temp or half-written object; once
// space returns, commits (also of the same content) succeed and every revision reads back, and
// `git fsck` agrees. An object truncated by an older version is written again instead of reused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { deflateSync, inflateSync } from "node:zlib";
import { createHash, randomBytes } from "node:crypto";
import { promises as fsp, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as git from "isomorphic-git";
import { ToolError } from "../../src/core/errors";
import type { LogRecord } from "../../src/core/ports";
import { GitHistory } from "../../src/history/git-history";
import type { HistoryFileHandle, HistoryFs } from "../../src/history/fenced-fs";
import { durableFs } from "../../src/history/durable-fs";

const clock = { now: () => Date.now() };

/**
 * node:fs/promises, except that the disk fills up: a write fails with ENOSPC, after writing what still
 * fits, once `budget` bytes are used, or at the `failAt`-th file write from now (after half of it).
 */
function fullDiskFs(): { fs: HistoryFs; budget: number; failAt: number; opened: string[] } {
  const state = { budget: Number.POSITIVE_INFINITY, failAt: Number.POSITIVE_INFINITY, opened: [] as string[], fs: null as unknown as HistoryFs };
  const spend = (data: Uint8Array | string): { allowed: Uint8Array; full: boolean } => {
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    state.failAt -= 1;
    if (state.failAt === 0) state.budget = Math.floor(bytes.byteLength / 2);
    if (bytes.byteLength <= state.budget) {
      state.budget -= bytes.byteLength;
      return { allowed: bytes, full: false };
    }
    const allowed = bytes.subarray(0, state.budget);
    state.budget = 0;
    return { allowed, full: true };
  };
  const noSpace = (): Error => Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
  state.fs = {
    readFile: (file, options) => fsp.readFile(file, options as never),
    writeFile: async (file, data) => {
      const { allowed, full } = spend(data);
      await fsp.writeFile(file, allowed);
      if (full) throw noSpace();
    },
    unlink: (file) => fsp.unlink(file),
    readdir: (file) => fsp.readdir(file),
    mkdir: (file, options) => fsp.mkdir(file, options as never),
    rmdir: (file) => fsp.rmdir(file),
    rm: (file, options) => fsp.rm(file, options as never),
    stat: (file) => fsp.stat(file),
    lstat: (file) => fsp.lstat(file),
    readlink: (file) => fsp.readlink(file),
    symlink: (target, file) => fsp.symlink(target, file),
    chmod: (file, mode) => fsp.chmod(file, mode),
    rename: (from, to) => fsp.rename(from, to),
    open: async (file, flags): Promise<HistoryFileHandle> => {
      const handle = await fsp.open(file, flags);
      if (flags !== "r") state.opened.push(file);
      return {
        writeFile: async (data) => {
          const { allowed, full } = spend(data);
          await handle.writeFile(allowed);
          if (full) throw noSpace();
        },
        sync: () => handle.sync(),
        close: () => handle.close(),
      };
    },
  };
  return state;
}

function allFiles(root: string): string[] {
  return readdirSync(root, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(root, entry.name);
    return entry.isDirectory() ? allFiles(full) : [full];
  });
}

function looseObjects(gitdir: string): string[] {
  return allFiles(path.join(gitdir, "objects")).filter((file) => /objects\/[0-9a-f]{2}\/[0-9a-f]{38}$/.test(file.split(path.sep).join("/")));
}

function fsck(gitdir: string): { status: number | null; output: string } {
  const run = spawnSync("git", ["--git-dir", gitdir, "fsck", "--full", "--strict", "--no-dangling"], { encoding: "utf8" });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

const hasGit = spawnSync("git", ["--version"]).status === 0;

async function setup(): Promise<{ base: string; dir: string; gitdir: string; logs: LogRecord[]; disk: ReturnType<typeof fullDiskFs>; history: GitHistory }> {
  const base = mkdtempSync(path.join(os.tmpdir(), "sb-durable-"));
  const dir = path.join(base, "vault");
  const gitdir = path.join(base, "data", "history.git");
  mkdirSync(dir, { recursive: true });
  const logs: LogRecord[] = [];
  const disk = fullDiskFs();
  const history = await GitHistory.open({ vault: "v", dir, gitdir, fs: disk.fs, logger: { log: (entry) => logs.push(entry) }, clock });
  return { base, dir, gitdir, logs, disk, history };
}

test("a commit cut short by a full disk leaves the ref, no temp file and no partial object; later commits and every revision are intact", async () => {
  const { base, dir, gitdir, disk, history } = await setup();
  try {
    const meta = { tool: "test" };
    writeFileSync(path.join(dir, "a.md"), "first version\n");
    const first = await history.commit(["a.md"], "test: a.md", meta);
    assert.ok(first);
    // Hardly compressible text, so the blob's object is tens of kilobytes.
    const big = `${randomBytes(30_000).toString("base64")}\n`;
    const head = first;
    // The disk fills up inside the blob's write (byte budgets), then inside each of the commit's four
    // file writes in turn: blob, tree, commit object, ref. Each round commits new content.
    const rounds = [
      ...[0, 1, 100, 4096].map((budget) => ({ budget, failAt: Number.POSITIVE_INFINITY })),
      ...[1, 2, 3, 4].map((failAt) => ({ budget: Number.POSITIVE_INFINITY, failAt })),
    ];
    const contentOf = (round: number): string => `round ${round}\n${big}`;
    for (const [round, { budget, failAt }] of rounds.entries()) {
      writeFileSync(path.join(dir, "probe.md"), contentOf(round));
      Object.assign(disk, { budget, failAt });
      await assert.rejects(history.commit(["probe.md"], "test: probe.md", meta), (error: unknown) => {
        assert.ok(error instanceof ToolError, String(error));
        assert.match(error.message, /^no space left on the device that holds the data folder/);
        assert.equal(error.state, "not_applied");
        return true;
      }, `round ${round}`);
      assert.equal(await git.resolveRef({ fs: { promises: fsp }, gitdir, ref: "refs/heads/main" }), head, `round ${round}: the ref did not move`);
      const leftovers = allFiles(gitdir).filter((file) => /tmp_obj_|\.lock$/.test(file) || statSync(file).size === 0);
      assert.deepEqual(leftovers, [], `round ${round}`);
    }
    // Space returns: content whose blob broke off mid-write before is committed, then more.
    Object.assign(disk, { budget: Number.POSITIVE_INFINITY, failAt: Number.POSITIVE_INFINITY });
    const ids: string[] = [first];
    writeFileSync(path.join(dir, "probe.md"), contentOf(3));
    ids.push((await history.commit(["probe.md"], "test: probe.md", meta))!);
    writeFileSync(path.join(dir, "b.md"), `${big}b\n`);
    ids.push((await history.commit(["a.md", "b.md"], "test: b.md", meta))!);
    assert.equal(new Set(ids).size, 3);
    for (const object of looseObjects(gitdir)) {
      const oid = object.split(path.sep).slice(-2).join("");
      assert.equal(createHash("sha1").update(inflateSync(readFileSync(object))).digest("hex"), oid, object);
    }
    for (const id of ids) assert.equal(new TextDecoder().decode((await history.readAt("a.md", id))!), "first version\n");
    assert.equal(new TextDecoder().decode((await history.readAt("probe.md", "HEAD"))!), contentOf(3));
    assert.equal(new TextDecoder().decode((await history.readAt("b.md", "HEAD"))!), `${big}b\n`);
    // (Folders are opened too, read-only, to sync them.)
    const writes = disk.opened.filter((file) => file.startsWith(path.join(gitdir, "objects")));
    assert.ok(writes.length > 0 && writes.every((file) => path.basename(file).startsWith("tmp_obj_")), "objects are written to a temp name, then renamed");
    if (hasGit) {
      const checked = fsck(gitdir);
      assert.equal(checked.status, 0, checked.output);
    }
  } finally {
    await history.close();
    rmSync(base, { recursive: true, force: true });
  }
});

test("a loose object truncated by an older version is written again when a commit needs it, never reused", async () => {
  const { base, dir, gitdir, history } = await setup();
  try {
    const text = `${"the same blob in two commits ".repeat(200)}\n`;
    const wrapped = Buffer.concat([Buffer.from(`blob ${Buffer.byteLength(text)}\0`), Buffer.from(text)]);
    const oid = createHash("sha1").update(wrapped).digest("hex");
    const object = path.join(gitdir, "objects", oid.slice(0, 2), oid.slice(2));
    mkdirSync(path.dirname(object), { recursive: true });
    const deflated = deflateSync(wrapped);
    writeFileSync(object, deflated.subarray(0, Math.floor(deflated.length / 2)));
    writeFileSync(path.join(dir, "same.md"), text);
    const id = await history.commit(["same.md"], "test: same.md", { tool: "test" });
    assert.ok(id);
    assert.equal(new TextDecoder().decode((await history.readAt("same.md", id))!), text);
    assert.equal(createHash("sha1").update(inflateSync(readFileSync(object))).digest("hex"), oid, "the object file is whole again");
    if (hasGit) {
      const checked = fsck(gitdir);
      assert.equal(checked.status, 0, checked.output);
    }
  } finally {
    await history.close();
    rmSync(base, { recursive: true, force: true });
  }
});

test("temp files a crash left in the git directory are removed when the history opens", async () => {
  const { base, dir, gitdir, logs, history } = await setup();
  try {
    writeFileSync(path.join(dir, "a.md"), "text\n");
    await history.commit(["a.md"], "test: a.md", { tool: "test" });
    await history.close();
    const objectTemp = path.join(gitdir, "objects", "ab", "tmp_obj_0123456789");
    mkdirSync(path.dirname(objectTemp), { recursive: true });
    writeFileSync(objectTemp, "half");
    const refTemp = path.join(gitdir, "refs", "heads", "main.sb0123456789.lock");
    writeFileSync(refTemp, "");
    const again = await GitHistory.open({ vault: "v", dir, gitdir, fs: fullDiskFs().fs, logger: { log: (entry) => logs.push(entry) }, clock });
    await again.close();
    assert.equal(existsSync(objectTemp), false);
    assert.equal(existsSync(refTemp), false);
    assert.ok(logs.some((entry) => entry.event === "history_temp_files_removed" && entry.count === 2));
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test("the file layer writes a ref by rename: a reader never sees it empty or half-written", async () => {
  const base = mkdtempSync(path.join(os.tmpdir(), "sb-durable-"));
  try {
    const gitdir = path.join(base, "g");
    mkdirSync(path.join(gitdir, "refs", "heads"), { recursive: true });
    const ref = path.join(gitdir, "refs", "heads", "main");
    writeFileSync(ref, `${"a".repeat(40)}\n`);
    const disk = fullDiskFs();
    const layer = durableFs(disk.fs, gitdir);
    disk.budget = 10;
    await assert.rejects(layer.fs.writeFile(ref, `${"b".repeat(40)}\n`, "utf8"), { code: "ENOSPC" });
    assert.deepEqual(readdirSync(path.dirname(ref)), ["main"]);
    assert.equal(await fsp.readFile(ref, "utf8"), `${"a".repeat(40)}\n`);
    disk.budget = Number.POSITIVE_INFINITY;
    await layer.fs.writeFile(ref, `${"b".repeat(40)}\n`, "utf8");
    assert.equal(await fsp.readFile(ref, "utf8"), `${"b".repeat(40)}\n`);
    assert.deepEqual(readdirSync(path.dirname(ref)), ["main"]);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
