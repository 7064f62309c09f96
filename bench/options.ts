// Command-line options of `npm run bench` (pass them after `--`: `npm run bench -- --sizes 5000`).
import path from "node:path";
import { REPO_ROOT } from "./paths";

export interface BenchOptions {
  sizes: number[];
  realCorpus: boolean;
  seed: number;
  perKind: number;
  repeat: number;
  http: boolean;
  outDir: string;
  vaultCache: string;
  generator: string;
  fixtures: string;
  keep: boolean;
  childTimeoutMs: number;
}



export const USAGE = `npm run bench -- [options]

Benchmarks our engine (cold build, persist, warm start, reconcile, note_search / note_read latency
in-process and over MCP HTTP) against SQLite FTS5 on the same vaults and the same query list.

  --sizes 5000,20000,50000   synthetic vault sizes (default 20000)
  --no-real                  skip the real corpus (obsidian-help-en from the fixtures)
  --seed N                   generator and query-picker seed (default 42)
  --queries-per-kind N       queries of each kind (default 20)
  --repeat N                 timed passes over the query list after one warm-up pass (default 1)
  --no-http                  skip the MCP HTTP measurements
  --out DIR                  results folder (default bench/out)
  --vault-cache DIR          where generated vaults are kept between runs (default bench/out/vaults)
  --generator FILE           gen-vault.mjs (default /work/shared/tools/gen-vault.mjs)
  --fixtures DIR             folder holding obsidian-help-en (default /work/shared/fixtures)
  --keep                     keep the scratch folder (vault copies, data folders, databases)
  --child-timeout-s N        limit for each child process (default 900)
  --help                     this text
`;

export function parseOptions(argv: readonly string[]): BenchOptions | "help" {
  const options: BenchOptions = {
    sizes: [20000],
    realCorpus: true,
    seed: 42,
    perKind: 20,
    repeat: 1,
    http: true,
    outDir: path.join(REPO_ROOT, "bench", "out"),
    vaultCache: path.join(REPO_ROOT, "bench", "out", "vaults"),
    generator: path.join(REPO_ROOT, "..", "shared", "tools", "gen-vault.mjs"),
    fixtures: path.join(REPO_ROOT, "..", "shared", "fixtures"),
    keep: false,
    childTimeoutMs: 900_000,
  };
  let cacheGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = (): string => {
      const next = argv[++i];
      if (next === undefined || next.startsWith("--")) throw new Error(`${flag} needs a value (see --help)`);
      return next;
    };
    switch (flag) {
      case "--help":
      case "-h":
        return "help";
      case "--sizes":
        options.sizes = value()
          .split(",")
          .filter((part) => part.trim() !== "")
          .map((part) => positiveInteger(part, flag));
        break;
      case "--no-real":
        options.realCorpus = false;
        break;
      case "--seed":
        options.seed = positiveInteger(value(), flag);
        break;
      case "--queries-per-kind":
        options.perKind = positiveInteger(value(), flag);
        break;
      case "--repeat":
        options.repeat = positiveInteger(value(), flag);
        break;
      case "--no-http":
        options.http = false;
        break;
      case "--out":
        options.outDir = path.resolve(value());
        break;
      case "--vault-cache":
        options.vaultCache = path.resolve(value());
        cacheGiven = true;
        break;
      case "--generator":
        options.generator = path.resolve(value());
        break;
      case "--fixtures":
        options.fixtures = path.resolve(value());
        break;
      case "--keep":
        options.keep = true;
        break;
      case "--child-timeout-s":
        options.childTimeoutMs = positiveInteger(value(), flag) * 1000;
        break;
      default:
        throw new Error(`unknown option ${flag} (see --help)`);
    }
  }
  if (!cacheGiven) options.vaultCache = path.join(options.outDir, "vaults");
  return options;
}

function positiveInteger(text: string, flag: string): number {
  const value = Number(text.trim());
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${flag} takes a positive integer, not "${text}"`);
  return value;
}
