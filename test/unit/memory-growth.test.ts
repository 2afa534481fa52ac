// The soak's memory judgement (test/memory-growth.ts), on the shapes a soak's samples take.
import { describe, expect, it } from 'vitest';
import { memoryGrowth } from '../memory-growth.ts';

describe('memoryGrowth', () => {
  it('calls a rise during the warm-up followed by a plateau flat', () => {
    // The 60 s soak's shape: 53 to 84 MB in the first half, then 82 to 84 MB.
    const samples = [53, 61, 70, 76, 80, 84, 83, 82, 84, 83, 84, 82];
    expect(memoryGrowth(samples)).toEqual({ firstHalf: 84, secondHalf: 84, flat: true });
  });

  it('calls a steady climb growing', () => {
    const samples = Array.from({ length: 20 }, (_, i) => 60 + 3 * i);
    expect(memoryGrowth(samples)).toEqual({ firstHalf: 87, secondHalf: 117, flat: false });
  });

  it('calls a late leak growing even when a collection brings the last sample down', () => {
    const samples = [80, 90, 95, 92, 94, 93, 95, 110, 120, 85];
    expect(memoryGrowth(samples).flat).toBe(false);
  });

  it('allows the second half 10 % above the first, and not more', () => {
    expect(memoryGrowth([60, 100, 90, 95, 110, 100]).flat).toBe(true);
    expect(memoryGrowth([60, 100, 90, 95, 111, 100]).flat).toBe(false);
  });

  it('refuses to judge too few samples', () => {
    expect(() => memoryGrowth([50, 60, 70])).toThrow(/too few/);
  });
});
