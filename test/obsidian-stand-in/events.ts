// Events as obsidian-api.md §3 describes it: synchronous, ordered, over a copy of the listener list;
// a throwing listener does not stop the others and its error surfaces asynchronously.

// Listeners are stored untyped: each subclass narrows the names and payloads in its `on` overloads.
export type Listener = (...data: never[]) => unknown;
type StoredListener = (...data: unknown[]) => unknown;

export interface EventRef {
  e: Events;
  name: string;
  fn: StoredListener;
  ctx?: unknown;
}

type ErrorReporter = (error: unknown) => void;

const rethrowLater: ErrorReporter = (error) => {
  setTimeout(() => {
    throw error;
  }, 0);
};

let reportListenerError: ErrorReporter = rethrowLater;

/**
 * Test hook: where errors thrown by listeners go. Default: re-thrown on a later tick, as the app does,
 * which in Node is an uncaught exception. Returns a function restoring the previous reporter.
 */
export function setListenerErrorReporter(reporter: ErrorReporter | null): () => void {
  const previous = reportListenerError;
  reportListenerError = reporter ?? rethrowLater;
  return () => {
    reportListenerError = previous;
  };
}

export class Events {
  private readonly listeners = new Map<string, EventRef[]>();

  on(name: string, callback: Listener, ctx?: unknown): EventRef {
    const ref: EventRef = { e: this, name, fn: callback as StoredListener, ctx };
    const list = this.listeners.get(name);
    if (list) list.push(ref);
    else this.listeners.set(name, [ref]);
    return ref;
  }

  off(name: string, callback: Listener): void {
    const list = this.listeners.get(name);
    if (!list) return;
    const kept = list.filter((ref) => ref.fn !== (callback as StoredListener));
    if (kept.length === 0) this.listeners.delete(name);
    else this.listeners.set(name, kept);
  }

  offref(ref: EventRef): void {
    const list = this.listeners.get(ref.name);
    if (!list) return;
    const index = list.indexOf(ref);
    if (index >= 0) list.splice(index, 1);
    if (list.length === 0) this.listeners.delete(ref.name);
  }

  trigger(name: string, ...data: unknown[]): void {
    const list = this.listeners.get(name);
    if (!list) return;
    for (const ref of list.slice()) this.tryTrigger(ref, data);
  }

  tryTrigger(evt: EventRef, args: unknown[]): void {
    try {
      evt.fn.apply(evt.ctx, args);
    } catch (error) {
      reportListenerError(error);
    }
  }

  /** How many listeners an event has (for tests checking that a plugin cleaned up). */
  listenerCount(name: string): number {
    return this.listeners.get(name)?.length ?? 0;
  }
}
