// Startup reconciliation (SPEC §7): a note whose mtime and size both match the manifest is trusted
// unchanged and costs nothing; only the rest is read and re-indexed.
import { comparePaths } from "../notes/paths";

export interface FileSignature {
  mtime: number;
  size: number;
}

export interface ReconcilePlan {
  unchanged: string[];
  changed: string[];
  added: string[];
  removed: string[];
}

/** Each list sorted; a path listed twice in `current` counts once (its last entry wins). */
export function planReconcile(
  manifest: ReadonlyMap<string, FileSignature>,
  current: ReadonlyArray<{ path: string } & FileSignature>,
): ReconcilePlan {
  const plan: ReconcilePlan = { unchanged: [], changed: [], added: [], removed: [] };
  const seen = new Map<string, FileSignature>();
  for (const file of current) seen.set(file.path, file);
  for (const [path, file] of seen) {
    const known = manifest.get(path);
    if (!known) plan.added.push(path);
    else if (known.mtime === file.mtime && known.size === file.size) plan.unchanged.push(path);
    else plan.changed.push(path);
  }
  for (const path of manifest.keys()) if (!seen.has(path)) plan.removed.push(path);
  for (const list of [plan.unchanged, plan.changed, plan.added, plan.removed]) list.sort(comparePaths);
  return plan;
}

