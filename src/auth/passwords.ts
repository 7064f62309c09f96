// Sign-in passwords of the headless server. The config holds a reference, never the password:
// `env:NAME` (an environment variable) or `file:/absolute/path` (a file, its trailing newline
// ignored), read at each sign-in so a changed secret needs no restart. Every check, an unknown user
// included, hashes and compares once, so the time taken does not tell which names exist.
import { createHash, randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "../core/ports";
import { constantTimeEqual } from "./tokens";

const ENV_REFERENCE = /^env:([A-Za-z_][A-Za-z0-9_]*)$/;
const FILE_REFERENCE = /^file:(.+)$/;
/** What password reference a config entry names, or why it names none. */
export function passwordReferenceProblem(value: string): string | null {
  if (ENV_REFERENCE.test(value)) return null;
  const file = FILE_REFERENCE.exec(value);
  if (file && path.isAbsolute(file[1]!)) return null;
  return "must be env:NAME (an environment variable holding the password) or file:/absolute/path (a file holding it); the password itself never goes into the config";
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

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

export class PasswordChecker {
  /** Compared against when there is nothing to compare against, so every check costs the same. */
  private readonly dummy = digest(randomBytes(32).toString("base64url"));

  constructor(
    private readonly passwords: () => ReadonlyMap<string, string>,
    private readonly logger: Logger,
    private readonly source: PasswordSource = (reference) => readPasswordReference(reference),
  ) {}

  async verify(name: string, password: string): Promise<boolean> {
    const reference = this.passwords().get(name);
    const secret = reference === undefined ? null : await this.source(reference);
    if (reference !== undefined && secret === null) {
      // Only which kind: a file reference is a path of the host, which no log line shows (SPEC §11).
      this.logger.log({ level: "error", event: "password_unavailable", user: name, source: reference.startsWith("env:") ? "env" : "file" });
    }
    const matches = constantTimeEqual(digest(password), secret === null ? this.dummy : digest(secret));
    return matches && secret !== null;
  }
}
