// GET for the on-device downloads over Node's http(s) instead of the window's fetch: inside Obsidian
// the window's fetch is held to CORS as a page of app://obsidian.md, which a registry or a hub need
// not allow; Node's client is not. Redirects are followed (the hub answers large files with a 302 to
// its storage), at most a few, and only to http(s).
import http from "node:http";
import https from "node:https";
import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { Readable } from "node:stream";

export interface DownloadResponse {
  ok: boolean;
  status: number;
  body: ReadableStream<Uint8Array> | null;
}

export type DownloadFetch = (url: string, signal?: AbortSignal) => Promise<DownloadResponse>;

const MAX_REDIRECTS = 5;

/** The global fetch, for hosts where it is not held to CORS (Node). */
export const globalDownloadFetch: DownloadFetch = async (url, signal) => {
  const response = await fetch(url, { redirect: "follow", ...(signal ? { signal } : {}) });
  return { ok: response.ok, status: response.status, body: response.body };
};

export const nodeDownloadFetch: DownloadFetch = (url, signal) => {
  const get = (target: URL, redirects: number): Promise<DownloadResponse> =>
    new Promise((resolve, reject) => {
      if (target.protocol !== "http:" && target.protocol !== "https:") {
        reject(new Error(`a redirect to ${target.protocol} is not followed`));
        return;
      }
      const client = target.protocol === "https:" ? https : http;
      const request = client.get(target, { ...(signal ? { signal } : {}) }, (response) => {
        const status = response.statusCode ?? 0;
        const location = response.headers.location;
        if (status >= 300 && status < 400 && location !== undefined) {
          response.resume();
          if (redirects >= MAX_REDIRECTS) {
            reject(new Error(`more than ${MAX_REDIRECTS} redirects`));
            return;
          }
          get(new URL(location, target), redirects + 1).then(resolve, reject);
          return;
        }
        const ok = status >= 200 && status < 300;
        if (!ok) response.resume();
        resolve({ ok, status, body: ok ? (Readable.toWeb(response) as ReadableStream<Uint8Array>) : null });
      });
      request.on("error", reject);
    });
  return get(new URL(url), 0);
};

/**
 * Streams a download to a file while hashing it, and stops at `limit` bytes with `tooLarge()`: a
 * pinned file never takes more room than its pin says. Resolves with the byte count and the digest;
 * the caller compares both with the pin.
 */
export async function saveBody(
  body: ReadableStream<Uint8Array>,
  target: string,
  options: { limit: number; algorithm: string; encoding: "hex" | "base64"; tooLarge: () => Error; onBytes?: (count: number) => void },
): Promise<{ bytes: number; digest: string }> {
  const hash = createHash(options.algorithm);
  const out = createWriteStream(target);
  let bytes = 0;
  try {
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > options.limit) {
        await reader.cancel();
        throw options.tooLarge();
      }
      hash.update(value);
      if (!out.write(value)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
      options.onBytes?.(value.byteLength);
    }
  } finally {
    await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  }
  return { bytes, digest: hash.digest(options.encoding) };
}
