// Sign-in passwords of the headless server. The config never holds a password: a user's `password`
// is a bcrypt hash ($2a$/$2b$/$2y$, as `htpasswd -B` and `secondbrain-mcp hash-password` make them),
// or a reference read at each sign-in so a changed secret needs no restart: `env:NAME` (an environment
// variable) or `file:/absolute/path` (a file, its trailing newline ignored), either holding the
// password or a bcrypt hash of it. Every check, an unknown user's included, costs one bcrypt
// comparison, so the time taken does not tell which names exist.
import { createHash, randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import bcrypt from "bcryptjs";
import type { Logger } from "../core/ports";
import { constantTimeEqual } from "./tokens";

const ENV_REFERENCE = /^env:([A-Za-z_][A-Za-z0-9_]*)$/;
const FILE_REFERENCE = /^file:(.+)$/;
/** Modular crypt format: $2a$/$2b$/$2y$, a two-digit cost, 22 characters of salt and 31 of hash. */
const BCRYPT_HASH = /^\$2[aby]\$(0[4-9]|[12][0-9]|3[01])\$[./A-Za-z0-9]{53}$/;
const BCRYPT_ALPHABET = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** What `hash-password` uses; each sign-in attempt pays it once (a fraction of a second in pure JS). */
export const DEFAULT_BCRYPT_COST = 12;
export const MIN_BCRYPT_COST = 4;
export const MAX_BCRYPT_COST = 15;
/** The cost of the dummy an unknown user is compared against when no configured hash names one. */
const FALLBACK_DUMMY_COST = 10;

export const HASH_ADVICE =
  "make a bcrypt hash with `secondbrain-mcp hash-password` (it reads the password from stdin) or `htpasswd -nBC 12 \"\" | tr -d ':\\n'`";

export function isBcryptHash(value: string): boolean {
  return BCRYPT_HASH.test(value);
}

export type PasswordKind = "bcrypt" | "env" | "file";

/** Which kind of password setting a valid config value is. */
export function passwordKind(value: string): PasswordKind {
  if (isBcryptHash(value)) return "bcrypt";
  return value.startsWith("env:") ? "env" : "file";
}

/** Why a config value is no password setting, or null when it is one. The answer never quotes it. */
export function passwordSettingProblem(value: string): string | null {
  if (isBcryptHash(value)) return null;
  if (ENV_REFERENCE.test(value)) return null;
  const file = FILE_REFERENCE.exec(value);
  if (file && path.isAbsolute(file[1]!)) return null;
  if (value.startsWith("$2")) return `is not a whole bcrypt hash ($2a$, $2b$ or $2y$, a two-digit cost from 04 to 31, then 53 characters of salt and hash); ${HASH_ADVICE}`;
  if (value.startsWith("env:")) return "must name an environment variable after env: (letters, digits and _, not starting with a digit)";
  if (value.startsWith("file:")) return "must name an absolute path after file:, such as file:/run/secrets/alice-password";
  return `must be a bcrypt hash, env:NAME or file:/absolute/path, and a password in plain text is refused (whoever reads the config could sign in with it): ${HASH_ADVICE}, or keep the password in an environment variable or a file and name it here`;
}

export type PasswordSource = (reference: string) => Promise<string | null>;

/** Reads a reference: the variable's value, or the file's text without its trailing newline. */
export async function readPasswordReference(reference: string, env: Readonly<Record<string, string | undefined>> = process.env): Promise<string | null> {
  const variable = ENV_REFERENCE.exec(reference);
  if (variable) return env[variable[1]!] || null;
  const file = FILE_REFERENCE.exec(reference);
  if (!file) return null;
  try {
    return (await readFile(file[1]!, "utf8")).replace(/\r?\n$/, "") || null;
  } catch {
    return null;
  }
}

/** A bcrypt hash of the given cost: the cost and the salt are read from the hash, so this is one. */
export function hashPassword(password: string, cost = DEFAULT_BCRYPT_COST): Promise<string> {
  return bcrypt.hash(password, cost);
}

function costOf(hash: string): number {
  return Number(hash.slice(4, 6));
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/** A well-formed hash nobody knows a password for: comparing against it costs what a real one does. */
function dummyHash(cost: number): string {
  const salt = [...randomBytes(53)].map((byte) => BCRYPT_ALPHABET[byte & 63]).join("");
  return `$2b$${String(cost).padStart(2, "0")}$${salt}`;
}

type Secret = { kind: "bcrypt"; hash: string } | { kind: "plain"; text: string };

export class PasswordChecker {
  private readonly dummies = new Map<number, string>();

  constructor(
    private readonly passwords: () => ReadonlyMap<string, string>,
    private readonly logger: Logger,
    private readonly source: PasswordSource = (reference) => readPasswordReference(reference),
  ) {}

  async verify(name: string, password: string): Promise<boolean> {
    const secret = await this.secretOf(name);
    if (secret?.kind === "bcrypt") return bcrypt.compare(password, secret.hash);
    // No hash to compare against (an unknown user, a plain reference, an unreadable one): the same
    // bcrypt work against a dummy, then the digests, so none of these is told apart by its time.
    await bcrypt.compare(password, this.dummy());
    const matches = constantTimeEqual(digest(password), digest(secret?.kind === "plain" ? secret.text : ""));
    return matches && secret !== null;
  }

  private async secretOf(name: string): Promise<Secret | null> {
    const setting = this.passwords().get(name);
    if (setting === undefined) return null;
    if (isBcryptHash(setting)) return { kind: "bcrypt", hash: setting };
    const value = await this.source(setting);
    if (value === null) {
      // Only which kind: a file reference is a path of the host, which no log line shows (SPEC §11).
      this.logger.log({ level: "error", event: "password_unavailable", user: name, source: passwordKind(setting) });
      return null;
    }
    return isBcryptHash(value) ? { kind: "bcrypt", hash: value } : { kind: "plain", text: value };
  }

  /** At the highest cost the config's hashes use, so an unknown name costs what a known one does. */
  private dummy(): string {
    let cost = 0;
    for (const setting of this.passwords().values()) if (isBcryptHash(setting)) cost = Math.max(cost, costOf(setting));
    if (cost === 0) cost = FALLBACK_DUMMY_COST;
    let hash = this.dummies.get(cost);
    if (hash === undefined) {
      hash = dummyHash(cost);
      this.dummies.set(cost, hash);
    }
    return hash;
  }
}
