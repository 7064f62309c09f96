import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { contentHash, sameHash } from "../../../src/core/notes/hash";

const sha256Hex = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

test("content_hash is the first 16 bytes of SHA-256 as 32 lowercase hex chars", () => {
  const bytes = new TextEncoder().encode("# Note\n");
  const hash = contentHash(bytes, sha256Hex);
  assert.match(hash, /^[0-9a-f]{32}$/);
  assert.equal(hash, createHash("sha256").update(bytes).digest().subarray(0, 16).toString("hex"));
  assert.equal(contentHash(bytes, (b) => sha256Hex(b).toUpperCase()), hash);
  assert.notEqual(contentHash(new TextEncoder().encode("# Note\r\n"), sha256Hex), hash);
});

test("hashes compare case-insensitively", () => {
  const hash = contentHash(new Uint8Array([1, 2, 3]), sha256Hex);
  assert.ok(sameHash(hash, hash.toUpperCase()));
  assert.ok(sameHash(` ${hash}`, hash));
  assert.ok(!sameHash(hash, hash.slice(0, 31)));
  assert.ok(!sameHash(hash, contentHash(new Uint8Array([1, 2]), sha256Hex)));
});
