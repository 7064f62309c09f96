// The history's file calls on Node (history-fs.ts): a created file holds exactly the bytes, never
// replaces one that is there (the durable layer's temp names rely on it), and failures keep their codes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { nodeHistoryFs } from "../../../src/hosts/node/history-fs";

test("createSynced writes every byte of a new file and refuses one that exists; syncPath syncs files and folders; failures keep their codes", async () => {
  const base = mkdtempSync(path.join(os.tmpdir(), "sb-history-fs-"));
  try {
    const file = path.join(base, "object");
    const bytes = new Uint8Array(3 * 1024 * 1024).map((_, at) => (at * 7) % 251);
    await nodeHistoryFs.createSynced!(file, bytes);
    assert.deepEqual(readFileSync(file), Buffer.from(bytes));
    writeFileSync(path.join(base, "there"), "kept");
    await assert.rejects(nodeHistoryFs.createSynced!(path.join(base, "there"), new Uint8Array([1])), { code: "EEXIST" });
    assert.equal(readFileSync(path.join(base, "there"), "utf8"), "kept");
    await assert.rejects(nodeHistoryFs.createSynced!(path.join(base, "missing", "object"), new Uint8Array([1])), { code: "ENOENT" });
    await nodeHistoryFs.syncPath!(file);
    await nodeHistoryFs.syncPath!(base);
    await assert.rejects(nodeHistoryFs.syncPath!(path.join(base, "gone")), { code: "ENOENT" });
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
