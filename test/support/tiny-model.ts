// A real but tiny feature-extraction model, built here because no pretrained one can be downloaded on
// test machines: an ONNX graph (a Gather over an 8-dimensional embedding table, so each word has its
// own vector) written with the ONNX protobuf code that onnxruntime-web ships, a BERT WordPiece
// tokenizer over a dozen words, and the config transformers.js reads.
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import path from "node:path";
import type { ModelFile } from "../../src/core/search/semantic/on-device-models";
import { RUNTIME_PACKAGES, tarballUrl, type RuntimePackage } from "../../src/core/search/semantic/on-device-runtime";

interface OnnxCodec {
  onnx: { ModelProto: { create(value: object): object; encode(message: object): { finish(): Uint8Array } } };
}

export const TINY_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "dog", "sat", "on", "mat", "car", "road"];
export const TINY_DIMS = 8;

/** The model's files by path inside the repository (onnx/model_quantized.onnx, read with dtype q8). */
export function tinyModelFiles(): Map<string, Buffer> {
  const load = createRequire(path.join(process.cwd(), "package.json"));
  const { onnx } = load(path.join(process.cwd(), "node_modules/onnxruntime-web/lib/onnxjs/ort-schema/protobuf/onnx.js")) as OnnxCodec;
  const V = TINY_VOCAB.length;
  const table = new Float32Array(V * TINY_DIMS);
  for (let i = 0; i < V; i++) for (let j = 0; j < TINY_DIMS; j++) table[i * TINY_DIMS + j] = Math.sin((i + 1) * (j + 1));
  const tensor = (name: string, elemType: number, dims: Array<string | number>) => ({
    name,
    type: { tensorType: { elemType, shape: { dim: dims.map((d) => (typeof d === "string" ? { dimParam: d } : { dimValue: d })) } } },
  });
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: "secondbrain-test",
    opsetImport: [{ domain: "", version: 13 }],
    graph: {
      name: "tiny",
      initializer: [{ name: "table", dataType: 1, dims: [V, TINY_DIMS], rawData: new Uint8Array(table.buffer) }],
      node: [
        { opType: "Gather", input: ["table", "input_ids"], output: ["last_hidden_state"], attribute: [{ name: "axis", type: 2, i: 0 }] },
        { opType: "Identity", input: ["attention_mask"], output: ["mask"] },
      ],
      input: [tensor("input_ids", 7, ["batch", "seq"]), tensor("attention_mask", 7, ["batch", "seq"])],
      output: [tensor("last_hidden_state", 1, ["batch", "seq", TINY_DIMS]), tensor("mask", 7, ["batch", "seq"])],
    },
  });
  const special = (id: number) => ({ id, content: TINY_VOCAB[id], single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  const tokenizer = {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: [0, 1, 2, 3].map(special),
    normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: {
      type: "TemplateProcessing",
      single: [{ SpecialToken: { id: "[CLS]", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }, { SpecialToken: { id: "[SEP]", type_id: 0 } }],
      pair: [],
      special_tokens: { "[CLS]": { id: "[CLS]", ids: [2], tokens: ["[CLS]"] }, "[SEP]": { id: "[SEP]", ids: [3], tokens: ["[SEP]"] } },
    },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: { type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##", max_input_chars_per_word: 100, vocab: Object.fromEntries(TINY_VOCAB.map((w, i) => [w, i])) },
  };
  return new Map([
    ["config.json", Buffer.from(JSON.stringify({ model_type: "bert", hidden_size: TINY_DIMS, architectures: ["BertModel"] }))],
    ["tokenizer.json", Buffer.from(JSON.stringify(tokenizer))],
    ["tokenizer_config.json", Buffer.from(JSON.stringify({ tokenizer_class: "BertTokenizer", do_lower_case: true, model_max_length: 512, pad_token: "[PAD]", unk_token: "[UNK]", cls_token: "[CLS]", sep_token: "[SEP]" }))],
    ["onnx/model_quantized.onnx", Buffer.from(onnx.ModelProto.encode(model).finish())],
  ]);
}

/** The manifest entries that pin these files. */
export function manifestOf(files: Map<string, Buffer>): ModelFile[] {
  return [...files].map(([file, bytes]) => ({ path: file, size: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") }));
}

export function writeModel(folder: string, files: Map<string, Buffer>): void {
  for (const [file, bytes] of files) {
    mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
    writeFileSync(path.join(folder, file), bytes);
  }
}

/** The revision the tests pin their models at. */
export const TINY_REVISION = "0123456789abcdef0123456789abcdef01234567";

export interface ModelHub {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

/** Serves `files` at `/<repo>/resolve/<revision>/<path>` as the hub does, in small chunks so progress has steps. */
export async function startModelHub(repo: string, files: Map<string, Buffer>, revision = TINY_REVISION): Promise<ModelHub> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    // Requests as clients make them; the storage a redirect leads to is not counted.
    if (!request.url?.startsWith("/storage/")) requests.push(request.url ?? "");
    const prefix = `/${repo}/resolve/${revision}/`;
    const name = request.url?.startsWith(prefix) ? decodeURIComponent(request.url.slice(prefix.length)) : undefined;
    // The hub answers a file kept in LFS (the ONNX weights) with a redirect to its storage.
    if (name?.startsWith("onnx/") && files.has(name)) {
      response.writeHead(302, { Location: `/storage/${encodeURIComponent(name)}` }).end();
      return;
    }
    const stored = request.url?.startsWith("/storage/") ? decodeURIComponent(request.url.slice("/storage/".length)) : undefined;
    const file = files.get(name ?? stored ?? "");
    if (file === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "Content-Type": "application/octet-stream" });
    for (let at = 0; at < file.length; at += 256) response.write(file.subarray(at, at + 256));
    response.end();
  });
  return listening(server, requests);
}

/**
 * The runtime's npm tarballs as the registry serves them: from npm's cache (content-addressed by the
 * lockfile's integrity, so these are the bytes `npm ci` verified), else fetched by `npm pack`.
 */
export function runtimeTarballs(packages: readonly RuntimePackage[] = RUNTIME_PACKAGES): Map<string, Buffer> {
  const cache = execFileSync("npm", ["config", "get", "cache"], { encoding: "utf8" }).trim();
  const found = new Map<string, Buffer>();
  for (const pkg of packages) {
    const [algorithm, digest] = pkg.integrity.split("-", 2) as [string, string];
    const hex = Buffer.from(digest, "base64").toString("hex");
    const cached = path.join(cache, "_cacache", "content-v2", algorithm, hex.slice(0, 2), hex.slice(2, 4), hex.slice(4));
    let bytes: Buffer;
    if (existsSync(cached)) {
      bytes = readFileSync(cached);
    } else {
      const folder = mkdtempSync(path.join(os.tmpdir(), "sb-pack-"));
      try {
        const file = execFileSync("npm", ["pack", `${pkg.name}@${pkg.version}`, "--pack-destination", folder, "--silent"], { encoding: "utf8" }).trim().split("\n").at(-1)!;
        bytes = readFileSync(path.join(folder, file));
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    }
    found.set(new URL(tarballUrl("http://registry.invalid", pkg)).pathname, bytes);
  }
  return found;
}

/** The server listening on a free port of 127.0.0.1, as a hub that counts `requests`. */
async function listening(server: Server, requests: string[]): Promise<ModelHub> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Serves `files` by URL path (a registry stand-in), counting requests. */
export async function startFileServer(files: Map<string, Buffer>): Promise<ModelHub> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(request.url ?? "");
    const file = files.get(decodeURIComponent(request.url ?? ""));
    if (file === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "Content-Type": "application/octet-stream", "Content-Length": file.length });
    response.end(file);
  });
  return listening(server, requests);
}
