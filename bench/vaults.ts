// The corpora: generated vaults cached between runs (the only thing that is), copied to a scratch
// folder per run so that touching files never alters the cache, and the deterministic 1% edit.
import { spawnSync } from "node:child_process";
import { existsSync, promises as fs, renameSync } from "node:fs";
import path from "node:path";

export interface CorpusSource {
  /** Stable id used in results, e.g. `synth-20000` or `obsidian-help-en`. */
  id: string;
  kind: "synthetic" | "real";
  /** Folder the run copies from. */
  dir: string;
}

/** Generates `synth-<n>-seed<seed>` under `cacheDir` unless it is already there. */
export function ensureSyntheticVault(cacheDir: string, generator: string, notes: number, seed: number): CorpusSource {
  const dir = path.join(cacheDir, `synth-${notes}-seed${seed}`);
  const id = `synth-${notes}`;
  if (existsSync(dir)) return { id, kind: "synthetic", dir };
  const partial = `${dir}.partial-${process.pid}`;
  const result = spawnSync(process.execPath, [generator, "--n", String(notes), "--seed", String(seed), "--out", partial], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (result.status !== 0) {
    throw new Error(`gen-vault failed for ${notes} notes (exit ${result.status}): ${result.stderr.slice(0, 500)}`);
  }
  // Renamed only once complete, so an interrupted generation is never mistaken for a cached vault.
  renameSync(partial, dir);
  return { id, kind: "synthetic", dir };
}

export async function copyVault(source: string, target: string): Promise<void> {
  await fs.mkdir(path.dirname(target), { recursive: true });
  // cp(1) copies 20,000 small files several times faster than fs.cp; fs.cp is the fallback.
  const copied = spawnSync("cp", ["-R", source, target], { stdio: "ignore" });
  if (copied.status !== 0) await fs.cp(source, target, { recursive: true });
}

/** Vault-relative paths of the `.md` files, sorted; dot-folders (.obsidian, .trash) are skipped. */
export async function listNotes(root: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (relative: string): Promise<void> => {
    const entries = await fs.readdir(path.join(root, relative), { withFileTypes: true });
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue;
      const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) await walk(child);
      else if (entry.isFile() && entry.name.toLowerCase().endsWith(".md")) found.push(child);
    }
  };
  await walk("");
  return found.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Every 100th note, shifted by `round` so that a second edit hits other notes. Each is rewritten
 * with an extra paragraph (new size, new mtime, new words), as an editor saving a change would.
 */
export async function touchOnePercent(root: string, notes: readonly string[], round: number): Promise<string[]> {
  const stride = 100;
  const shift = (round * 37) % stride;
  const chosen = notes.filter((_, index) => index % stride === shift);
  for (const [position, relative] of chosen.entries()) {
    const file = path.join(root, relative);
    const text = await fs.readFile(file, "utf8");
    await fs.writeFile(file, `${text}\n\nRevision ${round}.${position}: benchedit${round} quillowmarker appended paragraph.\n`);
  }
  return chosen;
}

/** One note (the middle one) rewritten with an extra paragraph; returns its path in a list. */
export async function touchOne(root: string, notes: readonly string[]): Promise<string[]> {
  const relative = notes[Math.floor(notes.length / 2)]!;
  const file = path.join(root, relative);
  const text = await fs.readFile(file, "utf8");
  await fs.writeFile(file, `${text}\n\nOne more edit: benchsingle quillowmarker.\n`);
  return [relative];
}
