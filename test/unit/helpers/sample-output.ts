// What the build writes for the sample project with the default settings, for the tests that read
// the output rather than the project's committed public/ and schemas/.

import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { type BuildOptions, build } from '../../../scripts/builder/build.ts';
import { schemaFiles } from '../../../scripts/builder/documents/openapi.ts';
import { DEFAULTS } from '../../../scripts/cli/settings.ts';
import { API, SAMPLE_DATA, SAMPLE_HEADERS } from '../../fixtures/sample.ts';

/**
 * The output folder of the sample's build, `public/` in `parent` (a temp folder the caller
 * removes, which also gets `targets/`), or in one of its own removed when the test file ends
 * (called outside a test). `options` change the default settings, and name the targets to write.
 */
export async function builtSample(parent?: string, options: Partial<BuildOptions> = {}): Promise<string> {
  let dir = parent;
  if (dir === undefined) {
    const made = await mkdtemp(path.join(tmpdir(), 'sample-output-'));
    afterAll(() => rm(made, { recursive: true, force: true }));
    dir = made;
  }
  const outDir = path.join(dir, 'public');
  await build({
    resources: API,
    dataDir: SAMPLE_DATA,
    headersPath: SAMPLE_HEADERS,
    baseUrl: DEFAULTS.baseUrl,
    pageSize: DEFAULTS.pageSize,
    outDir,
    targetsDir: path.join(dir, 'targets'),
    targets: [],
    ...options,
  });
  return outDir;
}

/** The sample's OpenAPI document with the default settings, as `npm run build` writes it. */
export function sampleDocument(): string {
  const settings = { baseUrl: DEFAULTS.baseUrl, pageSize: DEFAULTS.pageSize };
  return schemaFiles(settings, readFileSync(SAMPLE_HEADERS, 'utf8'), API).get('schemas/openapi.json') as string;
}
