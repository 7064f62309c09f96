// The write path's lock (VaultWriteLock): writes of different notes run side by side, writes of one
// note (under any case or Unicode form of its name) one after another in the order they came, and a
// vault-wide change alone, never passed by writes that came after it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { VaultWriteLock } from "../../../src/core/write/lock";

/** Work that records when it starts and runs until released. */
function held(log: string[], name: string): { work: () => Promise<string>; release: () => void; started: () => boolean } {
  let release!: () => void;
  let started = false;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return {
    work: async () => {
      started = true;
      log.push(`start ${name}`);
      await gate;
      log.push(`end ${name}`);
      return name;
    },
    release: () => release(),
    started: () => started,
  };
}

/** Lets every pending promise callback run. */
async function settle(): Promise<void> {
  for (let round = 0; round < 10; round++) await new Promise<void>((resolve) => setImmediate(resolve));
}

test("writes of different notes run side by side", async () => {
  const lock = new VaultWriteLock();
  const log: string[] = [];
  const a = held(log, "a");
  const b = held(log, "b");
  const running = [lock.note("a.md", a.work), lock.note("folder/b.md", b.work)];
  await settle();
  assert.ok(a.started() && b.started(), "both started before either ended");
  b.release();
  a.release();
  assert.deepEqual(await Promise.all(running), ["a", "b"]);
});

test("writes of one note run one after another in the order they came, whatever the case or Unicode form of its name", async () => {
  const lock = new VaultWriteLock();
  const log: string[] = [];
  const names = ["Café.md", "cafe\u0301.md", "CAFÉ.md"];
  const works = names.map((_, at) => held(log, String(at)));
  const running = names.map((name, at) => lock.note(name, works[at]!.work));
  for (let at = 0; at < works.length; at++) {
    await settle();
    assert.deepEqual(
      works.map((work) => work.started()),
      works.map((_, other) => other <= at),
      `only write ${at} and those before it have started`,
    );
    works[at]!.release();
  }
  await Promise.all(running);
  assert.deepEqual(log, ["start 0", "end 0", "start 1", "end 1", "start 2", "end 2"]);
});

test("a write of another note passes a waiting write of a busy note, never an earlier write of its own note", async () => {
  const lock = new VaultWriteLock();
  const log: string[] = [];
  const first = held(log, "a1");
  const second = held(log, "a2");
  const other = held(log, "b");
  const running = [lock.note("a.md", first.work), lock.note("a.md", second.work), lock.note("b.md", other.work)];
  await settle();
  assert.ok(first.started() && !second.started() && other.started());
  other.release();
  first.release();
  await settle();
  assert.ok(second.started());
  second.release();
  await Promise.all(running);
});

test("a vault-wide change waits for the running note writes, runs alone, and writes that came after it wait for it", async () => {
  const lock = new VaultWriteLock();
  const log: string[] = [];
  const before = held(log, "before");
  const whole = held(log, "whole");
  const after = held(log, "after");
  const running = [lock.note("a.md", before.work), lock.run(whole.work), lock.note("b.md", after.work)];
  await settle();
  assert.ok(before.started() && !whole.started() && !after.started(), "the vault-wide change waits; the later note write does not pass it");
  before.release();
  await settle();
  assert.ok(whole.started() && !after.started(), "the vault-wide change runs alone");
  whole.release();
  await settle();
  assert.ok(after.started());
  after.release();
  await Promise.all(running);
  assert.deepEqual(log, ["start before", "end before", "start whole", "end whole", "start after", "end after"]);
});

test("a failed write releases its note: the next write of it runs", async () => {
  const lock = new VaultWriteLock();
  await assert.rejects(
    lock.note("a.md", () => Promise.reject(new Error("refused"))),
    /refused/,
  );
  await assert.rejects(
    lock.run(() => Promise.reject(new Error("refused too"))),
    /refused too/,
  );
  assert.equal(await lock.note("a.md", () => Promise.resolve("next")), "next");
  assert.equal(await lock.run(() => Promise.resolve("alone")), "alone");
});
