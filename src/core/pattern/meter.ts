// What a resumable search is given and what it returns when that runs out.

/** What a search returns when the work it was given is spent before it ended. */
export const MORE: unique symbol = Symbol("more");

/** Work left before a search stops; one unit is about one thread step (tens of nanoseconds). */
export interface WorkMeter {
  left: number;
}
