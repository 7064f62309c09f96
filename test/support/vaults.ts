// Temp copies of the shared fixtures: tests write to copies, never to ../shared.
import { cpSync, mkdtempSync, rmSync, chmodSync, readdirSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export const FIXTURES = path.resolve(__dirname, "../../../shared/fixtures");
export const EDGE_VAULT = path.join(FIXTURES, "edge-vault");
export const HELP_VAULT = path.join(FIXTURES, "obsidian-help-en");

function makeWritable(dir: string): void {
  chmodSync(dir, 0o755);
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) makeWritable(full);
    else chmodSync(full, 0o644);
  }
}

/** Every visible file of a vault folder (no dot entries), vault-relative with "/", NFC, sorted. */
export function vaultFiles(root: string, folder = ""): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(path.join(root, folder), { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    const relative = folder === "" ? entry.name : `${folder}/${entry.name}`;
    if (entry.isDirectory()) found.push(...vaultFiles(root, relative));
    else if (entry.isFile()) found.push(relative.normalize("NFC"));
  }
  return found.sort();
}

export interface TempVault {
  dir: string;
  dataDir: string;
  cleanup(): void;
}

/** A copy of `source` in a new temp folder, made under `under` (default: the system's temp folder). */
export function tempVault(source: string, under = os.tmpdir()): TempVault {
  const base = mkdtempSync(path.join(under, "sbmcp-"));
  const dir = path.join(base, "vault");
  const dataDir = path.join(base, "data");
  cpSync(source, dir, { recursive: true });
  makeWritable(dir);
  return { dir, dataDir, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}
