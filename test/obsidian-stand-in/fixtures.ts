// Temp vaults for the stand-in's own tests: a real folder under the OS temp dir, removed afterwards.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createStandInApp, type App } from "./app";

/** Writes `files` (vault path → text) into a fresh temp folder; folders are created as needed. */
export function makeVaultDir(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "stand-in-"));
  for (const [vaultPath, text] of Object.entries(files)) {
    const full = path.join(dir, vaultPath);
    mkdirSync(path.dirname(full), { recursive: true });
    if (vaultPath.endsWith("/")) mkdirSync(full, { recursive: true });
    else writeFileSync(full, text);
  }
  return dir;
}

/** Runs `fn` with a temp folder, removed afterwards whatever happens. */
export async function withVaultDir(files: Record<string, string>, fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = makeVaultDir(files);
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `fn` with a started app (finishStartup done) over a temp vault holding `files`. */
export async function withApp(
  files: Record<string, string>,
  fn: (app: App, dir: string) => Promise<void>,
  config?: Record<string, unknown>,
): Promise<void> {
  await withVaultDir(files, async (dir) => {
    const app = createStandInApp({ vaultDir: dir, config });
    await app.finishStartup();
    try {
      await fn(app, dir);
    } finally {
      // Let a pending parse finish before its files disappear.
      await app.metadataCache.whenIdle();
    }
  });
}
