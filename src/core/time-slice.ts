// Long work in the core (index builds, snapshot loads and writes) runs on the host's only thread: in
// Obsidian that is the UI. It checks in at small steps and gives the event loop back once a stretch of
// synchronous work has run for the budget, so no step of it stalls the app for long.
import type { Yielder } from "./ports";

/** A stretch of synchronous work this long is cut, so that together with one step it stays far below 100 ms. */
export const SLICE_BUDGET_MS = 8;

/** A pause that keeps the event loop: the default where nothing else runs meanwhile. */
export const noPause = async (): Promise<void> => undefined;

/** The longest a slice waits for reads a caller is waiting on, so that steady traffic cannot starve it. */
export const FOREGROUND_WAIT_MS = 50;

/**
 * The reads a caller is waiting on (a note_read, a phrase checked on a note's text). Long work lets
 * them finish before its next slice: on Node a file read is four trips through the thread pool (open,
 * stat, read, close), and with a slice of background work after each trip a 0.2 ms note_read took
 * 30-50 ms while the links of 50,000 notes were being prepared.
 */
export class ForegroundWork {
  private running = 0;

  /** Counts `work` as running until it settles; wrap only waits on I/O, never sliced work. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    this.running += 1;
    try {
      return await work();
    } finally {
      this.running -= 1;
    }
  }

  get busy(): boolean {
    return this.running > 0;
  }
}

export class TimeSlice {
  private readonly now: () => number;
  private readonly yielder: Yielder;
  private readonly budgetMs: number;
  private readonly foreground: ForegroundWork | null;
  private started: number;

  constructor(now: () => number, yielder: Yielder, budgetMs = SLICE_BUDGET_MS, foreground: ForegroundWork | null = null) {
    this.now = now;
    this.yielder = yielder;
    this.budgetMs = budgetMs;
    this.foreground = foreground;
    this.started = now();
  }

  /** Yields when the current stretch has used up its budget; resolves at once otherwise. */
  async pause(): Promise<void> {
    if (this.now() - this.started < this.budgetMs) return;
    await this.yield();
  }

  /** Always yields (between units of work that must not run back to back, e.g. shards). */
  async yield(): Promise<void> {
    await this.yielder();
    // Each turn lets the event loop hand the reads their results; it costs microseconds, not a slice.
    const waitStarted = this.now();
    while (this.foreground?.busy && this.now() - waitStarted < FOREGROUND_WAIT_MS) await this.yielder();
    this.started = this.now();
  }
}

/** Items sorted in one stretch, and merged between two pauses. */
const SORT_RUN = 2048;

/**
 * A stable sort that pauses between runs of its work: sorting 50,000 paths in one piece holds the
 * event loop for 40 ms. Sorts runs of a few thousand items, then merges them pairwise.
 */
export async function sortInSlices<T>(items: readonly T[], compare: (a: T, b: T) => number, pause: () => Promise<void>): Promise<T[]> {
  let from = items.slice();
  for (let at = 0; at < from.length; at += SORT_RUN) {
    const run = from.slice(at, at + SORT_RUN).sort(compare);
    for (let i = 0; i < run.length; i++) from[at + i] = run[i]!;
    await pause();
  }
  let to = new Array<T>(from.length);
  for (let width = SORT_RUN; width < from.length; width *= 2) {
    let moved = 0;
    for (let low = 0; low < from.length; low += 2 * width) {
      const middle = Math.min(low + width, from.length);
      const high = Math.min(low + 2 * width, from.length);
      let left = low;
      let right = middle;
      for (let out = low; out < high; out++) {
        // Ties take the left run's item: the sort stays stable.
        if (left < middle && (right >= high || compare(from[left]!, from[right]!) <= 0)) to[out] = from[left++]!;
        else to[out] = from[right++]!;
        if (++moved % SORT_RUN === 0) await pause();
      }
    }
    [from, to] = [to, from];
  }
  return from;
}
