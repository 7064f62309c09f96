// The plugin's on-device embeddings: the model and the runtime live in the plugin's folder, are
// fetched only by the settings tab's Download button, and the runtime is loaded from there by
// absolute path at run time, never from main.js.
import type { App } from "obsidian";
import path from "node:path";
import { downloadSize, formatBytes, pinProblem, type OnDeviceModel } from "../../core/search/semantic/on-device-models";
import { runtimeSize } from "../../core/search/semantic/on-device-runtime";
import type { EmbeddingProvider } from "../../core/search/semantic/provider";
import { downloadModel, isModelReady, type DownloadProgress } from "../node/model-download";
import { nodeDownloadFetch } from "../node/download-fetch";
import { OnDeviceProvider } from "../node/on-device-provider";
import { downloadRuntime, isRuntimeReady, loadRuntimeFrom } from "../node/runtime-download";
import { onDeviceModelsOf, type EmbeddingSettings } from "./settings";

export interface OnDeviceFolders {
  models: string;
  runtime: string;
}

/** The plugin folder's absolute path on disk (desktop Obsidian keeps vaults on a file system). */
export function onDeviceFolders(app: App, pluginDir: string): OnDeviceFolders | null {
  const adapter = app.vault.adapter as { getFullPath?: (vaultPath: string) => string };
  if (typeof adapter.getFullPath !== "function") return null;
  const base = adapter.getFullPath(pluginDir);
  return { models: path.join(base, "models"), runtime: path.join(base, "runtime") };
}

export function chosenModel(embeddings: EmbeddingSettings): OnDeviceModel {
  return onDeviceModelsOf(embeddings)[embeddings.onDeviceModel]!;
}

export interface OnDeviceState {
  model: OnDeviceModel;
  modelReady: boolean;
  runtimeReady: boolean;
  /** Bytes the Download button would fetch now: what is not downloaded yet. */
  toFetch: number;
  /** Why it cannot be downloaded, or null. */
  problem: string | null;
}

export async function onDeviceState(embeddings: EmbeddingSettings, folders: OnDeviceFolders): Promise<OnDeviceState> {
  const model = chosenModel(embeddings);
  const problem = pinProblem(model);
  const modelReady = problem === null && (await isModelReady(folders.models, model));
  const runtimeReady = await isRuntimeReady(folders.runtime);
  return { model, modelReady, runtimeReady, toFetch: (modelReady ? 0 : problem === null ? downloadSize(model) : 0) + (runtimeReady ? 0 : runtimeSize()), problem };
}

export interface DownloadReport {
  /** One line per file or package checked: "sha256 ok  config.json". */
  verified: string[];
  bytes: number;
}

/** What the button does: the runtime, then the model, each only when not already verified on disk. */
export async function downloadOnDevice(embeddings: EmbeddingSettings, folders: OnDeviceFolders, onProgress: (progress: DownloadProgress) => void): Promise<DownloadReport> {
  const state = await onDeviceState(embeddings, folders);
  if (state.problem !== null) throw new Error(state.problem);
  const total = state.toFetch;
  const verified: string[] = [];
  let done = 0;
  if (!state.runtimeReady) {
    const result = await downloadRuntime({
      folder: folders.runtime,
      source: embeddings.runtimeSource,
      fetch: nodeDownloadFetch,
      onProgress: (step) => onProgress({ file: step.file, received: done + step.received, total }),
      onVerified: (pkg) => verified.push(`${pkg.integrity.split("-")[0]} ok  ${pkg.name}@${pkg.version}`),
    });
    done += result.bytes;
  }
  if (!state.modelReady) {
    const result = await downloadModel({
      model: state.model,
      source: embeddings.modelSource,
      modelsFolder: folders.models,
      fetch: nodeDownloadFetch,
      onProgress: (step) => onProgress({ file: step.file, received: done + step.received, total }),
      onVerified: (file) => verified.push(`sha256 ok  ${file.path}`),
    });
    done += result.bytes;
  }
  return { verified, bytes: done };
}

/** The provider for the on-device kind; it fetches nothing and says where to download when files are missing. */
export function onDeviceProvider(embeddings: EmbeddingSettings, folders: OnDeviceFolders): EmbeddingProvider {
  const model = chosenModel(embeddings);
  const size = pinProblem(model) === null ? formatBytes(downloadSize(model) + runtimeSize()) : "after pinning it";
  return new OnDeviceProvider({
    model,
    modelsFolder: folders.models,
    batchSize: 8,
    loadRuntime: () => loadRuntimeFrom(folders.runtime),
    downloadHint: `open Settings → Second Brain MCP → Semantic search and press Download (up to ${size}); search stays lexical until then`,
  });
}
