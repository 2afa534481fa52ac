// The import case of `npm run bench`: `npm run import` of the benchmark's catalogue from the local
// server, against a baseline that asks the same URLs with the same concurrency and parses them.
// The server runs in a process of its own, as a service would, and answers both alike.

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { importTargets } from '../migrate/read-service.ts';
import type { ChildResult } from './child.ts';
import { inAlternatingOrder, runChild, settleDisk } from './measure.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHILD_TIMEOUT_MS = 5 * 60_000;
const SERVER_START_MS = 60_000;
/** The import's client asks at most this many at once (migrate/client.ts), and so does the baseline. */
const CONCURRENCY = 4;
const PAGE_SIZE = 10;

export interface ImportRounds {
  imports: ChildResult[];
  baselines: ChildResult[];
}

/** A port nothing listens on now: the site's links must name the server's origin before it starts. */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((listening) => probe.listen(0, '127.0.0.1', listening));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((closed) => probe.close(closed));
  return port;
}

/** `npm run serve` of `outDir` on `port`, once it says it listens. */
async function startServer(outDir: string, port: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'scripts/cli/serve-command.ts'), '--out', outDir, '--port', String(port)],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  const started = performance.now();
  while (!/^Serving /m.test(stderr)) {
    if (child.exitCode !== null || performance.now() - started > SERVER_START_MS) {
      child.kill('SIGKILL');
      throw new Error(`the local server did not start:\n${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return child;
}

/** What the import asks for: the three lists and every texture page. */
const targetsOf = (textures: number): string[] => importTargets(Math.ceil(textures / PAGE_SIZE));

/**
 * Builds the catalogue with its links on the server's origin, serves it, and runs `rounds` of
 * import and baseline, alternating which goes first. Each import writes a data folder of its own.
 */
export async function runImportCase(
  benchDir: string,
  dataDir: string,
  textures: number,
  rounds: number,
): Promise<ImportRounds> {
  const caseDir = path.join(benchDir, 'import');
  await rm(caseDir, { recursive: true, force: true });
  await mkdir(caseDir, { recursive: true });
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const site = path.join(caseDir, 'site');
  console.log(`import: building the catalogue with its links on ${origin} ...`);
  await runChild(
    {
      kind: 'build',
      options: {
        dataDir,
        outDir: path.join(site, 'public'),
        targetsDir: path.join(site, 'targets'),
        targets: [],
        headersPath: path.join(ROOT, '_headers'),
        baseUrl: origin,
        pageSize: PAGE_SIZE,
      },
    },
    { jobFile: path.join(caseDir, 'job-build.json'), label: 'build    import', timeoutMs: CHILD_TIMEOUT_MS },
  );
  const server = await startServer(path.join(site, 'public'), port);
  const imports: ChildResult[] = [];
  const baselines: ChildResult[] = [];
  try {
    const runImport = async (round: number) => {
      const project = path.join(caseDir, `project-r${round}`);
      settleDisk();
      const label = `import          r${round}`;
      const result = await runChild(
        {
          kind: 'import',
          from: `${origin}/`,
          dataDir: path.join(project, 'data'),
          configPath: path.join(project, 'static-api.config.json'),
        },
        { jobFile: path.join(caseDir, `job-import-r${round}.json`), label, timeoutMs: CHILD_TIMEOUT_MS },
      );
      console.log(`${label}: ${(result.ms / 1000).toFixed(2)} s, peak RSS ${(result.maxRssBytes / 1e6).toFixed(1)} MB`);
      imports.push(result);
    };
    const runBaseline = async (round: number) => {
      settleDisk();
      const label = `import-baseline r${round}`;
      const result = await runChild(
        { kind: 'import-baseline', from: `${origin}/`, targets: targetsOf(textures), concurrency: CONCURRENCY },
        { jobFile: path.join(caseDir, `job-import-baseline-r${round}.json`), label, timeoutMs: CHILD_TIMEOUT_MS },
      );
      console.log(`${label}: ${(result.ms / 1000).toFixed(2)} s, peak RSS ${(result.maxRssBytes / 1e6).toFixed(1)} MB`);
      baselines.push(result);
    };
    for (let round = 1; round <= rounds; round++) {
      await inAlternatingOrder(
        round,
        () => runImport(round),
        () => runBaseline(round),
      );
    }
  } finally {
    if (server.exitCode === null) {
      const exited = new Promise((done) => server.once('exit', done));
      server.kill('SIGTERM');
      await exited;
    }
  }
  return { imports, baselines };
}
