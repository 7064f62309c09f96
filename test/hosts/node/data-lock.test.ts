// One process per vault's data folder: a live holder is refused with what to do, one that is gone (a
// crash, a kill) is taken over, a garbled lock file too, and a lock of another machine is left alone.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DataFolderInUse, DataFolderLock, LOCK_FILE } from "../../../src/hosts/node/data-lock";

function folder(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sb-lock-"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

test("a lock held by a live process is refused; once that process is gone it is taken over", async () => {
  const { dir, cleanup } = folder();
  // Another process of this machine, alive until killed.
  const other = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  try {
    writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ pid: other.pid, host: os.hostname(), since: "2026-12-06T00:00:00Z" }));
    await assert.rejects(DataFolderLock.take(dir, "notes"), (error: unknown) => {
      assert.ok(error instanceof DataFolderInUse);
      assert.match(error.message, /vault "notes" is already served by another secondbrain-mcp process with the same data folder.*Stop that one first, or give this one its own --data folder/);
      assert.ok(!error.message.includes(dir) && !error.message.includes(String(other.pid)), "neither the folder nor the process id is in the message");
      return true;
    });
    const gone = new Promise((resolve) => other.once("exit", resolve));
    other.kill("SIGKILL");
    await gone;
    const lock = await DataFolderLock.take(dir, "notes");
    assert.equal((JSON.parse(readFileSync(path.join(dir, LOCK_FILE), "utf8")) as { pid: number }).pid, process.pid);
    await lock.release();
    assert.equal(existsSync(path.join(dir, LOCK_FILE)), false);
  } finally {
    other.kill("SIGKILL");
    cleanup();
  }
});

test("a garbled lock file is taken over; another machine's lock is not, and the message says how to clear it", async () => {
  const { dir, cleanup } = folder();
  try {
    writeFileSync(path.join(dir, LOCK_FILE), "{ cut sh");
    const lock = await DataFolderLock.take(dir, "notes");
    await lock.release();
    writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ pid: 1, host: `${os.hostname()}-elsewhere`, since: "" }));
    await assert.rejects(DataFolderLock.take(dir, "notes"), /on another machine that shares this data folder.*delete server-lock\.json in the vault's data folder/);
    // A lock taken over by another process meanwhile is not removed by the one that held it before.
    writeFileSync(path.join(dir, LOCK_FILE), "{}");
    const mine = await DataFolderLock.take(dir, "notes");
    writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ pid: 4242, host: os.hostname(), since: "later" }));
    await mine.release();
    assert.equal(existsSync(path.join(dir, LOCK_FILE)), true);
  } finally {
    cleanup();
  }
});
