// Why transformers.js is not bundled into main.js, and how it can load instead. Obsidian evaluates
// main.js in a function wrapper of (require, module, exports): no import.meta, no __filename. esbuild
// turns the package's import.meta.url into undefined, and its fallback `createRequire(import.meta.url ??
// __filename)` then throws at load, which would stop the whole plugin. Evaluated by a loader that passes
// the file's real path (the runtime kept as its own file in the data folder), the same bundle runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import esbuild from "esbuild";
import { TINY_DIMS, tinyModelFiles, writeModel } from "../../support/tiny-model";
import type { TransformersRuntime } from "../../../src/hosts/node/on-device-provider";

test("transformers.js bundled to one CommonJS file fails under the plugin loader's wrapper but runs a local model when given its path", async (t) => {
  const built = await esbuild.build({
    stdin: { contents: 'export { pipeline, env } from "@huggingface/transformers";', resolveDir: process.cwd(), loader: "js" },
    bundle: true,
    platform: "node",
    format: "cjs",
    minify: true,
    write: false,
    logLevel: "silent",
    // The native engine and the image library cannot live in one JavaScript file.
    external: ["onnxruntime-node", "sharp"],
  });
  const code = built.outputFiles[0]!.text;
  assert.doesNotMatch(code, /import\.meta/, "the bundle refers to no import.meta");
  t.diagnostic(`runtime bundle: ${code.length} bytes`);

  const folder = mkdtempSync(path.join(os.tmpdir(), "sb-bundle-"));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  writeModel(path.join(folder, "local", "tiny"), tinyModelFiles());
  const loaded: { exports: Partial<TransformersRuntime> } = { exports: {} };
  // The native module is resolved from the project, as it would be from the folder the runtime lives in.
  const projectRequire = createRequire(path.join(process.cwd(), "package.json"));
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- evaluating a bundle is what a plugin loader does
  const asObsidianDoes = new Function("require", "module", "exports", code) as (...args: unknown[]) => void;
  assert.throws(() => asObsidianDoes(projectRequire, { exports: {} }, {}), /__filename is not defined/, "inside main.js the runtime would fail the plugin's load");
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- evaluating a bundle is what a plugin loader does
  const evaluate = new Function("require", "module", "exports", "__filename", "__dirname", code) as (...args: unknown[]) => void;
  evaluate(projectRequire, loaded, loaded.exports, path.join(process.cwd(), "runtime.js"), process.cwd());
  const runtime = loaded.exports as TransformersRuntime;
  runtime.env.localModelPath = `${path.join(folder, "local")}/`;
  runtime.env.allowRemoteModels = false;
  const extract = await runtime.pipeline("feature-extraction", "tiny", { dtype: "q8" });
  const output = await extract(["the cat sat"], { pooling: "mean", normalize: true });
  assert.deepEqual([...output.dims], [1, TINY_DIMS]);
});
