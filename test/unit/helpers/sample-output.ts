// The sample project built with the default settings into a temp folder, for the tests that read
// what the build writes rather than the project's committed public/.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { build } from '../../../scripts/builder/build.ts';
import { DEFAULTS } from '../../../scripts/cli/settings.ts';
import { API, SAMPLE_DATA, SAMPLE_HEADERS } from '../../fixtures/sample.ts';

/** The output folder of the sample's build; removed when the test file ends. */
export async function builtSample(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sample-output-'));
  afterAll(() => rm(dir, { recursive: true, force: true }));
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
    precompress: false,
  });
  return outDir;
}
