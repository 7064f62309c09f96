// Where the bench finds the repository: it runs from its TypeScript sources (under tsx) or from the
// bundle bench/build.mjs writes to bench/out/build, so folders are found from package.json upward.
import { existsSync } from "node:fs";
import path from "node:path";

function findRepoRoot(from: string): string {
  let folder = from;
  while (!existsSync(path.join(folder, "package.json"))) {
    const parent = path.dirname(folder);
    if (parent === folder) throw new Error(`no package.json above ${from}`);
    folder = parent;
  }
  return folder;
}

export const REPO_ROOT = findRepoRoot(__dirname);
export const BENCH_DIR = path.join(REPO_ROOT, "bench");
/** True when running from the bundle: child phases are then started from their bundles too. */
export const BUNDLED = __filename.endsWith(".js");
