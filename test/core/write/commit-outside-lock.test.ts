// A write's commit is asked for under the write lock (so commits keep the order of the writes) and
// awaited after it is released: the next write runs while this one's commit is still being written,
// and a write answers only once its own commit is done.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { CommitOutcome } from "../../../src/core/write/write-path";
import { WritePath } from "../../../src/core/write/write-path";
import { NodeVaultHost } from "../../../src/hosts/node/host";
import { JsonLineLogger, nodeHasher, systemClock } from "../../../src/hosts/node/services";
import { EDGE_VAULT, tempVault } from "../../support/vaults";
import { within } from "../../support/poll";

test("the next write runs while the previous write's commit is written; each write answers only after its own commit", async () => {
  const vault = tempVault(EDGE_VAULT);
  const logger = new JsonLineLogger({ write: () => undefined });
  const host = new NodeVaultHost({ name: "edge", root: vault.dir, dataDir: vault.dataDir, logger, watch: false, history: false });
  await host.start();
  try {
    const asked: Array<{ message: string; release: () => void }> = [];
    const writes = new WritePath({
      vault: "edge",
      reader: host.vault,
      writer: host.writer,
      hasher: nodeHasher,
      clock: systemClock,
      logger,
      resolveLink: () => null,
      afterWrite: async () => undefined,
      commit: (_paths, message) =>
        new Promise<CommitOutcome>((resolve) => {
          asked.push({ message, release: () => resolve("recorded") });
        }),
    });
    const answered: string[] = [];
    const first = writes.write({ tool: "note_edit", path: "one.md", mode: "upsert", dry_run: false, transform: () => "first\n" }).then((result) => {
      answered.push("one.md");
      return result;
    });
    await within(5_000, "the first commit is asked for", () => asked.length === 1);
    const second = writes.write({ tool: "note_edit", path: "two.md", mode: "upsert", dry_run: false, transform: () => "second\n" }).then((result) => {
      answered.push("two.md");
      return result;
    });
    // The second write gets the lock, writes its file and asks for its commit while the first commit is still open.
    await within(5_000, "the second commit is asked for", () => asked.length === 2);
    assert.match(readFileSync(path.join(vault.dir, "two.md"), "utf8"), /\nsecond\n$/);
    assert.deepEqual(asked.map((entry) => entry.message), ["note_edit: one.md", "note_edit: two.md"], "commits keep the order of the writes");
    assert.deepEqual(answered, [], "neither write answers before its commit is done");
    asked[1]!.release();
    await second;
    assert.deepEqual(answered, ["two.md"]);
    asked[0]!.release();
    assert.equal((await first).changed, true);
    assert.deepEqual(answered, ["two.md", "one.md"]);
  } finally {
    await host.stop();
    vault.cleanup();
  }
});
