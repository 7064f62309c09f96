// Bearer tokens are random, shown once, and kept only as SHA-256 hashes (SPEC §3).
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export const TOKEN_PREFIX = "sbm_";

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** A bearer token guards every note: one anybody could guess or read over a shoulder is refused. */
export const MIN_TOKEN_LENGTH = 24;
export const MIN_TOKEN_DISTINCT = 8;
export const TOKEN_ADVICE = "generate one with `openssl rand -hex 32`";

/**
 * Why a token someone chose is too weak to guard a vault, or null when it is strong enough. The
 * answer never contains the token.
 */
export function weakTokenProblem(token: string): string | null {
  const characters = [...token];
  if (characters.length >= MIN_TOKEN_LENGTH && new Set(characters).size >= MIN_TOKEN_DISTINCT) return null;
  return `must be at least ${MIN_TOKEN_LENGTH} characters long with at least ${MIN_TOKEN_DISTINCT} different characters (this one is too easy to guess); ${TOKEN_ADVICE}`;
}

export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString("base64url");
}

/** Lowercase hex SHA-256 of the token's UTF-8 bytes. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export function isTokenHash(value: string): boolean {
  return SHA256_HEX.test(value);
}

/** Constant-time equality of two byte strings; unequal lengths still cost a comparison. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) {
    timingSafeEqual(a, a);
    return false;
  }
  return timingSafeEqual(a, b);
}
