// The on-device runtime fetched from a registry (a local stand-in serving npm's own tarballs): each
// checked against the lockfile's integrity, unpacked with this platform's engine only, and loaded by
// absolute path to run the tiny model; a tampered tarball is refused and nothing is kept.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { RUNTIME_PACKAGES, runtimeSize, tarballUrl } from "../../../src/core/search/semantic/on-device-runtime";
import { downloadRuntime, isRuntimeReady, loadRuntimeFrom } from "../../../src/hosts/node/runtime-download";
import { ModelDownloadError, type DownloadProgress } from "../../../src/hosts/node/model-download";
import { runtimeTarballs, startFileServer, TINY_DIMS, tinyModelFiles, writeModel } from "../../support/tiny-model";

function tempFolder(t: { after(fn: () => void): void }): string {
  const folder = mkdtempSync(path.join(os.tmpdir(), "sb-runtime-"));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

test("the runtime's pins are the lockfile's: same versions and sha512 integrity", () => {
  const lock = JSON.parse(readFileSync(path.join(process.cwd(), "package-lock.json"), "utf8")) as { packages: Record<string, { version: string; integrity: string }> };
  for (const pkg of RUNTIME_PACKAGES) {
    const locked = lock.packages[`node_modules/${pkg.name}`];
    assert.ok(locked, `${pkg.name} is in the lockfile`);
    assert.equal(pkg.version, locked.version, pkg.name);
    assert.equal(pkg.integrity, locked.integrity, pkg.name);
  }
  assert.equal(tarballUrl("https://registry.npmjs.org/", RUNTIME_PACKAGES[0]!), "https://registry.npmjs.org/@huggingface/transformers/-/transformers-4.3.2.tgz");
});

test("the runtime downloads with progress, is checked against the lockfile, keeps one platform's engine and runs a model from its folder", async (t) => {
  const registry = await startFileServer(runtimeTarballs());
  t.after(() => registry.close());
  const base = tempFolder(t);
  const folder = path.join(base, "runtime");
  assert.equal(await isRuntimeReady(folder), false);
  await assert.rejects(loadRuntimeFrom(folder), /the on-device runtime is not downloaded; .*press Download/);

  const progress: DownloadProgress[] = [];
  const verified: string[] = [];
  const result = await downloadRuntime({ folder, source: registry.url, onProgress: (step) => progress.push(step), onVerified: (pkg) => verified.push(`${pkg.name}@${pkg.version}`) });
  assert.equal(result.bytes, runtimeSize());
  assert.equal(progress.at(-1)!.received, runtimeSize());
  assert.ok(progress.every((step) => step.total === runtimeSize()));
  assert.deepEqual(verified, RUNTIME_PACKAGES.map((pkg) => `${pkg.name}@${pkg.version}`));
  assert.equal(await isRuntimeReady(folder), true);
  assert.deepEqual(readdirSync(path.join(folder, "node_modules", "onnxruntime-node", "bin", "napi-v6")), [process.platform]);
  assert.equal(existsSync(`${folder}.download`), false);

  writeModel(path.join(base, "models", "tiny"), tinyModelFiles());
  const runtime = await loadRuntimeFrom(folder);
  runtime.env.localModelPath = `${path.join(base, "models")}/`;
  runtime.env.allowRemoteModels = false;
  const extract = await runtime.pipeline("feature-extraction", "tiny", { dtype: "q8" });
  const output = await extract(["the cat sat"], { pooling: "mean", normalize: true });
  assert.deepEqual([...output.dims], [1, TINY_DIMS]);
});

test("a tarball that differs from the lockfile is refused, and neither it nor the packages before it are kept", async (t) => {
  const tarballs = runtimeTarballs();
  const common = RUNTIME_PACKAGES.find((pkg) => pkg.name === "onnxruntime-common")!;
  const key = new URL(tarballUrl("http://x", common)).pathname;
  const tampered = Buffer.from(tarballs.get(key)!);
  tampered[100] = tampered[100]! ^ 0xff;
  tarballs.set(key, tampered);
  const registry = await startFileServer(tarballs);
  t.after(() => registry.close());
  const folder = path.join(tempFolder(t), "runtime");
  await assert.rejects(downloadRuntime({ folder, source: registry.url }), (error: Error) => {
    assert.ok(error instanceof ModelDownloadError);
    assert.match(error.message, /^onnxruntime-common@1\.30\.0 does not match the lockfile's integrity \(got 66795 bytes, sha512-\S+; expected 66795 bytes, sha512-\S+\); refused and deleted$/);
    return true;
  });
  assert.equal(existsSync(folder), false);
  assert.equal(existsSync(`${folder}.download`), false);
  assert.equal(await isRuntimeReady(folder), false);
});

test("a tarball longer than its pinned size is cut off at the pin and refused, and nothing is kept", async (t) => {
  const tarballs = runtimeTarballs();
  const common = RUNTIME_PACKAGES.find((pkg) => pkg.name === "onnxruntime-common")!;
  const key = new URL(tarballUrl("http://x", common)).pathname;
  tarballs.set(key, Buffer.concat([tarballs.get(key)!, Buffer.alloc(70_000, 1)]));
  const registry = await startFileServer(tarballs);
  t.after(() => registry.close());
  const folder = path.join(tempFolder(t), "runtime");
  const progress: DownloadProgress[] = [];
  await assert.rejects(downloadRuntime({ folder, source: registry.url, onProgress: (step) => progress.push(step) }), (error: Error) => {
    assert.ok(error instanceof ModelDownloadError);
    assert.equal(error.message, `onnxruntime-common@1.30.0 is larger than the pinned ${common.size} bytes; refused and deleted`);
    return true;
  });
  const upToCommon = RUNTIME_PACKAGES.slice(0, RUNTIME_PACKAGES.indexOf(common) + 1).reduce((sum, pkg) => sum + pkg.size, 0);
  assert.ok(progress.length > 0 && progress.at(-1)!.received <= upToCommon, `no byte past the pin is counted (${progress.at(-1)?.received} of at most ${upToCommon})`);
  assert.equal(existsSync(folder), false);
  assert.equal(existsSync(`${folder}.download`), false);
});
