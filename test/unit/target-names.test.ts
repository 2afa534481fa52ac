// scripts/targets/index.ts: the settings check `--target` against the names of the one list of
// targets, read without loading any generator (test/unit/layers.test.ts checks what each command
// loads; test/process/cli.test.ts covers the settings themselves), and no refused name may be a
// target.

import { describe, expect, it } from 'vitest';
import { REFUSED_TARGETS, TARGET_NAMES, TARGETS } from '../../scripts/targets/index.ts';

describe('target names', () => {
  it('are the names of the registered targets, in their order, each once', () => {
    expect(TARGETS.map((target) => target.name)).toEqual([...TARGET_NAMES]);
    expect(new Set(TARGET_NAMES).size).toBe(TARGET_NAMES.length);
  });

  it('refuse no target the build can write', () => {
    for (const name of Object.keys(REFUSED_TARGETS)) expect(TARGET_NAMES).not.toContain(name);
  });
});
