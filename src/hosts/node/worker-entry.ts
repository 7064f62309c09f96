// Where a worker thread's code is: the bundle beside this one (dist/, or the bench's), or the
// TypeScript source through tsx where the sources run directly (tests). Both callers live in this
// folder, so `__dirname` means the same for them as for this file, bundled or not.
import { existsSync } from "node:fs";
import path from "node:path";

/** How to start the worker named `name` (ingest-worker, binary-worker), or null when neither form is there. */
export function workerEntry(name: string): { file: string; eval: boolean } | null {
  const bundled = path.join(__dirname, `${name}.js`);
  if (existsSync(bundled)) return { file: bundled, eval: false };
  const source = path.join(__dirname, `${name}.ts`);
  if (!__filename.endsWith(".ts") || !existsSync(source)) return null;
  let register: string;
  try {
    register = require.resolve("tsx/cjs/api");
  } catch {
    return null;
  }
  return { file: `require(${JSON.stringify(register)}).register(); require(${JSON.stringify(source)});`, eval: true };
}
