// metadataCache parses a written note asynchronously (obsidian-api.md §5): `changed` for the file,
// `resolve` for every file whose links were recomputed, then `resolved`. A tool result that reports
// the note's structure or links must wait for that, or it would describe the previous version.
import type { App, EventRef, TAbstractFile } from "obsidian";

/** Long enough for a large note on a slow machine; after it the result uses what is cached. */
export const METADATA_WAIT_MS = 5000;

interface Waiter {
  path: string;
  /** The text written; null when any parse of the file will do. */
  content: string | null;
  changed: boolean;
  resolve: () => void;
  timer: number;
}

export class MetadataWaiter {
  private readonly app: App;
  private readonly waiters = new Set<Waiter>();
  private readonly refs: EventRef[] = [];
  private readonly timeoutMs: number;

  constructor(app: App, timeoutMs = METADATA_WAIT_MS) {
    this.app = app;
    this.timeoutMs = timeoutMs;
    this.refs.push(
      app.metadataCache.on("changed", (file: TAbstractFile, data: string) => {
        // Two writes in a row: the parse of the first can land after the second was registered, and
        // settling on it would describe the first version.
        for (const waiter of this.waiters) {
          if (waiter.path === file.path && (waiter.content === null || sameText(waiter.content, data))) waiter.changed = true;
        }
      }),
      app.metadataCache.on("resolved", () => {
        for (const waiter of [...this.waiters]) if (waiter.changed) this.settle(waiter);
      }),
      app.metadataCache.on("deleted", (file: TAbstractFile) => {
        for (const waiter of [...this.waiters]) if (waiter.path === file.path) this.settle(waiter);
      }),
    );
  }

  /**
   * Call before writing `content` to `path`: the promise settles once the metadata of that content
   * was computed and the link maps were resolved again, or after the timeout. It never rejects.
   */
  expect(path: string, content: string | null = null): { done: Promise<void>; cancel: () => void } {
    let waiter: Waiter | undefined;
    const done = new Promise<void>((resolve) => {
      waiter = { path, content, changed: false, resolve, timer: 0 };
      const registered = waiter;
      registered.timer = window.setTimeout(() => this.settle(registered), this.timeoutMs);
      this.waiters.add(registered);
    });
    return {
      done,
      cancel: () => {
        if (waiter) this.settle(waiter);
      },
    };
  }

  /** Settles at the next `resolved` (a rename fires no `changed`), or after the timeout. */
  afterResolved(): Promise<void> {
    return new Promise<void>((resolve) => {
      const waiter: Waiter = { path: "", content: null, changed: true, resolve, timer: 0 };
      waiter.timer = window.setTimeout(() => this.settle(waiter), this.timeoutMs);
      this.waiters.add(waiter);
    });
  }

  private settle(waiter: Waiter): void {
    if (!this.waiters.delete(waiter)) return;
    window.clearTimeout(waiter.timer);
    waiter.resolve();
  }

  detach(): void {
    for (const ref of this.refs) this.app.metadataCache.offref(ref);
    this.refs.length = 0;
    for (const waiter of [...this.waiters]) this.settle(waiter);
  }
}

/** The same text, whether or not either keeps a byte order mark. */
function sameText(a: string, b: string): boolean {
  return a === b || a.replace(/^\uFEFF/, "") === b.replace(/^\uFEFF/, "");
}
