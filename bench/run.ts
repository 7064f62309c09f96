// `npm run bench`: prepares the corpora, benchmarks each one (bench/corpus.ts), and writes
// bench/out/results.json and results.md. stdout carries the JSON, then the markdown; progress goes
// to stderr.
import { existsSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { benchCorpus, type CorpusResult } from "./corpus";
import { machineInfo } from "./machine";
import { parseOptions, USAGE, type BenchOptions } from "./options";
import { renderMarkdown, type BenchResults } from "./report";
import { ensureSyntheticVault, type CorpusSource } from "./vaults";

const REAL_CORPUS = "obsidian-help-en";

function corpusSources(options: BenchOptions): CorpusSource[] {
  const sources: CorpusSource[] = [];
  if (options.realCorpus) {
    const dir = path.join(options.fixtures, REAL_CORPUS);
    if (!existsSync(dir)) throw new Error(`${dir} not found: pass --fixtures with the folder holding ${REAL_CORPUS}, or --no-real`);
    sources.push({ id: REAL_CORPUS, kind: "real", dir });
  }
  for (const size of options.sizes) {
    process.stderr.write(`[bench] vault of ${size} notes: ${path.join(options.vaultCache, `synth-${size}-seed${options.seed}`)}\n`);
    sources.push(ensureSyntheticVault(options.vaultCache, options.generator, size, options.seed));
  }
  return sources;
}

async function main(): Promise<void> {
  const parsed = parseOptions(process.argv.slice(2));
  if (parsed === "help") {
    process.stdout.write(USAGE);
    return;
  }
  const options = parsed;
  const startedAt = new Date();
  await fs.mkdir(options.vaultCache, { recursive: true });
  const sources = corpusSources(options);
  const machine = machineInfo();
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), "sbm-bench-"));
  const corpora: CorpusResult[] = [];
  try {
    for (const source of sources) {
      corpora.push(await benchCorpus(source, options, scratch));
      // A corpus's copies and data folders are not needed by the next one.
      if (!options.keep) await fs.rm(path.join(scratch, source.id), { recursive: true, force: true });
    }
  } finally {
    if (options.keep) process.stderr.write(`[bench] scratch folder kept: ${scratch}\n`);
    else await fs.rm(scratch, { recursive: true, force: true });
  }
  const { childTimeoutMs: _timeout, ...shown } = options;
  const results: BenchResults = {
    machine,
    options: shown,
    started_at: startedAt.toISOString(),
    duration_s: Math.round((Date.now() - startedAt.getTime()) / 1000),
    corpora,
  };
  const markdown = renderMarkdown(results);
  await fs.mkdir(options.outDir, { recursive: true });
  await fs.writeFile(path.join(options.outDir, "results.json"), JSON.stringify(results, null, 2) + "\n");
  await fs.writeFile(path.join(options.outDir, "results.md"), markdown);
  process.stdout.write(JSON.stringify(results) + "\n\n");
  process.stdout.write(markdown);
  const failed = corpora.flatMap((corpus) => corpus.errors.map((error) => `${corpus.corpus.id}: ${error}`));
  if (failed.length > 0) {
    process.stderr.write(`[bench] ${failed.length} phase(s) failed; see "errors" in results.json\n`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
