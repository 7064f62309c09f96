// Fetches an on-device model's files into the data folder, only when called (a button in the plugin,
// a command on the headless server): nothing here runs on search. Each file streams to a staging
// folder through SHA-256 and is refused when its hash or size differs from the pinned manifest; the
// model folder is replaced only once every file has passed, so a failed or aborted download never
// leaves a half model that the provider would load.
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { globalDownloadFetch, saveBody, type DownloadFetch, type DownloadResponse } from "./download-fetch";
import { downloadSize, formatBytes, modelFileUrl, pinProblem, type OnDeviceModel } from "../../core/search/semantic/on-device-models";

export interface DownloadProgress {
  /** The file being fetched. */
  file: string;
  /** Bytes received so far over all files. */
  received: number;
  /** Bytes of the whole download, from the manifest. */
  total: number;
}

export interface DownloadOptions {
  model: OnDeviceModel;
  /** The hub or a mirror, e.g. https://huggingface.co. */
  source: string;
  /** Holds `<repo>/` per model (transformers.js's localModelPath). */
  modelsFolder: string;
  onProgress?: (progress: DownloadProgress) => void;
  /** How files are fetched (default: the global fetch). */
  fetch?: DownloadFetch;
  /** A file's bytes matched its pinned size and SHA-256. */
  onVerified?: (file: { path: string; sha256: string; size: number }) => void;
  signal?: AbortSignal;
}

export class ModelDownloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelDownloadError";
  }
}

const MARKER = ".verified.json";

interface Marker {
  revision: string;
  files: Array<{ path: string; sha256: string }>;
}

export function modelFolder(modelsFolder: string, model: OnDeviceModel): string {
  return path.join(modelsFolder, ...model.repo.split("/"));
}

/** What the user is asked to agree to before a download starts. */
export function downloadPlan(model: OnDeviceModel): { totalBytes: number; summary: string } {
  const problem = pinProblem(model);
  if (problem !== null) throw new ModelDownloadError(problem);
  const totalBytes = downloadSize(model);
  return { totalBytes, summary: `${model.id}: ${model.files.length} files, ${formatBytes(totalBytes)}` };
}

/** True when the pinned revision's files were all downloaded and verified. */
export async function isModelReady(modelsFolder: string, model: OnDeviceModel): Promise<boolean> {
  if (pinProblem(model) !== null) return false;
  const folder = modelFolder(modelsFolder, model);
  let marker: Marker;
  try {
    marker = JSON.parse(await readFile(path.join(folder, MARKER), "utf8")) as Marker;
  } catch {
    return false;
  }
  if (marker.revision !== model.revision) return false;
  for (const file of model.files) {
    if (!marker.files.some((entry) => entry.path === file.path && entry.sha256 === file.sha256)) return false;
    try {
      if ((await stat(path.join(folder, ...file.path.split("/")))).size !== file.size) return false;
    } catch {
      return false;
    }
  }
  return true;
}

export async function downloadModel(options: DownloadOptions): Promise<{ folder: string; bytes: number }> {
  const { model } = options;
  const { totalBytes } = downloadPlan(model);
  const folder = modelFolder(options.modelsFolder, model);
  const staging = `${folder}.download`;
  await rm(staging, { recursive: true, force: true });
  let received = 0;
  try {
    for (const file of model.files) {
      const target = path.join(staging, ...file.path.split("/"));
      await mkdir(path.dirname(target), { recursive: true });
      const url = modelFileUrl(options.source, model, file);
      let response: DownloadResponse;
      try {
        response = await (options.fetch ?? globalDownloadFetch)(url, options.signal);
      } catch (error) {
        if (options.signal?.aborted) throw new ModelDownloadError(`the download of ${model.id} was cancelled`);
        throw new ModelDownloadError(`could not reach ${new URL(url).host} for ${model.id} (${(error as Error).message}); check the network or the model source setting`);
      }
      if (!response.ok || response.body === null) {
        throw new ModelDownloadError(`${new URL(url).host} answered HTTP ${response.status} for ${file.path} of ${model.id}; check the model source setting`);
      }
      let saved: { bytes: number; digest: string };
      try {
        saved = await saveBody(response.body, target, {
          limit: file.size,
          algorithm: "sha256",
          encoding: "hex",
          tooLarge: () => new ModelDownloadError(`${file.path} of ${model.id} is larger than the pinned ${file.size} bytes; refused (the source does not serve the pinned revision)`),
          onBytes: (count) => {
            received += count;
            options.onProgress?.({ file: file.path, received, total: totalBytes });
          },
        });
      } catch (error) {
        if (error instanceof ModelDownloadError) throw error;
        if (options.signal?.aborted) throw new ModelDownloadError(`the download of ${model.id} was cancelled`);
        throw new ModelDownloadError(`the download of ${file.path} of ${model.id} broke off (${(error as Error).message}); try again`);
      }
      const { bytes: fileBytes, digest } = saved;
      if (fileBytes !== file.size || digest !== file.sha256) {
        throw new ModelDownloadError(`${file.path} of ${model.id} does not match the pinned checksum (got ${fileBytes} bytes, sha256 ${digest}; expected ${file.size} bytes, sha256 ${file.sha256}); refused and deleted`);
      }
      options.onVerified?.({ path: file.path, sha256: digest, size: fileBytes });
    }
    const marker: Marker = { revision: model.revision ?? "", files: model.files.map((file) => ({ path: file.path, sha256: file.sha256 })) };
    await writeFile(path.join(staging, MARKER), JSON.stringify(marker));
    await rm(folder, { recursive: true, force: true });
    await rename(staging, folder);
    return { folder, bytes: received };
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}
