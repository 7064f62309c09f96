// Bearer tokens are random, shown once, and kept only as SHA-256 hashes (SPEC §3).
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export const TOKEN_PREFIX = "sbm_";

const SHA256_HEX = /^[0-9a-f]{64}$/;

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
