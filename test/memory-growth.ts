// The soak's judgement of the local server's memory (test/soak.ts): flat, or growing. Apart from
// the script so that the judgement itself is tested (test/unit/memory-growth.test.ts).

export interface MemoryGrowth {
  /** The peak of the first half of the samples, the warm-up: the baseline. */
  firstHalf: number;
  /** The peak of the second half. */
  secondHalf: number;
  flat: boolean;
}

/** How far the second half's peak may pass the first half's before memory counts as growing. */
export const GROWTH_ALLOWED = 0.1;

/**
 * Whether memory stayed flat over samples taken at even intervals: the server warms up (caches,
 * JIT, the allocator's arenas) in the first half, so its peak there is the baseline; a leak shows
 * as a second half whose peak passes it by more than 10 %. Comparing peaks, not ends, keeps a
 * garbage collection that happens to fall on the last sample from hiding a leak.
 */
export function memoryGrowth(samples: readonly number[]): MemoryGrowth {
  if (samples.length < 4) throw new Error(`${samples.length} memory samples: too few to tell a warm-up from a leak`);
  const middle = Math.ceil(samples.length / 2);
  const firstHalf = Math.max(...samples.slice(0, middle));
  const secondHalf = Math.max(...samples.slice(middle));
  return { firstHalf, secondHalf, flat: secondHalf <= firstHalf * (1 + GROWTH_ALLOWED) };
}
