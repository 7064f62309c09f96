// content_hash (SPEC §5): the first 16 bytes of SHA-256 over the exact file bytes, as 32 hex chars.
// Hashing itself is a host port, so the pure core stays free of Node's crypto.

const HASH_HEX_LENGTH = 32;

export function contentHash(bytes: Uint8Array, sha256Hex: (bytes: Uint8Array) => string): string {
  return sha256Hex(bytes).slice(0, HASH_HEX_LENGTH).toLowerCase();
}

/** Agents may echo hashes in either case. */
export function sameHash(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}
