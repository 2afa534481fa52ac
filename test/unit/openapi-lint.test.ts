// The OpenAPI document the build writes (of the sample) through the two linters API tools run on a document:
// Spectral's OpenAPI rules (`spectral:oas`) and Redocly's `recommended`, each with the committed
// configuration that turns off, with its reason, what the contract breaks on purpose
// (.spectral.yaml, redocly.yaml). Neither finds an error; their warnings are advice.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { lint, loadConfig } from '@redocly/openapi-core';
import spectralCore, { type RulesetDefinition } from '@stoplight/spectral-core';
import { oas } from '@stoplight/spectral-rulesets';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from './helpers/cli.ts';
import { sampleDocument } from './helpers/sample-output.ts';

const DOCUMENT = sampleDocument();

/** Spectral's DiagnosticSeverity.Error. */
const SPECTRAL_ERROR = 0;

describe('schemas/openapi.json', () => {
  it('has no error for Spectral (spectral:oas, .spectral.yaml)', async () => {
    const settings = parse(readFileSync(path.join(ROOT, '.spectral.yaml'), 'utf8'));
    // The CLI reads `extends: spectral:oas` as this ruleset with its recommended rules.
    expect(settings.extends).toBe('spectral:oas');
    const spectral = new spectralCore.Spectral();
    spectral.setRuleset({ extends: [[oas as RulesetDefinition, 'recommended']], rules: settings.rules });
    const results = await spectral.run(DOCUMENT);
    const errors = results
      .filter((result) => result.severity === SPECTRAL_ERROR)
      .map((result) => `${result.code} at ${result.path.join('.')}: ${result.message}`);
    expect(errors).toEqual([]);
  });

  it('has no error for Redocly (recommended, redocly.yaml)', async () => {
    const config = await loadConfig({ configPath: path.join(ROOT, 'redocly.yaml') });
    const dir = mkdtempSync(path.join(tmpdir(), 'openapi-lint-'));
    const file = path.join(dir, 'openapi.json');
    writeFileSync(file, DOCUMENT);
    const problems = await lint({ ref: file, config }).finally(() => rmSync(dir, { recursive: true, force: true }));
    const errors = problems
      .filter((problem) => problem.severity === 'error')
      .map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`);
    expect(errors).toEqual([]);
  });
});
