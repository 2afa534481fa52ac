// Runs an async task over many items with a bounded number in flight, so reading or writing
// a hundred thousand files neither runs them one by one nor opens them all at once.
// Items are pulled one at a time, so a generator can produce them while earlier tasks run.

export async function mapLimited<T, R>(items: Iterable<T>, limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  const iterator = items[Symbol.iterator]();
  let index = 0;
  const worker = async () => {
    for (let next = iterator.next(); !next.done; next = iterator.next()) {
      const position = index++;
      results[position] = await task(next.value);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}
