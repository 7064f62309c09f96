// Fetches the on-device runtime (on-device-runtime.ts) into a folder of the plugin's data, only when
// the user asks: each npm tarball streams to a staging file through sha512 and is refused unless it
// matches the pinned integrity and size, then is unpacked there (ONNX Runtime's engine for this
// platform only). The folder is swapped in once every package passed, and the runtime is then loaded
// from it by absolute path, since a plugin's main.js cannot carry it (no import.meta.url there).
import { createReadStream } from "node:fs";
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { EmbeddingError } from "../../core/search/semantic/provider";
import { RUNTIME_PACKAGES, runtimeSize, tarballUrl, type RuntimePackage } from "../../core/search/semantic/on-device-runtime";
import type { TransformersRuntime } from "./on-device-provider";
import { ModelDownloadError, type DownloadProgress } from "./model-download";
import { globalDownloadFetch, saveBody, type DownloadFetch, type DownloadResponse } from "./download-fetch";

const MARKER = ".verified.json";

interface Marker {
  platform: string;
  arch: string;
  packages: Array<{ name: string; version: string; integrity: string }>;
}

export interface RuntimeDownloadOptions {
  /** The folder the runtime lives in (its node_modules are made inside). */
  folder: string;
  /** The npm registry or a mirror. */
  source: string;
  onProgress?: (progress: DownloadProgress) => void;
  onVerified?: (pkg: { name: string; version: string; integrity: string }) => void;
  packages?: readonly RuntimePackage[];
  /** How tarballs are fetched (default: the global fetch). */
  fetch?: DownloadFetch;
  signal?: AbortSignal;
}

function currentMarker(packages: readonly RuntimePackage[]): Marker {
  return { platform: process.platform, arch: process.arch, packages: packages.map(({ name, version, integrity }) => ({ name, version, integrity })) };
}

export async function isRuntimeReady(folder: string, packages: readonly RuntimePackage[] = RUNTIME_PACKAGES): Promise<boolean> {
  try {
    const marker = JSON.parse(await readFile(path.join(folder, MARKER), "utf8")) as Marker;
    if (JSON.stringify(marker) !== JSON.stringify(currentMarker(packages))) return false;
    await stat(path.join(folder, "node_modules", "@huggingface", "transformers", "package.json"));
    return true;
  } catch {
    return false;
  }
}

/** Loads transformers.js from the runtime folder by its absolute path. */
export async function loadRuntimeFrom(folder: string): Promise<TransformersRuntime> {
  if (!(await isRuntimeReady(folder))) {
    throw new EmbeddingError("unreachable", "the on-device runtime is not downloaded; open Settings → Second Brain MCP → Semantic search and press Download");
  }
  try {
    return createRequire(path.join(folder, "package.json"))("@huggingface/transformers") as TransformersRuntime;
  } catch (error) {
    throw new EmbeddingError("bad_response", `the on-device runtime could not be loaded (${(error as Error).message}); download it again`);
  }
}

/** Which of a package's files are kept: ONNX Runtime ships every platform's engine, this one needs one. */
function keep(pkg: RuntimePackage, relative: string): boolean {
  if (pkg.name !== "onnxruntime-node") return true;
  if (relative === "package.json" || relative.startsWith("dist/")) return true;
  return relative.startsWith(`bin/napi-v6/${process.platform}/${process.arch}/`);
}

function safeRelative(name: string): string | null {
  const parts = name.replace(/^package\//, "").split("/").filter((part) => part !== "");
  if (parts.length === 0 || parts.some((part) => part === "." || part === "..") || name.startsWith("/")) return null;
  return parts.join("/");
}

/** A streaming reader of a ustar archive (with pax and GNU long names) writing the kept files under `target`. */
class TarExtractor extends Writable {
  private pending = Buffer.alloc(0);
  private entry: { name: string | null; size: number; type: string; chunks: Buffer[]; got: number } | null = null;
  private padding = 0;
  private nextName: string | null = null;
  private ended = false;

  constructor(
    private readonly target: string,
    private readonly accept: (relative: string) => boolean,
  ) {
    super();
  }

  override _write(chunk: Buffer, _encoding: string, callback: (error?: Error | null) => void): void {
    this.pending = Buffer.concat([this.pending, chunk]);
    this.drain().then(() => callback(), callback);
  }

  private async drain(): Promise<void> {
    for (;;) {
      if (this.ended) {
        this.pending = Buffer.alloc(0);
        return;
      }
      if (this.padding > 0) {
        const skip = Math.min(this.padding, this.pending.length);
        this.pending = this.pending.subarray(skip);
        this.padding -= skip;
        if (this.padding > 0) return;
      }
      if (this.entry) {
        const take = Math.min(this.entry.size - this.entry.got, this.pending.length);
        if (take > 0) {
          this.entry.chunks.push(this.pending.subarray(0, take));
          this.entry.got += take;
          this.pending = this.pending.subarray(take);
        }
        if (this.entry.got < this.entry.size) return;
        await this.finishEntry(this.entry);
        this.padding = (512 - (this.entry.size % 512)) % 512;
        this.entry = null;
        continue;
      }
      if (this.pending.length < 512) return;
      const header = this.pending.subarray(0, 512);
      this.pending = this.pending.subarray(512);
      if (header.every((byte) => byte === 0)) {
        this.ended = true;
        continue;
      }
      const text = (from: number, length: number): string => header.toString("utf8", from, from + length).replace(/\0.*$/s, "");
      const size = parseInt(text(124, 12).trim() || "0", 8);
      const type = text(156, 1) || "0";
      const prefix = text(345, 155);
      const name = this.nextName ?? (prefix ? `${prefix}/${text(0, 100)}` : text(0, 100));
      if (type !== "x" && type !== "g" && type !== "L") this.nextName = null;
      this.entry = { name, size, type, chunks: [], got: 0 };
      if (size === 0) {
        await this.finishEntry(this.entry);
        this.entry = null;
      }
    }
  }

  private async finishEntry(entry: { name: string | null; type: string; chunks: Buffer[] }): Promise<void> {
    const body = Buffer.concat(entry.chunks);
    if (entry.type === "x") {
      const found = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString("utf8"));
      if (found) this.nextName = found[1]!;
      return;
    }
    if (entry.type === "L") {
      this.nextName = body.toString("utf8").replace(/\0.*$/s, "");
      return;
    }
    if (entry.type !== "0" || entry.name === null) return;
    const relative = safeRelative(entry.name);
    if (relative === null) throw new ModelDownloadError(`a runtime tarball holds an unsafe path (${entry.name}); refused`);
    if (!this.accept(relative)) return;
    const file = path.join(this.target, ...relative.split("/"));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, body);
  }
}

