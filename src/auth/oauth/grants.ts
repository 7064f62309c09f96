// Codes and tokens of OAuth sign-ins, kept only as SHA-256 hashes. A table is a Map keyed by the
// hash (finding a hash by its value tells nothing about any token: SHA-256 has no useful preimage),
// bounded, oldest first out, each eviction logged.
import type { Logger } from "../../core/ports";

export const CODE_TTL_MS = 60_000;
export const ACCESS_TOKEN_TTL_MS = 12 * 60 * 60 * 1000;
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;
export const MAX_CODES = 1000;
export const MAX_ACCESS_TOKENS = 10_000;
export const MAX_REFRESH_TOKENS = 10_000;
export const ACCESS_TOKEN_PREFIX = "sbm_oat_";
export const REFRESH_TOKEN_PREFIX = "sbm_ort_";

/** RFC 7636 §4.1: 43 to 128 characters of the unreserved set. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** An S256 challenge is the base64url SHA-256 of a verifier: 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function isCodeVerifier(value: string): boolean {
  return VERIFIER.test(value);
}

export function isS256Challenge(value: string): boolean {
  return S256_CHALLENGE.test(value);
}

export interface CodeRecord {
  client_id: string;
  user: string;
  redirect_uri: string;
  code_challenge: string;
  expires_at: number;
}

/** A redeemed code, remembered until it would have expired: a replay revokes what it bought. */
export interface SpentCode {
  client_id: string;
  user: string;
  expires_at: number;
}

export interface TokenRecord {
  client_id: string;
  user: string;
  /** Every token descending from one sign-in. */
  family: string;
  expires_at: number;
  /** Refresh tokens only: already exchanged; presenting it again is a theft signal. */
  rotated?: boolean;
  /** Milliseconds since the epoch: issued, or (access tokens) last accepted. Absent in states saved before it. */
  last_used?: number;
}

export type TableKind = "code" | "spent_code" | "access_token" | "refresh_token" | "csrf_token";

export class HashTable<T extends { expires_at: number }> {
  private readonly rows = new Map<string, T>();

  constructor(
    readonly kind: TableKind,
    private readonly limit: number,
    private readonly logger: Logger,
  ) {}

  get(hash: string): T | undefined {
    return this.rows.get(hash);
  }

  /** Removes and returns a row: a code is gone on any attempt to redeem it. */
  take(hash: string): T | undefined {
    const row = this.rows.get(hash);
    this.rows.delete(hash);
    return row;
  }

  set(hash: string, row: T): void {
    this.rows.delete(hash);
    this.rows.set(hash, row);
    while (this.rows.size > this.limit) {
      const oldest = this.rows.keys().next().value as string;
      this.rows.delete(oldest);
      this.logger.log({ level: "warn", event: "oauth_evicted", table: this.kind, reason: "table_full", limit: this.limit });
    }
  }

  /** Drops expired rows; returns how many. */
  prune(now: number): number {
    let dropped = 0;
    for (const [hash, row] of this.rows) {
      if (row.expires_at <= now) {
        this.rows.delete(hash);
        dropped += 1;
      }
    }
    return dropped;
  }

  /** Drops every row the predicate picks; returns how many. */
  removeWhere(predicate: (row: T) => boolean): number {
    let dropped = 0;
    for (const [hash, row] of this.rows) {
      if (predicate(row)) {
        this.rows.delete(hash);
        dropped += 1;
      }
    }
    return dropped;
  }

  /** Rows not yet expired at `now`. */
  countLive(now: number): number {
    let live = 0;
    for (const row of this.rows.values()) if (row.expires_at > now) live += 1;
    return live;
  }

  entries(): Array<[string, T]> {
    return [...this.rows.entries()];
  }

  load(entries: ReadonlyArray<[string, T]>, now: number): void {
    for (const [hash, row] of entries) if (row.expires_at > now) this.set(hash, row);
  }

  get size(): number {
    return this.rows.size;
  }
}
