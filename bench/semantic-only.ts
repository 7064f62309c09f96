// `node bench/out/build/semantic-only.js [--sizes N] [--seed N]`: only the semantic phase of the
// bench (bench/semantic.ts) on a synthetic vault, printed as JSON.
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseOptions } from "./options";
import { buildQueryMix } from "./queries";
import { benchSemantic } from "./semantic";
import { copyVault, ensureSyntheticVault, listNotes } from "./vaults";

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (options === "help") return;
  const size = options.sizes[0] ?? 20000;
  await fs.mkdir(options.vaultCache, { recursive: true });
  const source = ensureSyntheticVault(options.vaultCache, options.generator, size, options.seed);
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), "sbm-semantic-"));
  try {
    const root = path.join(scratch, "vault");
    await copyVault(source.dir, root);
    const notes = await listNotes(root);
    const mix = await buildQueryMix(root, notes, options.perKind, options.seed);
    const result = await benchSemantic(root, path.join(scratch, "data"), mix.queries, options.repeat);
    process.stdout.write(JSON.stringify({ corpus: source.id, notes: notes.length, semantic: result }, null, 2) + "\n");
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
