// Runs an async task over many items with a bounded number in flight, so reading or writing
// a hundred thousand files neither runs them one by one nor opens them all at once.
// Items are pulled one at a time, so a generator can produce them while earlier tasks run.

export async function mapLimited<T, R>(
  items: Iterable<T> | AsyncIterable<T>,
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  const iterator = Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : items[Symbol.iterator]();
  let index = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    try {
      for (let next = await iterator.next(); !next.done && !failure; next = await iterator.next()) {
        const position = index++;
        results[position] = await task(next.value);
      }
    } catch (error) {
      failure ??= { error };
    }
  };
  // Every task in flight settles before the first error is thrown: the caller may then remove
  // the folder those tasks write into.
  await Promise.all(Array.from({ length: limit }, worker));
  if (failure) throw failure.error;
  return results;
}
