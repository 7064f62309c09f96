import { test } from "node:test";
import assert from "node:assert/strict";
import { FOREGROUND_WAIT_MS, ForegroundWork, TimeSlice } from "../../src/core/time-slice";

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
