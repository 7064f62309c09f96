import { test } from "node:test";
import assert from "node:assert/strict";
import { TimeSlice } from "../../src/core/time-slice";

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
