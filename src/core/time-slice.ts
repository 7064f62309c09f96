// Long work in the core (index builds, snapshot loads and writes) runs on the host's only thread: in
// Obsidian that is the UI. It checks in at small steps and gives the event loop back once a stretch of
// synchronous work has run for the budget, so no step of it stalls the app for long.
import type { Yielder } from "./ports";

/** A stretch of synchronous work this long is cut, so that together with one step it stays far below 100 ms. */
export const SLICE_BUDGET_MS = 8;

export class TimeSlice {
  private readonly now: () => number;
  private readonly yielder: Yielder;
  private readonly budgetMs: number;
  private started: number;

  constructor(now: () => number, yielder: Yielder, budgetMs = SLICE_BUDGET_MS) {
    this.now = now;
    this.yielder = yielder;
    this.budgetMs = budgetMs;
    this.started = now();
  }

  /** Yields when the current stretch has used up its budget; resolves at once otherwise. */
  async pause(): Promise<void> {
    if (this.now() - this.started < this.budgetMs) return;
    await this.yielder();
    this.started = this.now();
  }

  /** Always yields (between units of work that must not run back to back, e.g. shards). */
  async yield(): Promise<void> {
    await this.yielder();
    this.started = this.now();
  }
}
