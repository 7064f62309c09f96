// Journals of vault-wide changes when several processes keep one data folder (serve --stdio, one per
// client): another live process's journal and its save in progress are left alone; once that process
// is gone, its journal is an interrupted change to complete, carried on under the recovering process.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { FileTransactionStore } from "../../../src/hosts/node/transaction-store";

test("another live process's journal and temp file are not this one's; once it is gone its journal is listed, loaded and carried on", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sb-journals-"));
  const other = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  try {
    const store = new FileTransactionStore(dir);
    writeFileSync(path.join(dir, `txn-a.p${other.pid}.journal`), "the other's change");
    writeFileSync(path.join(dir, `txn-a.p${other.pid}.0badc0de.tmp`), "the other's save in progress");
    writeFileSync(path.join(dir, "txn-b.journal"), "written before journals named their process");
    writeFileSync(path.join(dir, "txn-c.p999999999.0badc0de.tmp"), "a save a crash cut short");
    await store.save("txn-d", new TextEncoder().encode("this process's own"));
    assert.deepEqual((await store.list()).sort(), ["txn-b", "txn-d"]);
    assert.deepEqual(readdirSync(dir).filter((name) => name.endsWith(".tmp")), [`txn-a.p${other.pid}.0badc0de.tmp`], "only the live process's temp file stays");

    const gone = new Promise((resolve) => other.once("exit", resolve));
    other.kill("SIGKILL");
    await gone;
    assert.deepEqual((await store.list()).sort(), ["txn-a", "txn-b", "txn-d"]);
    assert.equal(new TextDecoder().decode((await store.load("txn-a"))!), "the other's change");
    await store.save("txn-a", new TextEncoder().encode("carried on"));
    assert.deepEqual(readdirSync(dir).filter((name) => name.startsWith("txn-a") && name.endsWith(".journal")), [`txn-a.p${process.pid}.journal`]);
    assert.equal(new TextDecoder().decode((await store.load("txn-a"))!), "carried on");
    await store.remove("txn-a");
    await store.remove("txn-b");
    assert.deepEqual((await store.list()).sort(), ["txn-d"]);
  } finally {
    other.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
});
