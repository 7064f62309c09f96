// Follows outside edits. Events are debounced; a burst (git checkout, a sync client catching up)
// falls back to one full reconcile, which is cheaper than thousands of single updates.
import { watch, type FSWatcher } from "node:fs";
import { TEMP_FILE_PREFIX } from "./fs-vault";

export interface WatcherOptions {
  root: string;
  debounceMs?: number;
  /** More distinct paths than this in one window count as a burst. */
  burstThreshold?: number;
  onChanges(paths: string[]): Promise<void>;
  onBurst(): Promise<void>;
  onError(error: unknown): void;
}

export class VaultWatcher {
  private watcher: FSWatcher | null = null;
  private pending = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private readonly options: Required<Omit<WatcherOptions, "root">> & { root: string };

  constructor(options: WatcherOptions) {
    this.options = { debounceMs: 200, burstThreshold: 500, ...options };
  }

  start(): void {
    this.watcher = watch(this.options.root, { recursive: true }, (_event, filename) => {
      if (typeof filename !== "string") return;
      const relative = filename.split(/[\\/]/).join("/").normalize("NFC");
      if (relative.split("/").some((segment) => segment.startsWith(".") || segment.startsWith(TEMP_FILE_PREFIX))) return;
      this.pending.add(relative);
      this.schedule();
    });
    this.watcher.on("error", (error) => this.options.onError(error));
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), this.options.debounceMs);
  }

  private flush(): void {
    this.timer = null;
    const paths = [...this.pending];
    this.pending.clear();
    const burst = paths.length > this.options.burstThreshold;
    this.running = this.running
      .then(() => (burst ? this.options.onBurst() : this.options.onChanges(paths)))
      .catch((error: unknown) => this.options.onError(error));
  }

  /** Resolves once every reported change has been applied. */
  async idle(): Promise<void> {
    while (this.timer || this.pending.size > 0) {
      await new Promise((resolve) => setTimeout(resolve, this.options.debounceMs));
    }
    await this.running;
  }

  async stop(): Promise<void> {
    this.watcher?.close();
    this.watcher = null;
    if (this.timer) {
      clearTimeout(this.timer);
      this.flush();
    }
    await this.running;
  }
}