/** Downloads, checks and unpacks every runtime package; the folder is replaced only when all passed. */
export async function downloadRuntime(options: RuntimeDownloadOptions): Promise<{ folder: string; bytes: number }> {
  const packages = options.packages ?? RUNTIME_PACKAGES;
  const total = runtimeSize(packages);
  const staging = `${options.folder}.download`;
  await rm(staging, { recursive: true, force: true });
  let received = 0;
  try {
    for (const pkg of packages) {
      const url = tarballUrl(options.source, pkg);
      const host = new URL(url).host;
      let response: DownloadResponse;
      try {
        response = await (options.fetch ?? globalDownloadFetch)(url, options.signal);
      } catch (error) {
        if (options.signal?.aborted) throw new ModelDownloadError("the runtime download was cancelled");
        throw new ModelDownloadError(`could not reach ${host} for ${pkg.name} (${(error as Error).message}); check the network or the runtime source setting`);
      }
      if (!response.ok || response.body === null) throw new ModelDownloadError(`${host} answered HTTP ${response.status} for ${pkg.name}@${pkg.version}; check the runtime source setting`);
      const [algorithm, expected] = pkg.integrity.split("-", 2) as [string, string];
      const tarball = path.join(staging, ".tarballs", `${pkg.name.replace("/", "+")}-${pkg.version}.tgz`);
      await mkdir(path.dirname(tarball), { recursive: true });
      let saved: { bytes: number; digest: string };
      try {
        saved = await saveBody(response.body, tarball, {
          limit: pkg.size,
          algorithm,
          encoding: "base64",
          tooLarge: () => new ModelDownloadError(`${pkg.name}@${pkg.version} is larger than the pinned ${pkg.size} bytes; refused and deleted`),
          onBytes: (count) => {
            received += count;
            options.onProgress?.({ file: `${pkg.name}@${pkg.version}`, received, total });
          },
        });
      } catch (error) {
        if (error instanceof ModelDownloadError) throw error;
        if (options.signal?.aborted) throw new ModelDownloadError("the runtime download was cancelled");
        throw new ModelDownloadError(`the download of ${pkg.name}@${pkg.version} broke off (${(error as Error).message}); try again`);
      }
      const { bytes, digest } = saved;
      if (bytes !== pkg.size || digest !== expected) {
        throw new ModelDownloadError(`${pkg.name}@${pkg.version} does not match the lockfile's integrity (got ${bytes} bytes, ${algorithm}-${digest}; expected ${pkg.size} bytes, ${pkg.integrity}); refused and deleted`);
      }
      options.onVerified?.({ name: pkg.name, version: pkg.version, integrity: pkg.integrity });
      const target = path.join(staging, "node_modules", ...pkg.name.split("/"));
      await pipeline(createReadStream(tarball), createGunzip(), new TarExtractor(target, (relative) => keep(pkg, relative)));
      await rm(tarball);
    }
    await rm(path.join(staging, ".tarballs"), { recursive: true, force: true });
    // transformers.js requires its image library at load (a native one per platform); text needs
    // none, so a module that refuses images stands in.
    const sharp = path.join(staging, "node_modules", "sharp");
    await mkdir(sharp, { recursive: true });
    await writeFile(path.join(sharp, "package.json"), JSON.stringify({ name: "sharp", version: "0.0.0-absent", main: "index.js" }));
    await writeFile(path.join(sharp, "index.js"), 'module.exports = function sharp() { throw new Error("the on-device runtime reads text only"); };\n');
    await writeFile(path.join(staging, MARKER), JSON.stringify(currentMarker(packages)));
    await rm(options.folder, { recursive: true, force: true });
    await rename(staging, options.folder);
    return { folder: options.folder, bytes: received };
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}
