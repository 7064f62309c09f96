import { builtinModules } from "node:module";
import esbuild from "esbuild";
import { existsSync } from "node:fs";

const production = process.argv[2] === "production";
const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

const common = {
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "es2022",
  logLevel: "warning",
  sourcemap: production ? false : "inline",
  treeShaking: true,
  legalComments: "none",
};

// main.js is what Obsidian loads: obsidian, electron and the editor packages come from the app.
// The plugin entry arrives with the Obsidian host; until then only the CLI is bundled.
if (existsSync("src/main.ts")) await esbuild.build({
  ...common,
  entryPoints: ["src/main.ts"],
  outfile: "main.js",
  external: ["obsidian", "electron", "@codemirror/*", "@lezer/*", ...nodeBuiltins],
  minify: production,
});

// dist/cli.js is the headless server for Node; dist/ingest-worker.js the threads of its large builds.
await esbuild.build({
  ...common,
  entryPoints: ["src/cli.ts"],
  outfile: "dist/cli.js",
  external: [...nodeBuiltins],
  banner: { js: "#!/usr/bin/env node" },
});
// dist/binary-worker.js parses PDFs (unpdf's pdf.js build) and scales images away from the engine's thread;
// pdf.js is bundled here only, so the CLI itself does not grow with it.
await esbuild.build({
  ...common,
  entryPoints: ["src/hosts/node/binary-worker.ts"],
  outfile: "dist/binary-worker.js",
  external: [...nodeBuiltins],
});
// dist/history-fs-worker.js takes the history's durable file steps off the server's thread.
await esbuild.build({
  ...common,
  entryPoints: ["src/hosts/node/history-fs-worker.ts"],
  outfile: "dist/history-fs-worker.js",
  external: [...nodeBuiltins],
});
await esbuild.build({
  ...common,
  entryPoints: ["src/hosts/node/ingest-worker.ts"],
  outfile: "dist/ingest-worker.js",
  external: [...nodeBuiltins],
});
