// scripts/shared/map-limited.ts: bounded concurrency, results in source order, and on a failure:
// no new task started, every task in flight settled first.

import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { mapLimited } from '../../scripts/shared/map-limited.ts';

describe('mapLimited', () => {
  it('keeps the source order and never runs more than the limit at once', async () => {
    let running = 0;
    let most = 0;
    const results = await mapLimited([5, 1, 4, 2, 3], 2, async (n) => {
      most = Math.max(most, ++running);
      await sleep(n);
      running--;
      return n * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30]);
    expect(most).toBe(2);
  });

  it('settles the tasks in flight before it rejects, and starts no new ones', async () => {
    const finished: number[] = [];
    const started: number[] = [];
    const failing = mapLimited([0, 1, 2, 3, 4], 2, async (n) => {
      started.push(n);
      if (n === 0) throw new Error('task 0 failed');
      await sleep(30);
      finished.push(n);
    });
    await expect(failing).rejects.toThrow('task 0 failed');
    // Task 1 was in flight when task 0 failed: the rejection waited for it.
    expect(finished).toEqual([1]);
    expect(started).toEqual([0, 1]);
  });

  it('takes no items', async () => {
    expect(await mapLimited([], 4, async (n: number) => n)).toEqual([]);
  });
});
