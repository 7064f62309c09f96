// zlib's deflate through the native binding, run on libuv's pool: the history's objects are compressed
// off the event loop and without the stream machinery of CompressionStream (see GitHistoryOptions.deflate).
// Electron has the same module, so the plugin's desktop host uses it too.
import { deflate } from "node:zlib";

export function nativeDeflate(bytes: Uint8Array): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    deflate(bytes, (error, result) => (error ? reject(error) : resolve(new Uint8Array(result.buffer, result.byteOffset, result.byteLength))));
  });
}
