import { createHash } from "node:crypto";
import { test } from "node:test";
import assert from "node:assert/strict";
import { constantTimeEqual, generateToken, hashToken, isTokenHash, TOKEN_PREFIX } from "../../src/auth/tokens";

test("generated tokens carry the prefix and 32 random bytes in base64url", () => {
  const tokens = new Set(Array.from({ length: 50 }, () => generateToken()));
  assert.equal(tokens.size, 50);
  for (const token of tokens) {
    assert.ok(token.startsWith(TOKEN_PREFIX));
    const body = token.slice(TOKEN_PREFIX.length);
    assert.match(body, /^[A-Za-z0-9_-]+$/);
    assert.equal(Buffer.from(body, "base64url").length, 32);
  }
});

test("hashToken is the lowercase hex SHA-256 of the token's UTF-8 bytes", () => {
  const token = "sbm_bäume-🌲";
  const expected = createHash("sha256").update(Buffer.from(token, "utf8")).digest("hex");
  assert.equal(hashToken(token), expected);
  assert.ok(isTokenHash(hashToken(token)));
  assert.equal(isTokenHash("ABC"), false);
  assert.equal(isTokenHash(expected.toUpperCase()), false);
});

test("constantTimeEqual compares bytes and refuses different lengths", () => {
  const a = Buffer.from(hashToken("a"), "hex");
  assert.equal(constantTimeEqual(a, Buffer.from(hashToken("a"), "hex")), true);
  assert.equal(constantTimeEqual(a, Buffer.from(hashToken("b"), "hex")), false);
  assert.equal(constantTimeEqual(a, a.subarray(0, 16)), false);
});
