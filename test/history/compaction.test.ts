// The history packs its loose objects a bounded pack at a time, between commits: every version stays
// readable (by the history, by git, after a restart), the folder's trees become deltas, and a pack cut
// short by a failure or a crash leaves every object where it was.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, promises as fsp, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { LogRecord } from "../../src/core/ports";
import type { HistoryFs } from "../../src/history/fenced-fs";
import { GitHistory } from "../../src/history/git-history";
import { found } from "../support/poll";

const clock = { now: () => Date.now() };
const meta = { tool: "note_edit", via: "Pack Client", user: "ada" };
const encoder = new TextEncoder();
const NOTES = 400;
const packing = { afterLoose: 150, budget: { objects: 120, bytes: 1024 * 1024 } };
const never = { afterLoose: Number.MAX_SAFE_INTEGER, budget: packing.budget };

interface Vault {
  base: string;
  dir: string;
  gitdir: string;
  logs: LogRecord[];
  open(options?: { packing?: typeof packing; fs?: HistoryFs }): Promise<GitHistory>;
}

function vault(): Vault {
  const base = mkdtempSync(path.join(os.tmpdir(), "sb-pack-history-"));
  const dir = path.join(base, "vault");
  const gitdir = path.join(base, "data", "history.git");
  mkdirSync(path.join(dir, "notes"), { recursive: true });
  for (let n = 0; n < NOTES; n++) writeFileSync(path.join(dir, "notes", `note ${n}.md`), `# Note ${n}\n\n${"Some text of the note. ".repeat(20)}\n`);
  writeFileSync(path.join(dir, "index.md"), "# Index\n");
  const logs: LogRecord[] = [];
  const list = (): Promise<string[]> => Promise.resolve(["index.md", ...Array.from({ length: NOTES }, (_, n) => `notes/note ${n}.md`)]);
  return {
    base,
    dir,
    gitdir,
    logs,
    open: (options = {}) =>
      GitHistory.open({ vault: "v", dir, gitdir, fs: options.fs ?? fsp, logger: { log: (entry) => logs.push(entry) }, clock, baseline: list, packing: options.packing ?? packing }),
  };
}

function folderBytes(folder: string): number {
  let total = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    total += entry.isDirectory() ? folderBytes(full) : statSync(full).size;
  }
  return total;
}

function looseCount(gitdir: string): number {
  return readdirSync(path.join(gitdir, "objects"))
    .filter((name) => /^[0-9a-f]{2}$/.test(name))
    .reduce((sum, folder) => sum + readdirSync(path.join(gitdir, "objects", folder)).length, 0);
}

/** `count` edits, each of one of five notes in the folder of 400: the commit rewrites the folder's tree each time. */
async function edit(history: GitHistory, count: number): Promise<Map<string, { path: string; text: string }>> {
  const written = new Map<string, { path: string; text: string }>();
  for (let n = 0; n < count; n++) {
    const file = `notes/note ${n % 5}.md`;
    const text = `# Note ${n % 5}\n\n${"Some text of the note. ".repeat(20)}\nedit ${n}\n`;
    const id = await history.commit([file], `note_edit: ${file}`, meta, new Map([[file, encoder.encode(text)]]));
    assert.ok(id);
    written.set(id, { path: file, text });
  }
  return written;
}

