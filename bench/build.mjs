// Bundles the bench as the product ships (src/cli.ts and src/main.ts are esbuild bundles): under
// tsx every module is compiled on its own and each call across modules goes through an export
// getter, which costs hot loops several times what the shipped code spends.
import { builtinModules } from "node:module";
import esbuild from "esbuild";

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

await esbuild.build({
  // The ingest worker lands beside the phases, where the Node host looks for it.
  entryPoints: {
    run: "bench/run.ts",
    "cold-build": "bench/cold-build.ts",
    "warm-start": "bench/warm-start.ts",
    "fts5-child": "bench/fts5-child.ts",
    patterns: "bench/patterns.ts",
    "embed-server": "bench/embed-server.ts",
    "semantic-only": "bench/semantic-only.ts",
    "ingest-worker": "src/hosts/node/ingest-worker.ts",
  },
  outdir: "bench/out/build",
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "es2022",
  logLevel: "warning",
  external: ["better-sqlite3", ...nodeBuiltins],
});
