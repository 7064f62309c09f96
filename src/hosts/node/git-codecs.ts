// The history's object codecs through Node's native bindings (see GitHistoryOptions.deflate and .sha1):
// zlib's deflate runs on libuv's pool, off the event loop and without CompressionStream's stream
// machinery; SHA-1 runs in place, cheaper for objects of a few kilobytes than a WebCrypto job. Electron
// has the same modules, so the plugin's desktop host uses them too.
import { createHash } from "node:crypto";
import { deflate } from "node:zlib";

export function nativeDeflate(bytes: Uint8Array): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    deflate(bytes, (error, result) => (error ? reject(error) : resolve(new Uint8Array(result.buffer, result.byteOffset, result.byteLength))));
  });
}

export function nativeSha1(bytes: Uint8Array): string {
  return createHash("sha1").update(bytes).digest("hex");
}
