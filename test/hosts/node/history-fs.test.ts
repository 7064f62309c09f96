// The history's file steps on Node (history-fs.ts), in the headless server's worker and through file
// descriptors (the plugin's): a placed file holds exactly the bytes, a temp that is there is never
// replaced (the durable layer's temp names rely on it), no temp outlives a failed step, and failures
// keep their codes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { inflateSync } from "node:zlib";
import path from "node:path";
import { fdHistoryFs, nodeHistoryFs } from "../../../src/hosts/node/history-fs";
import type { HistoryFs } from "../../../src/history/fenced-fs";

for (const [name, fs] of [
  ["the worker", nodeHistoryFs],
  ["file descriptors", fdHistoryFs],
] as Array<[string, HistoryFs]>) {
  test(`placing and syncing through ${name}: every byte lands under the target's name, a temp that is there is refused and kept, a failed step leaves no temp, failures keep their codes; with deflate the file is the zlib deflate`, async () => {
    const base = mkdtempSync(path.join(os.tmpdir(), "sb-history-fs-"));
    try {
      const target = path.join(base, "object");
      const bytes = new Uint8Array(3 * 1024 * 1024).map((_, at) => (at * 7) % 251);
      writeFileSync(target, "an older copy");
      await fs.placeSynced!(path.join(base, "tmp_1"), target, bytes);
      assert.deepEqual(readFileSync(target), Buffer.from(bytes));
      assert.equal(existsSync(path.join(base, "tmp_1")), false);

      writeFileSync(path.join(base, "tmp_2"), "someone else's");
      await assert.rejects(fs.placeSynced!(path.join(base, "tmp_2"), target, new Uint8Array([1])), { code: "EEXIST" });
      assert.equal(readFileSync(path.join(base, "tmp_2"), "utf8"), "someone else's");
      assert.deepEqual(readFileSync(target), Buffer.from(bytes));

      await assert.rejects(fs.placeSynced!(path.join(base, "missing", "tmp_3"), target, new Uint8Array([1])), { code: "ENOENT" });
      await assert.rejects(fs.placeSynced!(path.join(base, "tmp_4"), path.join(base, "missing", "object"), new Uint8Array([1])), { code: "ENOENT" });
      assert.deepEqual(readdirSync(base).sort(), ["object", "tmp_2"], "the temp of the failed rename is gone");

      const object = path.join(base, "deflated");
      await fs.placeSynced!(path.join(base, "tmp_5"), object, bytes, { deflate: true });
      assert.deepEqual(inflateSync(readFileSync(object)), Buffer.from(bytes), "with deflate, the file is the bytes' zlib deflate");
      rmSync(object);

      await fs.syncPath!(target);
      await fs.syncPath!(base);
      await assert.rejects(fs.syncPath!(path.join(base, "gone")), { code: "ENOENT" });
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
}
