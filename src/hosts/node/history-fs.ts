// The history's file system on Node and Electron: node:fs/promises, and the two calls the history makes
// for every object it writes and every folder it syncs, through plain file descriptors. A FileHandle is
// an object with its own lifetime tracking, and several of them a commit cost more on the event loop's
// thread than the system calls they wrap.
import { close, fsync, open, promises, write } from "node:fs";
import type { HistoryFs } from "../../history/fenced-fs";

function closeFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => close(fd, (error) => (error ? reject(error) : resolve())));
}

function syncFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));
}

function openFd(path: string, flags: string): Promise<number> {
  return new Promise((resolve, reject) => open(path, flags, (error, fd) => (error ? reject(error) : resolve(fd))));
}

/** Closes the descriptor after `use`, whose failure wins over a failure to close. */
async function withFd(path: string, flags: string, use: (fd: number) => Promise<void>): Promise<void> {
  const fd = await openFd(path, flags);
  try {
    await use(fd);
  } catch (error) {
    await closeFd(fd).catch(() => undefined);
    throw error;
  }
  await closeFd(fd);
}

export const nodeHistoryFs: HistoryFs = {
  ...promises,
  createSynced: (path, data) =>
    withFd(path, "wx", async (fd) => {
      for (let offset = 0; offset < data.byteLength; ) {
        offset += await new Promise<number>((resolve, reject) =>
          write(fd, data, offset, data.byteLength - offset, null, (error, written) => (error ? reject(error) : resolve(written))),
        );
      }
      await syncFd(fd);
    }),
  syncPath: (path) => withFd(path, "r", syncFd),
};
