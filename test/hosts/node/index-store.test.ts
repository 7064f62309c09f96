import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { FileIndexStore } from "../../../src/hosts/node/index-store";

test("a pinned file reads as it was pinned, also after a save replaced it, until released", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sbmcp-store-"));
  try {
    const store = new FileIndexStore(dir);
    assert.equal(store.pin("index-missing"), null);
    await store.save("index-a", [Uint8Array.of(1, 2, 3), Uint8Array.of(4, 5)]);
    const pinned = store.pin("index-a")!;
    assert.deepEqual(pinned.read(1, 3), Uint8Array.of(2, 3, 4));
    await store.save("index-a", Uint8Array.of(9, 9, 9, 9, 9, 9));
    assert.deepEqual(pinned.read(0, 5), Uint8Array.of(1, 2, 3, 4, 5), "the old bytes, not the new file's");
    assert.equal(pinned.read(3, 5), null, "past the end");
    const fresh = store.pin("index-a")!;
    assert.deepEqual(fresh.read(0, 6), Uint8Array.of(9, 9, 9, 9, 9, 9));
    fresh.release();
    await store.remove("index-a");
    assert.deepEqual(pinned.read(4, 1), Uint8Array.of(5), "a removed file stays readable while pinned");
    pinned.release();
    pinned.release();
    assert.equal(pinned.read(0, 1), null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