function git(gitdir: string, args: string[]): { status: number | null; out: string } {
  const result = spawnSync("git", ["--git-dir", gitdir, ...args], { encoding: "utf8" });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

test("packed a pack at a time, every version stays readable by the history and by git, and the history takes a fraction of the space", async () => {
  const packed = vault();
  const loose = vault();
  try {
    const history = await packed.open();
    const unpacked = await loose.open({ packing: never });
    await Promise.all([history.idle(), unpacked.idle()]);
    const written = await edit(history, 120);
    await edit(unpacked, 120);
    await Promise.all([history.idle(), unpacked.idle()]);

    const packs = readdirSync(path.join(packed.gitdir, "objects", "pack"));
    assert.ok(packs.filter((name) => name.endsWith(".idx")).length >= 3, `several packs: ${packs.join(", ")}`);
    assert.deepEqual(
      packs.map((name) => name.replace(/\.(pack|idx)$/, "")).sort(),
      packs.filter((name) => name.endsWith(".pack")).flatMap((name) => [name.replace(/\.pack$/, ""), name.replace(/\.pack$/, "")]).sort(),
      "each pack has its index and nothing else is there",
    );
    assert.ok(looseCount(packed.gitdir) < packing.afterLoose, `${looseCount(packed.gitdir)} loose objects left`);
    const packedBytes = folderBytes(path.join(packed.gitdir, "objects"));
    const looseBytes = folderBytes(path.join(loose.gitdir, "objects"));
    assert.ok(packedBytes * 5 < looseBytes, `packed ${packedBytes} bytes against ${looseBytes} loose`);
    assert.ok(packed.logs.some((entry) => entry.event === "history_packed"));
    assert.ok(!packed.logs.some((entry) => entry.event === "history_pack_failed"), JSON.stringify(packed.logs.filter((entry) => entry.level === "warn")));

    const check = async (reader: GitHistory): Promise<void> => {
      for (const [id, { path: file, text }] of written) assert.equal(new TextDecoder().decode((await reader.readAt(file, id))!), text, `${file} at ${id}`);
      const log = await reader.log("notes/note 3.md", 1000);
      assert.equal(log.length, 25, "24 edits and the first snapshot");
      assert.equal(log[0]!.via, "Pack Client");
      assert.match((await reader.log(null, 1000)).at(-1)!.message, /^initial: 401 notes/);
      assert.equal(new TextDecoder().decode((await reader.readAt("notes/note 399.md", "HEAD"))!), `# Note 399\n\n${"Some text of the note. ".repeat(20)}\n`);
      // A short id is found in a pack too.
      const [first] = [...written.keys()];
      assert.ok(await reader.readAt("notes/note 0.md", first!.slice(0, 7)));
    };
    await check(history);
    await history.close();
    await check(await packed.open());

    if (spawnSync("git", ["--version"]).status === 0) {
      const fsck = git(packed.gitdir, ["fsck", "--strict", "--no-dangling"]);
      assert.equal(fsck.status, 0, fsck.out);
      assert.equal(git(packed.gitdir, ["rev-list", "--count", "main"]).out.trim(), "121");
      const verified = git(packed.gitdir, ["verify-pack", "-v", ...readdirSync(path.join(packed.gitdir, "objects", "pack")).filter((name) => name.endsWith(".idx")).map((name) => path.join(packed.gitdir, "objects", "pack", name))]);
      assert.equal(verified.status, 0, verified.out);
      assert.match(verified.out, /chain length = [1-9]/, "versions are stored as deltas");
    }
  } finally {
    rmSync(packed.base, { recursive: true, force: true });
    rmSync(loose.base, { recursive: true, force: true });
  }
});

test("a pack whose index could not be placed leaves every object loose and readable, and what it left is removed at the next start", async () => {
  const context = vault();
  try {
    let failures = 0;
    const failing: HistoryFs = {
      ...fsp,
      rename: async (from: string, to: string) => {
        if (to.endsWith(".idx")) {
          failures += 1;
          throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
        }
        await fsp.rename(from, to);
      },
    };
    const history = await context.open({ fs: failing });
    await history.idle();
    const written = await edit(history, 60);
    await history.idle();
    assert.ok(failures > 0, "packing was tried");
    assert.ok(context.logs.some((entry) => entry.event === "history_pack_failed"));
    assert.equal(existsSync(path.join(context.gitdir, "objects", "pack")) ? readdirSync(path.join(context.gitdir, "objects", "pack")).filter((name) => name.startsWith("tmp_")).length : 0, 0, "no temp file is left");
    for (const [id, { path: file, text }] of written) assert.equal(new TextDecoder().decode((await history.readAt(file, id))!), text);
    await history.close();

    // A crash between the pack's rename and its index's: the pack is there without an index.
    const packDir = path.join(context.gitdir, "objects", "pack");
    mkdirSync(packDir, { recursive: true });
    writeFileSync(path.join(packDir, `pack-${"ab".repeat(20)}.pack`), "PACK cut short");
    writeFileSync(path.join(packDir, "tmp_pack_crashed.idx"), "cut short");
    writeFileSync(path.join(packDir, `pack-${"cd".repeat(20)}.idx`), "an index whose pack never came");
    const reopened = await context.open();
    await reopened.idle();
    const left = readdirSync(packDir);
    assert.ok(!left.includes(`pack-${"ab".repeat(20)}.pack`) && !left.includes(`pack-${"cd".repeat(20)}.idx`) && !left.includes("tmp_pack_crashed.idx"), left.join(", "));
    assert.ok(context.logs.some((entry) => entry.event === "history_temp_files_removed"));
    // With a working file system, the next start packs.
    assert.ok(left.some((name) => name.endsWith(".idx")), "packed once it could be");
    for (const [id, { path: file, text }] of written) assert.equal(new TextDecoder().decode((await reopened.readAt(file, id))!), text);
    if (spawnSync("git", ["--version"]).status === 0) assert.equal(git(context.gitdir, ["fsck", "--strict", "--no-dangling"]).status, 0);
  } finally {
    rmSync(context.base, { recursive: true, force: true });
  }
});

test("a process killed at random moments while it packs leaves every commit it reported whole and readable, and git's fsck content", { timeout: 120_000 }, async () => {
  const base = mkdtempSync(path.join(os.tmpdir(), "sb-pack-kill-"));
  const dir = path.join(base, "vault");
  const gitdir = path.join(base, "history.git");
  mkdirSync(path.join(dir, "notes"), { recursive: true });
  // Reproducible kill moments: a failing run prints its seed; PACK_KILL_SEED replays it.
  const seed = Number(process.env.PACK_KILL_SEED ?? Date.now() % 1_000_000);
  let state = seed;
  const random = (): number => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const reported = new Map<string, { file: string; text: string }>();
  try {
    for (let round = 0; round < 6; round++) {
      const child = spawn(process.execPath, ["--import", "tsx", path.join(__dirname, "..", "support", "packing-writer.ts"), dir, gitdir], { stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      // Killed once it has packed, at a random moment of its next packs and commits.
      await found(60_000, `round ${round} packs (seed ${seed})`, () => Promise.resolve(output.includes("packing") ? true : undefined));
      await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 400)));
      child.kill("SIGKILL");
      await exited;
      for (const line of output.split("\n")) {
        if (!line.startsWith("{")) continue;
        const { id, file, text } = JSON.parse(line) as { id: string; file: string; text: string };
        reported.set(id, { file, text });
      }
      const history = await GitHistory.open({ vault: "v", dir, gitdir, fs: fsp, logger: { log: () => undefined }, clock, packing: never });
      for (const [id, { file, text }] of reported) assert.equal(new TextDecoder().decode((await history.readAt(file, id))!), text, `${file} at ${id} (seed ${seed})`);
      await history.close();
      const left = readdirSync(path.join(gitdir, "objects", "pack"));
      assert.ok(!left.some((name) => name.startsWith("tmp_")), `no temp pack after a start: ${left.join(", ")} (seed ${seed})`);
      if (spawnSync("git", ["--version"]).status === 0) {
        const fsck = git(gitdir, ["fsck", "--strict", "--no-dangling"]);
        assert.equal(fsck.status, 0, `${fsck.out} (seed ${seed})`);
      }
    }
    assert.ok(reported.size > 50, `${reported.size} commits reported`);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
