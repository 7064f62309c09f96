// The on-device embedding provider: transformers.js running an ONNX model from the data folder. It
// loads only files a download verified (`isModelReady`); it never fetches (allowRemoteModels off), so
// a search on a vault whose model is missing fails with an instruction instead of a silent download.
// transformers.js is imported at run time, not bundled: it and onnxruntime-node stay an optional
// dependency of the headless server, and main.js does not grow by them.
import type { EmbeddingProvider, EmbeddingRole } from "../../core/search/semantic/provider";
import { EmbeddingError } from "../../core/search/semantic/provider";
import { pinProblem, type OnDeviceModel } from "../../core/search/semantic/on-device-models";
import { isModelReady } from "./model-download";

interface FeatureOutput {
  readonly dims: readonly number[];
  readonly data: ArrayLike<number>;
}
type FeatureExtractor = (texts: string[], options: { pooling: "mean"; normalize: boolean }) => Promise<FeatureOutput>;

/** The part of `@huggingface/transformers` used here. */
export interface TransformersRuntime {
  env: { localModelPath: string; allowRemoteModels: boolean; allowLocalModels: boolean; useBrowserCache?: boolean };
  pipeline: (task: "feature-extraction", model: string, options: { dtype: string }) => Promise<FeatureExtractor>;
}

// A variable, so the bundler leaves the import to run time instead of inlining the package.
const RUNTIME_PACKAGE = "@huggingface/transformers";

export async function loadTransformers(): Promise<TransformersRuntime> {
  try {
    // eslint-disable-next-line no-unsanitized/method -- the specifier is a constant package name, not input
    return (await import(RUNTIME_PACKAGE)) as TransformersRuntime;
  } catch {
    throw new EmbeddingError("unreachable", `the on-device runtime (${RUNTIME_PACKAGE}) is not installed; install it beside the server (npm install ${RUNTIME_PACKAGE}) or use an embeddings endpoint`);
  }
}

export interface OnDeviceOptions {
  model: OnDeviceModel;
  /** Holds the downloaded models (the data folder's models/). */
  modelsFolder: string;
  /** transformers.js dtype of the ONNX file: "q8" reads onnx/model_quantized.onnx, "fp32" onnx/model.onnx. */
  dtype?: string;
  batchSize?: number;
  loadRuntime?: () => Promise<TransformersRuntime>;
  /** How to download the model, said when it is missing (the plugin's button, the server's command). */
  downloadHint?: string;
  /** Bypasses the download marker; only for a model folder built by hand (tests). */
  skipReadyCheck?: boolean;
}

export class OnDeviceProvider implements EmbeddingProvider {
  readonly kind = "on-device";
  readonly model: string;
  readonly batchSize: number;
  private readonly options: OnDeviceOptions;
  private extractor: Promise<FeatureExtractor> | undefined;

  constructor(options: OnDeviceOptions) {
    this.options = options;
    this.model = options.model.id;
    this.batchSize = Math.max(1, options.batchSize ?? 16);
  }

  private async load(): Promise<FeatureExtractor> {
    const { model, modelsFolder } = this.options;
    if (!this.options.skipReadyCheck && !(await isModelReady(modelsFolder, model))) {
      const problem = pinProblem(model);
      if (problem !== null) throw new EmbeddingError("unreachable", problem);
      throw new EmbeddingError("unreachable", `the on-device model "${model.id}" is not downloaded; ${this.options.downloadHint ?? "download it from the plugin settings (or the server's download command) first"}`);
    }
    const runtime = await (this.options.loadRuntime ?? loadTransformers)();
    runtime.env.localModelPath = modelsFolder.endsWith("/") ? modelsFolder : `${modelsFolder}/`;
    runtime.env.allowRemoteModels = false;
    runtime.env.allowLocalModels = true;
    // Inside Obsidian the runtime sees a browser window and would keep copies in its Cache Storage.
    runtime.env.useBrowserCache = false;
    try {
      return await runtime.pipeline("feature-extraction", model.repo, { dtype: this.options.dtype ?? "q8" });
    } catch (error) {
      throw new EmbeddingError("bad_response", `the on-device model "${model.id}" could not be loaded (${(error as Error).message}); download it again`);
    }
  }

  async embed(texts: readonly string[], role: EmbeddingRole = "passage"): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    this.extractor ??= this.load();
    let extractor: FeatureExtractor;
    try {
      extractor = await this.extractor;
    } catch (error) {
      this.extractor = undefined;
      throw error;
    }
    const prefix = role === "query" ? this.options.model.queryPrefix : this.options.model.passagePrefix;
    const vectors: Float32Array[] = [];
    for (let at = 0; at < texts.length; at += this.batchSize) {
      const batch = texts.slice(at, at + this.batchSize).map((text) => prefix + text);
      const output = await extractor(batch, { pooling: "mean", normalize: true });
      const dims = output.dims[output.dims.length - 1] ?? 0;
      for (let row = 0; row < batch.length; row++) vectors.push(Float32Array.from(Array.prototype.slice.call(output.data, row * dims, (row + 1) * dims) as number[]));
    }
    return vectors;
  }
}
