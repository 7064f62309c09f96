import { after, test } from "node:test";
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { LogRecord } from "../../../src/core/ports";
import { Engine } from "../../../src/core/vault/engine";
import { FsVault } from "../../../src/hosts/node/fs-vault";
import { FsWriter } from "../../../src/hosts/node/fs-writer";
import { FileIndexStore } from "../../../src/hosts/node/index-store";
import { NodeMetadata } from "../../../src/hosts/node/node-metadata";
import { nodeHasher, setImmediateYielder, systemClock } from "../../../src/hosts/node/services";
import { EDGE_VAULT, tempVault, type TempVault } from "../../support/vaults";

const vaults: TempVault[] = [];
after(() => vaults.forEach((vault) => vault.cleanup()));

function engineOn(vault: TempVault, logs: LogRecord[]): Engine {
  const fsVault = new FsVault(vault.dir);
  return new Engine({
    name: "test",
    vault: fsVault,
    metadata: new NodeMetadata(),
    store: new FileIndexStore(vault.dataDir),
    hasher: nodeHasher,
    clock: systemClock,
    logger: { log: (record) => logs.push(record) },
    yielder: setImmediateYielder,
    writer: new FsWriter(fsVault, nodeHasher),
  });
}

/** Who links to `target`, worked out from the link maps directly. */
function linkersOf(engine: Engine, target: string): Map<string, number> {
  const linkers = new Map<string, number>();
  for (const [source, targets] of Object.entries(engine.metadata().resolvedLinks())) {
    const count = targets[target];
    if (count !== undefined) linkers.set(source, count);
  }
  return linkers;
}

async function prepared(logs: LogRecord[]): Promise<void> {
  while (!logs.some((record) => record.event === "links_prepared")) await new Promise((resolve) => setImmediate(resolve));
}

test("backlinks are prepared in the background after start, and agree with the link maps", async () => {
  const vault = tempVault(EDGE_VAULT);
  vaults.push(vault);
  const logs: LogRecord[] = [];
  const engine = engineOn(vault, logs);
  await engine.start();
  await prepared(logs);
  let linked = 0;
  for (const file of engine.files()) {
    const incoming = engine.incoming(file.path);
    assert.deepEqual(incoming, linkersOf(engine, file.path), file.path);
    linked += incoming.size;
  }
  assert.ok(linked > 5, `${linked} links`);
});

test("an edit while backlinks are prepared is not lost: the stale result is dropped", async () => {
  const vault = tempVault(EDGE_VAULT);
  vaults.push(vault);
  const logs: LogRecord[] = [];
  const engine = engineOn(vault, logs);
  await engine.start();
  writeFileSync(path.join(vault.dir, "linker.md"), "# Linker\n\n[[wiki/rate-limiting]]\n");
  await engine.applyChanges(["linker.md"]);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(engine.incoming("wiki/rate-limiting.md").get("linker.md"), 1);
  assert.deepEqual(engine.incoming("wiki/rate-limiting.md"), linkersOf(engine, "wiki/rate-limiting.md"));
});

test("an attachment that appears resolves the links naming it, and one that goes breaks them again", async () => {
  const vault = tempVault(EDGE_VAULT);
  vaults.push(vault);
  const engine = engineOn(vault, []);
  await engine.start();
  writeFileSync(path.join(vault.dir, "gallery.md"), "# Gallery\n\n![[sunset-4711.png]]\n");
  await engine.applyChanges(["gallery.md"]);
  assert.deepEqual(engine.metadata().unresolvedLinks()["gallery.md"], { "sunset-4711.png": 1 });
  const known = engine.files().length;
  writeFileSync(path.join(vault.dir, "Attachments", "sunset-4711.png"), new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
  await engine.applyChanges(["Attachments/sunset-4711.png"]);
  assert.deepEqual(engine.metadata().resolvedLinks()["gallery.md"], { "Attachments/sunset-4711.png": 1 });
  assert.equal(engine.incoming("Attachments/sunset-4711.png").get("gallery.md"), 1);
  assert.equal(engine.files().length, known + 1, "every other file is still known");
  assert.ok(engine.metadata().getCache("README.md"), "the notes known before keep their metadata");
  rmSync(path.join(vault.dir, "Attachments", "sunset-4711.png"));
  await engine.applyChanges(["Attachments/sunset-4711.png"]);
  assert.deepEqual(engine.metadata().unresolvedLinks()["gallery.md"], { "sunset-4711.png": 1 });
});
