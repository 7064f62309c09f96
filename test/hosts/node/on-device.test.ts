// On-device embeddings: the model download over a real HTTP server (the hub stand-in this test
// starts), with its size announced first, progress, SHA-256 checks and refusal, and the provider
// running transformers.js on the hand-built model it downloaded, never fetching by itself.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ON_DEVICE_MODELS, type OnDeviceModel } from "../../../src/core/search/semantic/on-device-models";
import { downloadModel, downloadPlan, isModelReady, ModelDownloadError, modelFolder, type DownloadProgress } from "../../../src/hosts/node/model-download";
import { loadTransformers, OnDeviceProvider, type TransformersRuntime } from "../../../src/hosts/node/on-device-provider";
import { NodeVaultHost } from "../../../src/hosts/node/host";
import { JsonLineLogger } from "../../../src/hosts/node/services";
import { within } from "../../support/poll";
import { manifestOf, startModelHub as startHub, TINY_DIMS, TINY_REVISION as REVISION, tinyModelFiles } from "../../support/tiny-model";

function tinyModel(files: Map<string, Buffer>): OnDeviceModel {
  return { id: "tiny", repo: "test/tiny-bert", revision: REVISION, dims: TINY_DIMS, passagePrefix: "", queryPrefix: "", multilingual: false, files: manifestOf(files) };
}

function tempFolder(t: { after(fn: () => void): void }): string {
  const folder = mkdtempSync(path.join(os.tmpdir(), "sb-models-"));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

test("a pinned model downloads from the configured source with its total size first, progress, and verified files", async (t) => {
  // A 1 MB extra file: real model files are large, and progress must move within a file.
  const files = new Map([...tinyModelFiles(), ["onnx/extra.bin", Buffer.alloc(1_000_000, 7)]]);
  const model = tinyModel(files);
  const hub = await startHub(model.repo, files);
  t.after(() => hub.close());
  const modelsFolder = tempFolder(t);

  const total = [...files.values()].reduce((sum, bytes) => sum + bytes.length, 0);
  const plan = downloadPlan(model);
  assert.equal(plan.totalBytes, total);
  assert.match(plan.summary, /^tiny: 5 files, 1\.0 MB$/);
  assert.equal(hub.requests.length, 0, "planning fetches nothing");
  assert.equal(await isModelReady(modelsFolder, model), false);

  const progress: DownloadProgress[] = [];
  const result = await downloadModel({ model, source: `${hub.url}/`, modelsFolder, onProgress: (step) => progress.push(step) });
  assert.equal(result.bytes, total);
  assert.ok(progress.length > files.size, "progress is reported within files, not only per file");
  assert.ok(progress.every((step, i) => step.total === total && (i === 0 || step.received >= progress[i - 1]!.received)));
  assert.equal(progress.at(-1)!.received, total);
  assert.deepEqual(new Set(progress.map((step) => step.file)), new Set(files.keys()));
  assert.deepEqual(hub.requests.sort(), [...files.keys()].map((file) => `/${model.repo}/resolve/${REVISION}/${file}`).sort());
  assert.equal(await isModelReady(modelsFolder, model), true);
  assert.deepEqual(readdirSync(path.join(modelsFolder, "test")), ["tiny-bert"], "no staging folder is left");
});

test("a file whose checksum differs from the manifest is refused and nothing is kept", async (t) => {
  const files = tinyModelFiles();
  const model = tinyModel(files);
  const tampered = new Map(files);
  const onnx = Buffer.from(files.get("onnx/model_quantized.onnx")!);
  onnx[onnx.length - 1] = onnx[onnx.length - 1]! ^ 0xff;
  tampered.set("onnx/model_quantized.onnx", onnx);
  const hub = await startHub(model.repo, tampered);
  t.after(() => hub.close());
  const modelsFolder = tempFolder(t);

  await assert.rejects(downloadModel({ model, source: hub.url, modelsFolder }), (error: Error) => {
    assert.ok(error instanceof ModelDownloadError);
    assert.match(error.message, /onnx\/model_quantized\.onnx of tiny does not match the pinned checksum .*refused/);
    return true;
  });
  assert.equal(existsSync(modelFolder(modelsFolder, model)), false);
  assert.equal(existsSync(`${modelFolder(modelsFolder, model)}.download`), false);
  assert.equal(await isModelReady(modelsFolder, model), false);
});

test("a file larger than pinned is cut off and refused; a missing one names the HTTP status", async (t) => {
  const files = tinyModelFiles();
  const model = tinyModel(files);
  const grown = new Map(files);
  grown.set("tokenizer.json", Buffer.concat([files.get("tokenizer.json")!, Buffer.alloc(4096, 32)]));
  const hub = await startHub(model.repo, grown);
  t.after(() => hub.close());
  const modelsFolder = tempFolder(t);
  await assert.rejects(downloadModel({ model, source: hub.url, modelsFolder }), /tokenizer\.json of tiny is larger than the pinned \d+ bytes; refused/);
  assert.equal(await isModelReady(modelsFolder, model), false);

  const missing = new Map(files);
  missing.delete("config.json");
  const bare = await startHub(model.repo, missing);
  t.after(() => bare.close());
  await assert.rejects(downloadModel({ model, source: bare.url, modelsFolder }), /answered HTTP 404 for config\.json of tiny; check the model source setting/);
});

test("the shipped models are pinned to a revision with the four files transformers.js reads for q8; an unpinned model refuses to download", () => {
  const e5 = ON_DEVICE_MODELS["multilingual-e5-small"]!;
  const mini = ON_DEVICE_MODELS["all-MiniLM-L6-v2"]!;
  for (const model of [e5, mini]) {
    assert.deepEqual(model.files.map((file) => file.path), ["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model_quantized.onnx"]);
    assert.match(model.revision!, /^[0-9a-f]{40}$/);
  }
  assert.equal(downloadPlan(e5).summary, "multilingual-e5-small: 4 files, 135.4 MB");
  assert.equal(downloadPlan(mini).summary, "all-MiniLM-L6-v2: 4 files, 23.7 MB");
  assert.equal(e5.multilingual, true);
  assert.deepEqual([e5.queryPrefix, e5.passagePrefix], ["query: ", "passage: "]);
  assert.throws(() => downloadPlan({ ...mini, revision: null }), /is not pinned yet: .*cannot be downloaded safely/);
  assert.throws(() => downloadPlan({ ...mini, files: mini.files.map((file) => ({ ...file, sha256: "" })) }), /has no valid SHA-256 for config\.json/);
});

test("the provider embeds with transformers.js from the downloaded folder and never downloads by itself", async (t) => {
  const files = tinyModelFiles();
  const model = tinyModel(files);
  const hub = await startHub(model.repo, files);
  t.after(() => hub.close());
  const modelsFolder = tempFolder(t);

  const early = new OnDeviceProvider({ model, modelsFolder });
  await assert.rejects(early.embed(["the cat"]), /on-device model "tiny" is not downloaded; download it .* first/);
  assert.equal(hub.requests.length, 0, "embedding never triggers a download");

  await downloadModel({ model, source: hub.url, modelsFolder });
  const provider = new OnDeviceProvider({ model, modelsFolder, batchSize: 2 });
  assert.equal(provider.model, "tiny");
  const [cat, catMat, road, catAgain] = await early.embed(["the cat sat", "the cat sat on the mat", "car road", "the cat sat"]);
  for (const vector of [cat!, catMat!, road!]) {
    assert.equal(vector.length, TINY_DIMS);
    assert.ok(Math.abs(Math.hypot(...vector) - 1) < 1e-5, "vectors are normalized");
  }
  const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i]!, 0);
  assert.ok(dot(cat!, catMat!) > dot(cat!, road!), "shared words make closer vectors");
  assert.deepEqual(catAgain, cat);
  const batched = await provider.embed(["the cat sat", "car road", "dog"]);
  assert.deepEqual(batched[0], cat, "batches split texts without mixing rows");
  assert.deepEqual(batched[1], road);
  assert.equal(hub.requests.length, files.size, "loading the model fetched nothing more");
});

