// On-device embedding models: the pinned manifest of what a download fetches. A model's files are
// fetched only when the user asks (never by a search, never bundled), each checked against the SHA-256
// written here, so a changed or truncated file on the hub or a mirror is refused instead of loaded.
//
// A file's `sha256` and `size` come from the hub's metadata for the pinned revision:
// `GET https://huggingface.co/api/models/<repo>/tree/<revision>/<folder>` lists each LFS file with
// `lfs.oid` (its SHA-256) and `lfs.size`; a small non-LFS file (config.json) has only a git blob id
// there, so its SHA-256 is taken by hashing the file fetched from `…/resolve/<revision>/<path>`.
// Until a model's revision and every file's hash are filled in, it is listed but cannot be downloaded.

export interface ModelFile {
  /** Path inside the model's repository, as transformers.js looks it up. */
  readonly path: string;
  /** Bytes; the download refuses a file that grows past it. */
  readonly size: number;
  /** Lower-case hex SHA-256 of the file's bytes. */
  readonly sha256: string;
}

export interface OnDeviceModel {
  /** The name users pick and vectors record. */
  readonly id: string;
  /** The repository on the hub (or a mirror) holding the ONNX export. */
  readonly repo: string;
  /** The commit the hashes belong to; null until pinned. */
  readonly revision: string | null;
  readonly dims: number;
  /** Text put before each passage and query (e5 models are trained with them). */
  readonly passagePrefix: string;
  readonly queryPrefix: string;
  readonly multilingual: boolean;
  /** Empty until pinned. */
  readonly files: readonly ModelFile[];
}

export const DEFAULT_MODEL_SOURCE = "https://huggingface.co";
export const DEFAULT_ON_DEVICE_MODEL = "multilingual-e5-small";

// The files transformers.js reads for feature extraction with dtype "q8": config.json, the tokenizer
// and onnx/model_quantized.onnx. Their hashes could not be taken on the machine this was written on
// (no route to the hub), so the revisions stay null until filled as described above.
export const ON_DEVICE_MODELS: Readonly<Record<string, OnDeviceModel>> = {
  "multilingual-e5-small": {
    id: "multilingual-e5-small",
    repo: "Xenova/multilingual-e5-small",
    revision: null,
    dims: 384,
    passagePrefix: "passage: ",
    queryPrefix: "query: ",
    multilingual: true,
    files: [],
  },
  "all-MiniLM-L6-v2": {
    id: "all-MiniLM-L6-v2",
    repo: "Xenova/all-MiniLM-L6-v2",
    revision: null,
    dims: 384,
    passagePrefix: "",
    queryPrefix: "",
    multilingual: false,
    files: [],
  },
};

/** Why a model cannot be downloaded as pinned, or null when it can. */
export function pinProblem(model: OnDeviceModel): string | null {
  if (model.revision === null || model.files.length === 0) {
    return `model "${model.id}" is not pinned yet: its manifest has no revision and file checksums, so it cannot be downloaded safely; pick another model, or pin its revision and each file's size and SHA-256 yourself (the headless config's embeddings.pinned_models)`;
  }
  for (const file of model.files) {
    if (!/^[0-9a-f]{64}$/.test(file.sha256)) return `model "${model.id}" has no valid SHA-256 for ${file.path} in its manifest`;
    if (!Number.isInteger(file.size) || file.size <= 0) return `model "${model.id}" has no size for ${file.path} in its manifest`;
    if (file.path.split("/").some((part) => part === "" || part === "." || part === "..")) return `model "${model.id}" lists an unsafe path ${file.path}`;
  }
  return null;
}

/** Total bytes a download fetches: what the user is shown before agreeing to it. */
export function downloadSize(model: OnDeviceModel): number {
  return model.files.reduce((sum, file) => sum + file.size, 0);
}

/** Where one file is fetched from: the hub's (or a mirror's) `resolve` URL at the pinned revision. */
export function modelFileUrl(source: string, model: OnDeviceModel, file: ModelFile): string {
  const base = source.trim().replace(/\/+$/, "");
  const path = file.path.split("/").map(encodeURIComponent).join("/");
  return `${base}/${model.repo}/resolve/${encodeURIComponent(model.revision ?? "")}/${path}`;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  if (bytes >= 1_000) return `${(bytes / 1_000).toFixed(1)} kB`;
  return `${bytes} B`;
}
