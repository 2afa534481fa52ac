// The import case: `npm run import` of the benchmark's catalogue from the local server, against a
// baseline that asks the same URLs with the same concurrency and parses them. The server runs in
// a process of its own, as a service would, and answers both alike.

import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { importTargets } from '../migrate/read-service.ts';
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

/** Builds the catalogue with its links on the server's origin, serves it, and runs the rounds; each import writes a project of its own. */
export async function runImportCase(benchDir: string, dataDir: string, textures: number): Promise<Rounds<ChildResult>> {
  const caseDir = path.join(benchDir, 'import');
  await rm(caseDir, { recursive: true, force: true });
  await mkdir(caseDir, { recursive: true });
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const from = `${origin}/`;
  const site = path.join(caseDir, 'site');
  console.log(`import: building the catalogue with its links on ${origin} ...`);
  await runChild(buildJob(dataDir, site, { baseUrl: origin, pageSize: PAGE_SIZE, targets: [] }), 'build    import');
  const server = await startCommand(
    process.execPath,
    [LAUNCHER, 'serve', '--out', path.join(site, 'public'), '--port', String(port)],
    { cwd: ROOT, ready: (stderr) => /^Serving /m.test(stderr) },
  );
  // What the import asks for: the three lists and every texture page.
  const targets = importTargets(Math.ceil(textures / PAGE_SIZE));
  try {
    return await alternatingRounds(
      (round) => {
        const project = path.join(caseDir, `project-r${round}`);
        settleDisk();
        const job = { dataDir: path.join(project, 'data'), configPath: path.join(project, 'static-api.config.json') };
        return runChild({ kind: 'import', from, ...job }, `import          r${round}`);
      },
      (round) => {
        settleDisk();
        return runChild(
          { kind: 'import-baseline', from, targets, concurrency: CONCURRENCY },
          `import-baseline r${round}`,
        );
      },
      ROUNDS,
    );
  } finally {
    await server.stop();
  }
}
