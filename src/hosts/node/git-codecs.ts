// The history's object codecs through Node's native bindings: SHA-1 (GitHistoryOptions.sha1) runs in
// place, cheaper for objects of a few kilobytes than a WebCrypto job; deflate is what the history's file
// steps (history-fs.ts) write. Electron has the same modules, so the plugin's desktop host uses them too.
import { createHash } from "node:crypto";
import { constants, deflate, deflateSync } from "node:zlib";

/**
 * Below this an object is deflated in place: zlib's own work on a note or a commit (tens of
 * microseconds) costs less than a job on libuv's pool and the stream around it.
 */
const DEFLATE_IN_PLACE_MAX = 16 * 1024;

/**
 * zlib's fastest level: a quarter of the default level's work on a note and half on a tree, for a few
 * percent more bytes at most (a tree is mostly ids, which do not compress). Every object of every
 * commit is deflated, on the event loop's own thread or beside it.
 */
export const DEFLATE_LEVEL = constants.Z_BEST_SPEED;

/**
 * A large object (the tree of a folder of thousands of notes, rewritten at each commit in it) goes to
 * libuv's pool, off the event loop, in one output chunk.
 */
export function nativeDeflate(bytes: Uint8Array): Promise<Uint8Array> {
  if (bytes.byteLength <= DEFLATE_IN_PLACE_MAX) {
    try {
      const result = deflateSync(bytes, { level: DEFLATE_LEVEL });
      return Promise.resolve(new Uint8Array(result.buffer, result.byteOffset, result.byteLength));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
  return new Promise((resolve, reject) => {
    deflate(bytes, { level: DEFLATE_LEVEL, chunkSize: bytes.byteLength + 1024 }, (error, result) =>
      error ? reject(error) : resolve(new Uint8Array(result.buffer, result.byteOffset, result.byteLength)),
    );
  });
}

export function nativeSha1(bytes: Uint8Array): string {
  return createHash("sha1").update(bytes).digest("hex");
}
