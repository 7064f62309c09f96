// A call's time budget over pattern work: searches run synchronously while their work lasts, and
// between chunks of work the clock is read and the event loop is given back, inside one long line too.
import { MORE, type WorkMeter } from "./meter";

/** A search that runs while its meter lasts (a Matcher or a Scanner). */
export interface Resumable<T> {
  run(meter: WorkMeter): T | typeof MORE;
}

export const OVER_BUDGET = "over_budget";

/** Units of VM work between two looks at the clock: about a millisecond. */
export const WORK_PER_CHECK = 20_000;

export class PatternBudget implements WorkMeter {
  left = WORK_PER_CHECK;
  private readonly deadline: number;

  /**
   * @param now the host's clock (ms)
   * @param limitMs the whole call's budget, from now on
   * @param pause gives the event loop back when the current stretch ran long (TimeSlice.pause)
   */
  constructor(
    private readonly now: () => number,
    readonly limitMs: number,
    private readonly pause: () => Promise<void>,
  ) {
    this.deadline = now() + limitMs;
  }

  get exceeded(): boolean {
    return this.now() > this.deadline;
  }

  /**
   * The search's next result: at once while work is left, else after pausing as often as needed;
   * OVER_BUDGET (the search keeps its place) once the call's time is up.
   */
  async next<T>(search: Resumable<T>): Promise<T | typeof OVER_BUDGET> {
    const result = search.run(this);
    return result === MORE ? this.resume(search) : result;
  }

  /** The slow path of `next`, for callers that ran the search themselves and got MORE. */
  async resume<T>(search: Resumable<T>): Promise<T | typeof OVER_BUDGET> {
    for (;;) {
      if (this.exceeded) return OVER_BUDGET;
      await this.pause();
      if (this.exceeded) return OVER_BUDGET;
      this.left = WORK_PER_CHECK;
      const result = search.run(this);
      if (result !== MORE) return result;
    }
  }

  /** For work of the caller's own between searches: counts it, and pauses or stops the same way. */
  async charge(units: number): Promise<boolean> {
    this.left -= units;
    if (this.left > 0) return true;
    if (this.exceeded) return false;
    await this.pause();
    this.left = WORK_PER_CHECK;
    return !this.exceeded;
  }
}
