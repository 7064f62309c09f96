// `sign-ins`: who is signed in through OAuth, and signing one client out, from the command line. The
// OAuth state belongs to the server that serves from the data folder and writes it whole at each
// change, so while one runs a sign-out is handed to it (a request file, then SIGHUP) and it revokes
// the tokens itself; with none running, the state file is changed here.
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { nodeOAuthCrypto } from "../../auth/oauth/node-crypto";
import { OAuthService, type SignedInClient } from "../../auth/oauth/service";
import { codeOf, LOCK_FILE, processRunning } from "./data-lock";
import { VAULTS_FOLDER } from "./host";
import { FileOAuthPersistence } from "./oauth-state";

/** Sign-outs asked for while a server runs, in the data folder, taken up by it at SIGHUP and at start. */
export const REVOCATIONS_FILE = "oauth-revocations.json";

export interface Revocation {
  client_id: string;
  user: string;
}

const silent = { log: (): void => undefined };

function parseRevocations(text: string): Revocation[] {
  try {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) return [];
    return value.filter((item): item is Revocation => typeof item === "object" && item !== null && typeof (item as Revocation).client_id === "string" && typeof (item as Revocation).user === "string");
  } catch {
    return [];
  }
}

/** The clients signed in, most recently used first, as the state file holds them; nothing is written. */
export async function readSignIns(dataDir: string): Promise<SignedInClient[]> {
  const file = new FileOAuthPersistence(dataDir);
  const service = await OAuthService.open({ crypto: nodeOAuthCrypto, logger: silent, persistence: { load: () => file.load(), save: () => Promise.resolve() } });
  return service.signedIn();
}

/** The processes of this machine serving from the data folder (the locks of its vaults' folders). */
export async function runningServers(dataDir: string): Promise<number[]> {
  const found = new Set<number>();
  const vaults = path.join(dataDir, VAULTS_FOLDER);
  const entries = await fs.readdir(vaults, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const text = await fs.readFile(path.join(vaults, entry.name, LOCK_FILE), "utf8").catch(() => null);
    if (text === null) continue;
    try {
      const record = JSON.parse(text) as { pid?: unknown; host?: unknown };
      if (typeof record.pid === "number" && record.host === os.hostname() && record.pid !== process.pid && processRunning(record.pid)) found.add(record.pid);
    } catch {
      // Cut short by a crash: no process holds it.
    }
  }
  return [...found];
}

/** Adds a sign-out for a running server to take up (the file written whole, then renamed into place). */
export async function askForRevocation(dataDir: string, revocation: Revocation): Promise<void> {
  const file = path.join(dataDir, REVOCATIONS_FILE);
  const pending = parseRevocations((await fs.readFile(file, "utf8").catch(() => null)) ?? "[]");
  pending.push(revocation);
  const temp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(temp, JSON.stringify(pending), { mode: 0o600 });
  await fs.rename(temp, file);
}

/** Whether the sign-out is still waiting in the request file. */
export async function revocationWaiting(dataDir: string, revocation: Revocation): Promise<boolean> {
  const text = await fs.readFile(path.join(dataDir, REVOCATIONS_FILE), "utf8").catch(() => null);
  return text !== null && parseRevocations(text).some((item) => item.client_id === revocation.client_id && item.user === revocation.user);
}

/**
 * The sign-outs asked for, taken out of the folder: the file is renamed first, so one added meanwhile
 * lands in a new file for the next time instead of being removed unread.
 */
export async function takeRevocations(dataDir: string): Promise<Revocation[]> {
  const file = path.join(dataDir, REVOCATIONS_FILE);
  const taken = `${file}.${process.pid}.taking`;
  try {
    await fs.rename(file, taken);
  } catch (error) {
    if (codeOf(error) === "ENOENT") return [];
    throw error;
  }
  const text = await fs.readFile(taken, "utf8");
  await fs.unlink(taken);
  return parseRevocations(text);
}

/** Signs the client out with no server running: the state file is loaded, changed and saved here. Returns the tokens revoked. */
export async function revokeOffline(dataDir: string, revocation: Revocation): Promise<number> {
  const service = await OAuthService.open({ crypto: nodeOAuthCrypto, logger: silent, persistence: new FileOAuthPersistence(dataDir) });
  return service.revoke(revocation.client_id, revocation.user);
}
