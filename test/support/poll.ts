// Waiting for a condition in tests: poll it, never sleep a fixed time and hope.

/** Polls `condition` every `every` ms until it holds; throws naming `what` once `deadline` ms have passed. Returns the time it took. */
export async function within(deadline: number, what: string, condition: () => Promise<boolean> | boolean, every = 25): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await condition()) return Date.now() - started;
    if (Date.now() - started > deadline) throw new Error(`${what}: not within ${deadline} ms`);
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}

/** Polls `probe` until it gives a value; throws naming `what` once `deadline` ms have passed. */
export async function found<T>(deadline: number, what: string, probe: () => Promise<T | undefined>, every = 50): Promise<T> {
  let value: T | undefined;
  await within(deadline, what, async () => (value = await probe()) !== undefined, every);
  return value!;
}
