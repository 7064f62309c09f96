import { test } from "node:test";
import assert from "node:assert/strict";
import { RateLimiter } from "../../src/http/rate-limit";

test("a bucket allows the burst, then refills at per_minute", () => {
  let now = 0;
  const limiter = new RateLimiter({ perMinute: 60, burst: 2 }, () => now);
  assert.deepEqual(limiter.take("a"), { allowed: true });
  assert.deepEqual(limiter.take("a"), { allowed: true });
  assert.deepEqual(limiter.take("a"), { allowed: false, retryAfterSeconds: 1 });
  assert.deepEqual(limiter.take("b"), { allowed: true });
  now += 1000;
  assert.deepEqual(limiter.take("a"), { allowed: true });
  assert.equal(limiter.take("a").allowed, false);
  now += 60_000;
  assert.equal(limiter.take("a").allowed, true);
  assert.equal(limiter.take("a").allowed, true);
  assert.equal(limiter.take("a").allowed, false);
});

test("Retry-After rounds the wait for one token up to whole seconds", () => {
  let now = 0;
  const limiter = new RateLimiter({ perMinute: 4, burst: 1 }, () => now);
  limiter.take("k");
  assert.deepEqual(limiter.take("k"), { allowed: false, retryAfterSeconds: 15 });
  now += 14_500;
  assert.deepEqual(limiter.take("k"), { allowed: false, retryAfterSeconds: 1 });
  now += 500;
  assert.deepEqual(limiter.take("k"), { allowed: true });
});

test("many distinct callers do not grow the table without bound", () => {
  let now = 0;
  const limiter = new RateLimiter({ perMinute: 600, burst: 1 }, () => now);
  for (let index = 0; index < 25_000; index += 1) {
    limiter.take(`ip:${index}`);
    now += 1;
  }
  // Buckets refill in 100 ms, so the old ones are pruned and a caller starts fresh.
  assert.ok(limiter.size <= 10_001);
  assert.deepEqual(limiter.take("ip:0"), { allowed: true });
});

test("a cost takes that many tokens at once or none, and a cost over the burst is never allowed", () => {
  let now = 0;
  const limiter = new RateLimiter({ perMinute: 60, burst: 5 }, () => now);
  assert.deepEqual(limiter.take("k", 3), { allowed: true });
  assert.deepEqual(limiter.take("k", 3), { allowed: false, retryAfterSeconds: 1 });
  assert.deepEqual(limiter.take("k", 2), { allowed: true }, "the refused take took nothing");
  assert.equal(limiter.take("k").allowed, false);
  now += 60_000;
  assert.equal(limiter.take("k", 6).allowed, false);
  assert.equal(limiter.take("k", 5).allowed, true);
});
