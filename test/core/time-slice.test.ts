import { test } from "node:test";
import assert from "node:assert/strict";
import { FOREGROUND_WAIT_MS, ForegroundWork, sortInSlices, TimeSlice } from "../../src/core/time-slice";

test("pause yields only once the budget is spent, and restarts the budget", async () => {
  let now = 0;
  let yields = 0;
  const slice = new TimeSlice(() => now, async () => void (yields += 1), 10);
  await slice.pause();
  now = 9;
  await slice.pause();
  assert.equal(yields, 0);
  now = 10;
  await slice.pause();
  assert.equal(yields, 1);
  now = 15;
  await slice.pause();
  assert.equal(yields, 1, "the budget restarted at the yield");
  await slice.yield();
  assert.equal(yields, 2, "yield always yields");
  now = 24;
  await slice.pause();
  assert.equal(yields, 2);
});

test("a real event loop runs timers between the slices of a long loop", async () => {
  const slice = new TimeSlice(() => Date.now(), () => new Promise((resolve) => setImmediate(resolve)), 5);
  let ticks = 0;
  const timer = setInterval(() => (ticks += 1), 1);
  const until = Date.now() + 200;
  while (Date.now() < until) await slice.pause();
  clearInterval(timer);
  assert.ok(ticks >= 3, `timers ran ${ticks} times`);
});

test("a slice waits while foreground work runs, then goes on", async () => {
  let now = 0;
  const turns: string[] = [];
  const foreground = new ForegroundWork();
  let release = (): void => undefined;
  const read = foreground.run(() => new Promise<void>((resolve) => (release = resolve)));
  let yields = 0;
  const slice = new TimeSlice(
    () => now,
    async () => {
      yields += 1;
      if (yields === 3) release();
      await new Promise<void>((resolve) => setImmediate(resolve));
    },
    10,
    foreground,
  );
  now = 10;
  const paused = slice.pause().then(() => turns.push("slice"));
  await read.then(() => turns.push("read"));
  await paused;
  assert.deepEqual(turns, ["read", "slice"]);
  assert.ok(yields >= 3, `${yields} turns`);
  assert.equal(foreground.busy, false);
});

test("a slice stops waiting for foreground work that outlasts the limit", async () => {
  let now = 0;
  const foreground = new ForegroundWork();
  let release = (): void => undefined;
  const read = foreground.run(() => new Promise<void>((resolve) => (release = resolve)));
  const slice = new TimeSlice(
    () => now,
    async () => {
      now += 10;
      await new Promise<void>((resolve) => setImmediate(resolve));
    },
    10,
    foreground,
  );
  now = 10;
  await slice.pause();
  assert.equal(foreground.busy, true, "the slice went on while the read was still running");
  assert.ok(now - 10 >= FOREGROUND_WAIT_MS && now - 10 <= FOREGROUND_WAIT_MS + 20, `waited ${now - 10} ms`);
  release();
  await read;
  assert.equal(foreground.busy, false);
});

test("foreground work that fails stops counting as running", async () => {
  const foreground = new ForegroundWork();
  await assert.rejects(foreground.run(() => Promise.reject(new Error("unreadable"))), /unreadable/);
  assert.equal(foreground.busy, false);
});

test("sortInSlices sorts as Array.prototype.sort does, stably, pausing between runs", async () => {
  let seed = 7;
  const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (const count of [0, 1, 2, 2047, 2048, 2049, 5000, 9000, 20000]) {
    const items = Array.from({ length: count }, (_, i) => ({ key: Math.floor(random() * (count / 3 + 1)), order: i }));
    const compare = (a: { key: number }, b: { key: number }): number => a.key - b.key;
    let pauses = 0;
    const sorted = await sortInSlices(items, compare, async () => void (pauses += 1));
    assert.deepEqual(sorted, [...items].sort(compare), `${count} items`);
    assert.equal(sorted.length, count);
    if (count > 4096) assert.ok(pauses >= count / 2048, `${pauses} pauses for ${count} items`);
  }
});

test("sortInSlices leaves its input alone", async () => {
  const items = ["b", "c", "a"];
  const sorted = await sortInSlices(items, (a, b) => (a < b ? -1 : a > b ? 1 : 0), async () => undefined);
  assert.deepEqual(sorted, ["a", "b", "c"]);
  assert.deepEqual(items, ["b", "c", "a"]);
});