test("an e5-style model gets its manifest's query prefix before questions and passage prefix before note text", async (t) => {
  const files = tinyModelFiles();
  const model: OnDeviceModel = { ...tinyModel(files), queryPrefix: "query: ", passagePrefix: "passage: " };
  const modelsFolder = tempFolder(t);
  const hub = await startHub(model.repo, files);
  t.after(() => hub.close());
  await downloadModel({ model, source: hub.url, modelsFolder });
  const seen: string[][] = [];
  // The real runtime, with each batch the model is given recorded on its way in.
  const recording = async (): Promise<TransformersRuntime> => {
    const runtime = await loadTransformers();
    return {
      env: runtime.env,
      pipeline: async (task, name, options) => {
        const extract = await runtime.pipeline(task, name, options);
        return (texts, pooling) => {
          seen.push([...texts]);
          return extract(texts, pooling);
        };
      },
    };
  };
  const provider = new OnDeviceProvider({ model, modelsFolder, loadRuntime: recording });
  await provider.embed(["the cat sat"], "query");
  await provider.embed(["the cat sat", "car road"], "passage");
  assert.deepEqual(seen, [["query: the cat sat"], ["passage: the cat sat", "passage: car road"]]);

  const bare = new OnDeviceProvider({ model: tinyModel(files), modelsFolder, loadRuntime: recording });
  seen.length = 0;
  await bare.embed(["the cat sat"], "query");
  assert.deepEqual(seen, [["the cat sat"]], "a model without prefixes gets the text as given");
});

test("a vault host with the on-device kind embeds the vault in the background and answers semantic searches", async (t) => {
  const files = tinyModelFiles();
  const model = tinyModel(files);
  const hub = await startHub(model.repo, files);
  t.after(() => hub.close());
  const modelsFolder = tempFolder(t);
  await downloadModel({ model, source: hub.url, modelsFolder });
  const root = tempFolder(t);
  writeFileSync(path.join(root, "pets.md"), "# Pets\n\nthe cat sat on the mat\n");
  writeFileSync(path.join(root, "roads.md"), "# Roads\n\ncar road car road\n");
  writeFileSync(path.join(root, "dogs.md"), "# Dogs\n\nthe dog sat\n");
  const host = new NodeVaultHost({ name: "tiny", root, dataDir: tempFolder(t), logger: new JsonLineLogger({ write: () => undefined }), watch: false, history: false, ingestWorkers: 0, embeddings: { kind: "on-device", model, modelsFolder } });
  t.after(() => host.stop());
  await host.start();
  await within(30_000, "the vault is embedded on the device", () => {
    const status = host.engine.semanticStatus();
    return status.state === "ready" && status.done === 3;
  });
  assert.equal(host.engine.semanticStatus().model, "tiny");
  const outcome = await host.engine.search("cat mat", { limit: 3, offset: 0, mode: "semantic" });
  assert.equal(outcome.mode, "semantic");
  assert.equal(outcome.hits[0]!.path, "pets.md");
  assert.equal(hub.requests.length, files.size, "embedding and searching fetched nothing");
});
