// A token bucket per key: `burst` requests at once, refilled at `perMinute` a minute.

export interface RateLimit {
  perMinute: number;
  burst: number;
}

/** Generous for one agent, yet a runaway client cannot monopolise the server. */
export const DEFAULT_RATE_LIMIT: RateLimit = { perMinute: 3000, burst: 300 };

export type RateVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  updated: number;
}

// Above this many keys, full buckets are dropped (a full bucket is the same as no bucket). When
// most callers are active, the next sweep waits until the table has doubled, so sweeps stay cheap.
const PRUNE_THRESHOLD = 10_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly refillPerMs: number;
  private pruneAt = PRUNE_THRESHOLD;

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = Date.now,
  ) {
    this.refillPerMs = limit.perMinute / 60_000;
  }

  /** Takes `cost` requests' worth at once, or nothing. A cost above the burst is never allowed. */
  take(key: string, cost = 1): RateVerdict {
    const now = this.now();
    const bucket = this.refilled(this.buckets.get(key), now);
    if (bucket.tokens >= cost) {
      bucket.tokens -= cost;
      this.store(key, bucket);
      return { allowed: true };
    }
    this.store(key, bucket);
    const wanted = Math.min(cost, this.limit.burst);
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((wanted - bucket.tokens) / this.refillPerMs / 1000)) };
  }

  get burst(): number {
    return this.limit.burst;
  }

  private refilled(bucket: Bucket | undefined, now: number): Bucket {
    if (!bucket) return { tokens: this.limit.burst, updated: now };
    const tokens = Math.min(this.limit.burst, bucket.tokens + (now - bucket.updated) * this.refillPerMs);
    return { tokens, updated: now };
  }

  private store(key: string, bucket: Bucket): void {
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.pruneAt) this.prune(bucket.updated);
  }

  /** Callers currently tracked. */
  get size(): number {
    return this.buckets.size;
  }

  private prune(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (this.refilled(bucket, now).tokens >= this.limit.burst) this.buckets.delete(key);
    }
    this.pruneAt = Math.max(PRUNE_THRESHOLD, this.buckets.size * 2);
  }
}
