// The OAuth crypto port on node:crypto.
import { createHash, randomBytes } from "node:crypto";
import { constantTimeEqual } from "../tokens";
import type { OAuthCrypto } from "./ports";

export const nodeOAuthCrypto: OAuthCrypto = {
  random: (bytes) => randomBytes(bytes).toString("base64url"),
  sha256Hex: (text) => createHash("sha256").update(text, "utf8").digest("hex"),
  sha256Base64url: (text) => createHash("sha256").update(text, "ascii").digest("base64url"),
  equal: (a, b) => constantTimeEqual(Buffer.from(a, "utf8"), Buffer.from(b, "utf8")),
};
