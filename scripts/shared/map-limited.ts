// The one bound on work in flight, in its two shapes: a task over many items (reading or writing
// a hundred thousand files neither one by one nor all at once), and a gate that tasks from many
// callers pass one of `limit` at a time (the requests to a service).

export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const runTasks = async () => {
    while (next < items.length && !failure) {
      const index = next++;
      try {
        results[index] = await task(items[index] as T);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  // Every task in flight settles before the first error is thrown: the caller may then remove
  // the folder those tasks write into.
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, runTasks));
  if (failure) throw failure.error;
  return results;
}

/** A bounded queue: each task waits for one of `limit` slots, so no more than `limit` are in flight. */
export function concurrencyLimit(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    if (active >= limit) await new Promise<void>((resume) => waiting.push(resume));
    else active += 1;
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiting task, so `active` never dips and rises again.
      const next = waiting.shift();
      if (next) next();
      else active -= 1;
    }
  };
}
