// The import case: `npm run import` of the benchmark's catalogue from the local server, against a
// baseline that asks the same URLs with the same concurrency and parses them. The server runs in
// a process of its own, as a service would, and answers both alike.

import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { RESOURCES } from '../../scripts/contract/resources/index.ts';
import { SETTINGS_FILE } from '../../scripts/shared/folders.ts';
import { importUrls } from '../unit/helpers/import-urls.ts';
import type { ChildResult } from './child.ts';
import {
  alternatingRounds,
  buildJob,
  freePort,
  LAUNCHER,
  ROOT,
  type Rounds,
  runChild,
  settleDisk,
  startCommand,
} from './measure.ts';

const ROUNDS = 3;
/** The import's client asks at most this many at once (migrate/client.ts), and so does the baseline. */
const CONCURRENCY = 4;
const PAGE_SIZE = 10;

/**
 * Builds the catalogue into `caseDir` with its links on a local origin, serves it in a process of
 * its own, and runs `work` with the URL the import reads from, the server stopped after.
 */
async function withServedCatalogue<T>(
  caseDir: string,
  dataDir: string,
  work: (from: string) => Promise<T>,
): Promise<T> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const site = path.join(caseDir, 'site');
  console.log(`import: building the catalogue with its links on ${origin} ...`);
  await runChild(buildJob(dataDir, site, { baseUrl: origin, pageSize: PAGE_SIZE, targets: [] }), 'build    import');
  const server = await startCommand(
    process.execPath,
    [LAUNCHER, 'serve', '--out', path.join(site, 'public'), '--port', String(port)],
    { cwd: ROOT, ready: (stderr) => /^Serving /m.test(stderr) },
  );
  try {
    return await work(`${origin}/`);
  } finally {
    await server.stop();
    await rm(site, { recursive: true, force: true });
  }
}

/** The job of one `npm run import` of `from` into the project folder `project`. */
const importJob = (from: string, project: string) =>
  ({
    kind: 'import',
    from,
    dataDir: path.join(project, 'data'),
    configPath: path.join(project, SETTINGS_FILE),
  }) as const;

/** Runs the rounds of the import and its baseline; each import writes a project of its own. */
export async function runImportCase(benchDir: string, dataDir: string, textures: number): Promise<Rounds<ChildResult>> {
  const caseDir = path.join(benchDir, 'import');
  await rm(caseDir, { recursive: true, force: true });
  await mkdir(caseDir, { recursive: true });
  // What the import asks for: the three lists and every texture page.
  const urls = importUrls(Math.ceil(textures / PAGE_SIZE), RESOURCES);
  return withServedCatalogue(caseDir, dataDir, (from) =>
    alternatingRounds(
      (round) => {
        settleDisk();
        return runChild(importJob(from, path.join(caseDir, `project-r${round}`)), `import          r${round}`);
      },
      (round) => {
        settleDisk();
        return runChild({ kind: 'import-baseline', from, urls, concurrency: CONCURRENCY }, `import-baseline r${round}`);
      },
      ROUNDS,
    ),
  );
}

/**
 * The catalogue in `dataDir` as `npm run import` writes it (migrate/layout.ts): imported from a
 * build of it into `projectDir`; its data folder, and the import's run.
 */
export async function importedCatalogue(
  dataDir: string,
  projectDir: string,
): Promise<{ dataDir: string; run: ChildResult }> {
  await rm(projectDir, { recursive: true, force: true });
  await mkdir(projectDir, { recursive: true });
  const run = await withServedCatalogue(projectDir, dataDir, (from) =>
    runChild(importJob(from, projectDir), 'import for dev'),
  );
  return { dataDir: path.join(projectDir, 'data'), run };
}
