// What the OAuth logic needs from its host: randomness and hashes (node:crypto headless, the same
// in Electron), the time, and somewhere to keep its state across restarts.

export interface OAuthCrypto {
  /** `bytes` random bytes, base64url without padding. */
  random: (bytes: number) => string;
  /** Lowercase hex SHA-256 of the text's UTF-8 bytes: how codes and tokens are stored. */
  sha256Hex: (text: string) => string;
  /** base64url SHA-256 of the text's ASCII bytes: the PKCE S256 transform (RFC 7636 §4.2). */
  sha256Base64url: (text: string) => string;
  /** Constant-time equality of two strings; unequal lengths still cost a comparison. */
  equal: (a: string, b: string) => boolean;
}

/** The OAuth state as one JSON document, written whole and atomically. */
export interface OAuthPersistence {
  load(): Promise<string | null>;
  save(text: string): Promise<void>;
}
