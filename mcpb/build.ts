// `npm run mcpb`: the headless server as an MCP Bundle for Claude Desktop. The bundle folder holds
// mcpb/manifest.json (with the package's version and the tool list filled in) and the built
// dist/cli.js with its build and PDF/image workers; @anthropic-ai/mcpb validates the manifest and packs the folder.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { ALL_TOOLS } from "../src/tools/registry";

export const ROOT = path.resolve(__dirname, "..");
export const MANIFEST = path.join(ROOT, "mcpb", "manifest.json");
/** What the server needs at run time: dist/cli.js is one bundled file, its workers the others. */
const SERVER_FILES = ["cli.js", "ingest-worker.js", "binary-worker.js", "history-fs-worker.js"];

export interface BuiltBundle {
  /** The .mcpb file. */
  bundle: string;
  /** The folder it was packed from. */
  folder: string;
  manifest: Record<string, unknown>;
}

/** The `mcpb` command of the installed @anthropic-ai/mcpb, as a script for this Node. */
export function mcpbCli(): string {
  const require = createRequire(__filename);
  let dir = path.dirname(require.resolve("@anthropic-ai/mcpb"));
  while (!existsSync(path.join(dir, "package.json"))) dir = path.dirname(dir);
  const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { bin: string | Record<string, string> };
  const bin = typeof pkg.bin === "string" ? pkg.bin : pkg.bin.mcpb;
  if (bin === undefined) throw new Error("@anthropic-ai/mcpb names no mcpb command");
  return path.join(dir, bin);
}

/** Runs `mcpb <args>`; throws with its output when it fails. */
export function mcpb(args: string[]): string {
  const run = spawnSync(process.execPath, [mcpbCli(), ...args], { encoding: "utf8" });
  const output = `${run.stdout}${run.stderr}`;
  if (run.status !== 0) throw new Error(`mcpb ${args[0]} failed (${run.status ?? run.signal}):\n${output}`);
  return output;
}

/** The tool list Claude Desktop shows before installing: each tool's name and title (the server sends the rest). */
function listedTools(): Array<{ name: string; description: string }> {
  return ALL_TOOLS.map((tool) => ({ name: tool.name, description: tool.title }));
}

export function buildBundle(outDir = path.join(ROOT, "dist")): BuiltBundle {
  const dist = path.join(ROOT, "dist");
  for (const file of SERVER_FILES) {
    if (!existsSync(path.join(dist, file))) throw new Error(`dist/${file} is missing: run \`npm run build\` first (npm run mcpb does)`);
  }
  const version = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;
  const manifest = { ...(JSON.parse(readFileSync(MANIFEST, "utf8")) as Record<string, unknown>), version, tools: listedTools() };
  const folder = path.join(outDir, "mcpb");
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(path.join(folder, "server"), { recursive: true });
  writeFileSync(path.join(folder, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  for (const file of SERVER_FILES) copyFileSync(path.join(dist, file), path.join(folder, "server", file));
  copyFileSync(path.join(ROOT, "LICENSE"), path.join(folder, "LICENSE"));
  mcpb(["validate", path.join(folder, "manifest.json")]);
  const bundle = path.join(outDir, `secondbrain-mcp-${version}.mcpb`);
  mcpb(["pack", folder, bundle]);
  return { bundle, folder, manifest };
}

if (require.main === module) {
  try {
    const built = buildBundle();
    process.stdout.write(`${path.relative(process.cwd(), built.bundle)}: open it with Claude Desktop (or drag it onto Settings → Extensions) to install.\n`);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
