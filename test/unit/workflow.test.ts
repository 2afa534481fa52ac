// .github/workflows/api-diff.yml against GitHub's workflow schema (SchemaStore's, as
// action-validator ships it), offline: GitHub itself cannot be reached from here.

import { readFileSync } from 'node:fs';
import { validateWorkflow } from '@action-validator/core';
import { describe, expect, it } from 'vitest';

const WORKFLOW = readFileSync('.github/workflows/api-diff.yml', 'utf8');

describe('the pull-request workflow', () => {
  it('matches the workflow schema', () => {
    expect(validateWorkflow(WORKFLOW).errors).toEqual([]);
  });

  it('the check is real: a misspelt key is refused', () => {
    const broken = WORKFLOW.replace('runs-on:', 'runz-on:');
    expect(broken).not.toBe(WORKFLOW);
    expect(validateWorkflow(broken).errors.length).toBeGreaterThan(0);
  });
});
