// Locks of the write path and the history.

/** One piece of work at a time, in the order asked. */
export class WriteLock {
  private tail: Promise<void> = Promise.resolve();

  async run<T>(work: () => Promise<T>): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    try {
      return await work();
    } finally {
      release();
    }
  }
}

/** A note's name as a case-insensitive, Unicode-normalizing disk sees it: two names one file there share a key. */
export function noteLockKey(path: string): string {
  return path.normalize("NFC").toLowerCase();
}

interface Waiter {
  /** The note's key, or null for a change of the whole vault. */
  key: string | null;
  start(): void;
}

/**
 * The write path's lock. A write of one note runs beside writes of other notes, never beside another
 * write of the same note (by noteLockKey) nor beside a vault-wide change, which runs alone: a note's
 * read-check-write sequence must not interleave with another of that note, and many agents editing
 * different notes need not wait for one another's fsyncs. Waiters start in the order they came, except
 * that a note write passes an earlier write of another note that is busy; nothing passes a waiting
 * vault-wide change, so one is never starved.
 */
export class VaultWriteLock {
  private readonly queue: Waiter[] = [];
  private readonly busy = new Set<string>();
  private whole = false;

  /** Alone: no other write of the vault runs meanwhile. */
  run<T>(work: () => Promise<T>): Promise<T> {
    return this.enter(null, work);
  }

  /** A write of the note at `path`. */
  note<T>(path: string, work: () => Promise<T>): Promise<T> {
    return this.enter(noteLockKey(path), work);
  }

  private async enter<T>(key: string | null, work: () => Promise<T>): Promise<T> {
    await new Promise<void>((start) => {
      this.queue.push({ key, start });
      this.pump();
    });
    try {
      return await work();
    } finally {
      if (key === null) this.whole = false;
      else this.busy.delete(key);
      this.pump();
    }
  }

  private pump(): void {
    // Keys of waiters left waiting in this pass: a later waiter of the same note stays behind them.
    const passed = new Set<string>();
    for (let at = 0; at < this.queue.length && !this.whole; ) {
      const waiter = this.queue[at]!;
      if (waiter.key === null) {
        if (at === 0 && this.busy.size === 0) {
          this.queue.shift();
          this.whole = true;
          waiter.start();
        }
        return;
      }
      if (this.busy.has(waiter.key) || passed.has(waiter.key)) {
        passed.add(waiter.key);
        at += 1;
        continue;
      }
      this.queue.splice(at, 1);
      this.busy.add(waiter.key);
      waiter.start();
    }
  }
}
