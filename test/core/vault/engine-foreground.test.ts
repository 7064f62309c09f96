import { after, test } from "node:test";
import assert from "node:assert/strict";
import { Engine } from "../../../src/core/vault/engine";
import { FsVault } from "../../../src/hosts/node/fs-vault";
import { FsWriter } from "../../../src/hosts/node/fs-writer";
import { FileIndexStore } from "../../../src/hosts/node/index-store";
import { NodeMetadata } from "../../../src/hosts/node/node-metadata";
import { nodeHasher, setImmediateYielder } from "../../../src/hosts/node/services";
import { EDGE_VAULT, tempVault, type TempVault } from "../../support/vaults";

const vaults: TempVault[] = [];
after(() => vaults.forEach((vault) => vault.cleanup()));

/** A vault whose reads of one path wait until the test lets them through. */
class HeldVault extends FsVault {
  held: string | null = null;
  private releases: (() => void)[] = [];

  override async readBytes(relative: string): Promise<Uint8Array> {
    if (relative === this.held) await new Promise<void>((resolve) => this.releases.push(resolve));
    return super.readBytes(relative);
  }

  release(): void {
    this.held = null;
    this.releases.splice(0).forEach((resolve) => resolve());
  }
}

/** An engine whose clock stands still, so only the reconcile's unconditional yields give the event loop back. */
async function startedEngine(vault: TempVault): Promise<{ engine: Engine; held: HeldVault; yields: () => number }> {
  const held = new HeldVault(vault.dir);
  let yields = 0;
  const engine = new Engine({
    name: "test",
    vault: held,
    metadata: new NodeMetadata(),
    store: new FileIndexStore(vault.dataDir),
    hasher: nodeHasher,
    clock: { now: () => 0 },
    logger: { log: () => undefined },
    yielder: async () => {
      yields += 1;
      await setImmediateYielder();
    },
    writer: new FsWriter(held, nodeHasher),
  });
  await engine.start();
  return { engine, held, yields: () => yields };
}

/** Runs a reconcile alongside `read` (held) until it ends or has yielded 500 times; says which came first. */
async function reconcileBeside(engine: Engine, yields: () => number): Promise<{ done: boolean; reconciled: Promise<unknown> }> {
  let done = false;
  const from = yields();
  const reconciled = engine.reconcile().then(() => (done = true));
  while (!done && yields() - from < 500) await new Promise((resolve) => setImmediate(resolve));
  return { done, reconciled };
}

test("a reconcile ends after a handful of yields when no read is waiting", async () => {
  const vault = tempVault(EDGE_VAULT);
  vaults.push(vault);
  const { engine, yields } = await startedEngine(vault);
  const { done, reconciled } = await reconcileBeside(engine, yields);
  assert.equal(done, true, "the control for the tests below");
  await reconciled;
});

/** Holds the engine's read of a note while `readNote` runs, and checks that a reconcile waited for it. */
async function reconcileWaitsFor<T>(readNote: (engine: Engine, note: string) => Promise<T>): Promise<{ note: string; value: T }> {
  const vault = tempVault(EDGE_VAULT);
  vaults.push(vault);
  const { engine, held, yields } = await startedEngine(vault);
  const note = engine.files().find((file) => file.isNote)!.path;
  held.held = note;
  const read = readNote(engine, note);
  const { done, reconciled } = await reconcileBeside(engine, yields);
  assert.equal(done, false, "the reconcile waited for the read");
  held.release();
  const value = await read;
  await reconciled;
  return { note, value };
}

test("sliced work lets a tool's read finish before it goes on", async () => {
  const { note, value: file } = await reconcileWaitsFor((engine, path) => engine.read(path, { note: true }));
  assert.equal(file.path, note);
});

test("a phrase checked on a note's text counts as a tool's read too", async () => {
  const { value: text } = await reconcileWaitsFor((engine, path) => engine.bodyText(path));
  assert.equal(typeof text, "string");
});
