// On-device embedding models: the pinned manifest of what a download fetches. A model's files are
// fetched only when the user asks (never by a search, never bundled), each checked against the SHA-256
// written here, so a changed or truncated file on the hub or a mirror is refused instead of loaded.
//
// A file's `sha256` and `size` come from the hub's metadata for the pinned revision:
// `GET https://huggingface.co/api/models/<repo>/tree/<revision>/<folder>` lists each LFS file with
// `lfs.oid` (its SHA-256) and `lfs.size`; a small non-LFS file (config.json) has only a git blob id
// there, so its SHA-256 is taken by hashing the file fetched from `…/resolve/<revision>/<path>`.
// A model without a revision and every file's hash is listed but cannot be downloaded.

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
// and onnx/model_quantized.onnx. The hub could not be reached where these were pinned, so the values
// were taken from public manifests that pin the same revision and agree with each other (each file's
// hash in at least two of them); a wrong value fails closed, the download refusing the file.
export const ON_DEVICE_MODELS: Readonly<Record<string, OnDeviceModel>> = {
  "multilingual-e5-small": {
    id: "multilingual-e5-small",
    repo: "Xenova/multilingual-e5-small",
    revision: "761b726dd34fb83930e26aab4e9ac3899aa1fa78",
    dims: 384,
    passagePrefix: "passage: ",
    queryPrefix: "query: ",
    multilingual: true,
    files: [
      { path: "config.json", size: 658, sha256: "cb99455288675345e1a4f411438d5d0adbba5fbd3a67ea4fb03c015433b996c1" },
      { path: "tokenizer.json", size: 17_082_730, sha256: "0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39" },
      { path: "tokenizer_config.json", size: 443, sha256: "a1d6bc8734a6f635dc158508bef000f8e2e5a759c7d92f984b2c86e5ff53425b" },
      { path: "onnx/model_quantized.onnx", size: 118_308_185, sha256: "f80102d3f2a1229f387d3c81909990d8945513e347b0eab049f7de3c6f98c193" },
    ],
  },
  "all-MiniLM-L6-v2": {
    id: "all-MiniLM-L6-v2",
    repo: "Xenova/all-MiniLM-L6-v2",
    revision: "751bff37182d3f1213fa05d7196b954e230abad9",
    dims: 384,
    passagePrefix: "",
    queryPrefix: "",
    multilingual: false,
    files: [
      { path: "config.json", size: 650, sha256: "7135149f7cffa1a573466c6e4d8423ed73b62fd2332c575bf738a0d033f70df7" },
      { path: "tokenizer.json", size: 711_661, sha256: "da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0" },
      { path: "tokenizer_config.json", size: 366, sha256: "9261e7d79b44c8195c1cada2b453e55b00aeb81e907a6664974b4d7776172ab3" },
      { path: "onnx/model_quantized.onnx", size: 22_972_370, sha256: "afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1" },
    ],
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
