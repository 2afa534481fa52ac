// Runs an async task over many items with a bounded number in flight, so reading or writing
// a hundred thousand files neither runs them one by one nor opens them all at once.

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
