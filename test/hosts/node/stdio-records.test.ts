// `serve --stdio` keeps its crash records in a file of its own, and at its start recovers the records a
// stdio process that is gone left: a write whose commit that process never made is committed then,
// with its own message and client.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { initialize, startStdioCli } from "../../support/stdio";
import { EDGE_VAULT, tempVault } from "../../support/vaults";

function findGitdir(folder: string): string | null {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const full = path.join(folder, entry.name);
    if (entry.name === "history.git") return full;
    const below = findGitdir(full);
    if (below) return below;
  }
  return null;
}

test("serve --stdio commits at its start the write a killed stdio process recorded but never committed, and removes its file", async () => {
  const vault = tempVault(EDGE_VAULT);
  try {
    const first = await startStdioCli(["--vault", `edge=${vault.dir}`, "--data", vault.dataDir]);
    await first.waitForLog(/"event":"history_baseline"/);
    first.child.stdin.end();
    await first.exited(10_000);
    const gitdir = findGitdir(vault.dataDir);
    assert.ok(gitdir, "the history is in the data folder");

    // What a process that is gone left: the note written, its record on disk, no commit.
    const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    const pid = Number(gone.stdout);
    const bytes = Buffer.from("# Read me\n\nEdited by a stdio process that was killed before its commit.\n");
    writeFileSync(path.join(vault.dir, "README.md"), bytes);
    const oid = createHash("sha1").update(`blob ${bytes.byteLength}\0`).update(bytes).digest("hex");
    const records = path.join(gitdir, `secondbrain-intent.p${pid}.json`);
    writeFileSync(records, JSON.stringify([{ path: "README.md", oid, message: "note_edit: README.md\n\nVia: Gone Client\n" }]));

    const next = await startStdioCli(["--vault", `edge=${vault.dir}`, "--data", vault.dataDir]);
    try {
      await next.waitForLog(/"event":"history_left_records_recovered"/);
      await initialize(next);
      const history = await next.request(1, "tools/call", { name: "note_history", arguments: { path: "README.md", limit: 5 } });
      const revisions = (history.result as { structuredContent?: { revisions?: Array<{ message: string; via?: string }> } }).structuredContent?.revisions ?? [];
      assert.equal(revisions[0]?.message.split("\n")[0], "note_edit: README.md", JSON.stringify(revisions));
      assert.equal(revisions[0]?.via, "Gone Client");
      assert.equal(existsSync(records), false, "the gone process's file is removed");
      assert.equal(existsSync(path.join(gitdir, `secondbrain-intent.p${next.child.pid}.json`)), false, "nothing of its own is pending");
    } finally {
      next.child.stdin.end();
      await next.exited(10_000).catch(() => next.kill());
    }
  } finally {
    vault.cleanup();
  }
});
