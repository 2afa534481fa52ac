// scripts/targets/names.ts: the settings check `--target` against these names without loading the
// generators (test/process/cli.test.ts covers the settings themselves), so the names must be the
// generators' own, and no refused name may be a target.

import { describe, expect, it } from 'vitest';
import { TARGETS } from '../../scripts/targets/index.ts';
import { REFUSED_TARGETS, TARGET_NAMES } from '../../scripts/targets/names.ts';

describe('target names', () => {
  it('are the names of the registered targets, in their order', () => {
    expect(TARGETS.map((target) => target.name)).toEqual([...TARGET_NAMES]);
  });

  it('refuse no target the build can write', () => {
    for (const name of Object.keys(REFUSED_TARGETS)) expect(TARGET_NAMES).not.toContain(name);
  });
});
