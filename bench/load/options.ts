// Command-line options of `npm run load` (pass them after `--`: `npm run load -- --clients 4`).
import path from "node:path";

export interface LoadOptions {
  notes: number;
  clients: number;
  seconds: number;
  seed: number;
  /** Notes each client appends to that no other client touches. */
  ownNotes: number;
  /** Notes every client appends to, so that hash checks actually collide. */
  hotNotes: number;
  outDir: string;
  vaultCache: string;
  generator: string;
  keep: boolean;
  /** Where the server writes a V8 CPU profile of the run (`--cpu-prof-dir`); none when empty. */
  cpuProfileDir: string;
}

const REPO_ROOT = path.resolve(__dirname, "..", "..");

export const LOAD_USAGE = `npm run load -- [options]

Starts the headless server on a copy of a generated vault and drives it with concurrent MCP SDK
clients (note_search, note_read, hash-checked appends with retry on conflict) for a fixed time, then
stops it and checks every acknowledged append against the final files.

  --notes N        generated vault size (default 20000)
  --clients N      concurrent clients (default 16, at most 256)
  --seconds S      duration of the load (default 60, at most 3600)
  --seed N         generator and mix seed (default 42)
  --own-notes N    notes owned by each client (default 8)
  --hot-notes N    notes shared by all clients (default 4)
  --out DIR        results folder (default bench/out)
  --vault-cache DIR  generated vaults kept between runs (default <out>/vaults)
  --generator FILE gen-vault.mjs (default /work/shared/tools/gen-vault.mjs)
  --keep           keep the scratch folder (vault copy, data folder, config)
  --cpu-prof DIR   the server writes a V8 CPU profile of its whole run into DIR
  --help           this text
`;

export function parseLoadOptions(argv: readonly string[]): LoadOptions | "help" {
  const options: LoadOptions = {
    notes: 20000,
    clients: 16,
    seconds: 60,
    seed: 42,
    ownNotes: 8,
    hotNotes: 4,
    outDir: path.join(REPO_ROOT, "bench", "out"),
    vaultCache: "",
    generator: path.join(REPO_ROOT, "..", "shared", "tools", "gen-vault.mjs"),
    keep: false,
    cpuProfileDir: "",
  };
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
      case "--notes":
        options.notes = boundedInteger(value(), flag, 1, 1_000_000);
        break;
      case "--clients":
        options.clients = boundedInteger(value(), flag, 1, 256);
        break;
      case "--seconds":
        options.seconds = boundedInteger(value(), flag, 1, 3600);
        break;
      case "--seed":
        options.seed = boundedInteger(value(), flag, 1, 2 ** 31);
        break;
      case "--own-notes":
        options.ownNotes = boundedInteger(value(), flag, 1, 1000);
        break;
      case "--hot-notes":
        options.hotNotes = boundedInteger(value(), flag, 1, 1000);
        break;
      case "--out":
        options.outDir = path.resolve(value());
        break;
      case "--vault-cache":
        options.vaultCache = path.resolve(value());
        break;
      case "--generator":
        options.generator = path.resolve(value());
        break;
      case "--cpu-prof":
        options.cpuProfileDir = path.resolve(value());
        break;
      case "--keep":
        options.keep = true;
        break;
      default:
        throw new Error(`unknown option ${flag} (see --help)`);
    }
  }
  if (options.vaultCache === "") options.vaultCache = path.join(options.outDir, "vaults");
  return options;
}

function boundedInteger(text: string, flag: string, minimum: number, maximum: number): number {
  const value = Number(text.trim());
  if (!Number.isInteger(value) || value < minimum || value > maximum) {
    throw new Error(`${flag} takes a whole number from ${minimum} to ${maximum}, not "${text}"`);
  }
  return value;
}
