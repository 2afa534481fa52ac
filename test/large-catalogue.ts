// `npm run test:large`: a catalogue whose company list is past Cloudflare's 25 MiB per asset,
// built for every target, each target that takes it served by its real server (the end-to-end
// suite's starters), every list and a sample of texture pages fetched and compared byte for byte
// (sha256) with the built files; the targets that cannot take it refuse with the limit's line.
// Also the build's peak memory on it, against the bench's target. About 20 s, so `npm test` runs
// it; test/process/cloudflare-parts-workerd.test.ts checks the worker's headers and memory on the
// same catalogue.

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { build } from '../scripts/builder/build.ts';
import { buildUrl } from '../scripts/contract/pagination.ts';
import type { Route } from '../scripts/contract/routes.ts';
import { manifestFile, partFile } from '../scripts/respond/cloudflare-parts.ts';
import { MAX_ASSET_BYTES } from '../scripts/targets/cloudflare/assets.ts';
import { LimitsError } from '../scripts/targets/limits.ts';
import { generate } from './bench/generate.ts';
import { buildJob, runChild } from './bench/measure.ts';
import { LIMITS as BENCH_LIMITS } from './bench/report.ts';
import { targetByName } from './e2e/targets/index.ts';
import { freePort, REPO_ROOT } from './e2e/targets/process.ts';
import { API, SAMPLE_HEADERS } from './fixtures/sample.ts';
import { findProgram, reportMissing } from './installed.ts';
import { LARGE_LIST_COUNTS } from './unit/helpers/large-list.ts';

/** The targets with a starter that take the catalogue; vercel takes it too but cannot run offline. */
const SERVED = ['local', 'nginx', 'caddy', 'apache', 'cloudflare-workers', 'cloudflare-pages'];
/** What cannot take a list past 25 MiB (Pages without code) or 20 MB (Netlify's function). */
const REFUSING = ['cloudflare-pages-static', 'netlify'];
const NOT_FOUND = createHash('sha256').update('{"detail":"Not found."}').digest('hex');
const MIB = 1024 * 1024;

const failures: string[] = [];
function check(ok: boolean, what: string): void {
  if (!ok) failures.push(what);
}

/** GET on its own connection, no Accept-Encoding (the files' own bytes), the body hashed as it arrives. */
function get(origin: string, target: string): Promise<{ status: number; sha256: string }> {
  return new Promise((resolve, reject) => {
    const call = http.get(`${origin}${target}`, { agent: false }, (response) => {
      const hash = createHash('sha256');
      response.on('data', (chunk: Buffer) => hash.update(chunk));
      response.on('end', () => resolve({ status: response.statusCode as number, sha256: hash.digest('hex') }));
      response.on('error', reject);
    });
    call.setTimeout(60_000, () => call.destroy(new Error(`GET ${target}: no answer in 60 s`)));
    call.on('error', reject);
  });
}

async function sha256Of(file: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
}

/** Every list and ordering, and texture pages 1, 2, the middle one and the last. */
function sampleRoutes(routes: readonly Route[]): Route[] {
  const pages = routes.filter((route) => route.query.page !== undefined);
  const picked = new Set([pages[0], pages[1], pages[Math.floor(pages.length / 2)], pages.at(-1)]);
  return routes.filter((route) => route.query.page === undefined || picked.has(route));
}

/** The limits' line for each refusing target, as a build that names it stops with. */
async function refusals(options: Parameters<typeof build>[0], outDir: string): Promise<void> {
  const size = (await stat(path.join(outDir, 'company/index.json'))).size;
  const expected: Record<string, string> = {
    'cloudflare-pages-static': `cloudflare-pages-static: ${outDir}/company/index.json is ${(size / MIB).toFixed(1)} MiB, over the limit of 25 MiB per file on Cloudflare Pages; use another target (cloudflare-workers, cloudflare-pages, nginx, caddy or apache)`,
    netlify: `netlify: ${outDir}/company/index.json is ${(size / 1e6).toFixed(1)} MB, over the limit of 20 MB streamed per Netlify function answer; use another target (cloudflare-workers, nginx, caddy or apache)`,
  };
  for (const name of REFUSING) {
    const lines = await build({ ...options, targets: [name], check: true }).then(
      () => ['(no refusal)'],
      (error: unknown) => (error instanceof LimitsError ? [...error.lines] : [String(error)]),
    );
    const ok = lines.length === 1 && lines[0] === expected[name];
    check(ok, `${name} refuses with:\n  ${expected[name]}\nbut said:\n  ${lines.join('\n  ')}`);
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${name} refuses: ${lines[0]}`);
  }
}

/** `wrangler pages project validate`: the checks of `wrangler pages deploy` (sizes, count), offline. */
async function pagesValidate(folder: string, workDir: string): Promise<string | null> {
  const env = {
    ...process.env,
    WRANGLER_SEND_METRICS: 'false',
    CI: 'true',
    XDG_CONFIG_HOME: path.join(workDir, '.xdg'),
  };
  const wrangler = path.join(REPO_ROOT, 'node_modules/.bin/wrangler');
  return promisify(execFile)(wrangler, ['pages', 'project', 'validate', folder], { env, cwd: workDir }).then(
    () => null,
    (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`.trim(),
  );
}

async function serveAndCompare(name: string, parent: string, routes: readonly Route[]): Promise<void> {
  const target = targetByName(name);
  if (target.needs && findProgram(target.needs.names) === undefined) {
    reportMissing(target.needs.what, `the large check of ${name}`);
    return;
  }
  const publicDir = path.join(parent, 'public');
  const workDir = await mkdtemp(path.join(parent, `work-${name}-`));
  const started = performance.now();
  const failedBefore = failures.length;
  const running = await target.start({
    publicDir,
    targetsDir: path.join(parent, 'targets'),
    port: await freePort(),
    workDir,
  });
  try {
    let compared = 0;
    for (const route of routes) {
      const url = buildUrl('', route.path, route.query);
      const [answer, expected] = await Promise.all([
        get(running.origin, url),
        sha256Of(path.join(publicDir, route.file)),
      ]);
      check(
        answer.status === 200 && answer.sha256 === expected,
        `${name}: GET ${url} is ${answer.status}, not ${route.file}'s bytes`,
      );
      compared += 1;
    }
    for (const url of [
      `/${manifestFile('company/index.json')}`,
      `/${partFile('company/index.json', 1)}`,
      '/.assetsignore',
    ]) {
      const answer = await get(running.origin, url);
      check(
        answer.status === 404 && answer.sha256 === NOT_FOUND,
        `${name}: GET ${url} is ${answer.status}, not the 404`,
      );
    }
    if (name === 'cloudflare-pages') {
      // The recipe's folder passes the deploy's checks; public/ itself, with the whole list, would not.
      const problem = await pagesValidate(path.join(workDir, 'site'), workDir);
      check(problem === null, `cloudflare-pages: the recipe's folder fails wrangler's checks: ${problem}`);
      const whole = await pagesValidate(publicDir, workDir);
      check(
        whole?.includes('Pages only supports files up to 25 MiB') === true,
        `cloudflare-pages: public/ passes: ${whole}`,
      );
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `${failures.length === failedBefore ? 'ok  ' : 'FAIL'} ${name}: ${compared} answers compared, 3 private paths 404 (${seconds} s)`,
    );
  } finally {
    await running.stop();
  }
}

async function main(): Promise<void> {
  const parent = await mkdtemp(path.join(tmpdir(), 'large-catalogue-'));
  try {
    const dataDir = path.join(parent, 'data');
    const generated = generate(dataDir, LARGE_LIST_COUNTS);
    console.log(`generated: ${generated.records} records, ${(generated.bytes / 1e6).toFixed(1)} MB of sources`);
    // As the bench builds: in a child process of its own, every target, for its peak memory. On
    // Cloudflare's paid plan: the free plan's 10 ms of CPU a request cannot sort events of this
    // size by several fields, so it would leave out the Cloudflare targets this run serves.
    const baseUrl = `http://127.0.0.1:${await freePort()}`;
    const cloudflarePlan = 'paid';
    const built = await runChild(buildJob(dataDir, parent, { baseUrl, pageSize: 100, cloudflarePlan }), 'build');
    const rss = built.maxRssBytes;
    check(
      rss < BENCH_LIMITS.maxBuildRssBytes,
      `the build's peak RSS ${rss} is over the bench's ${BENCH_LIMITS.maxBuildRssBytes}`,
    );
    const outDir = path.join(parent, 'public');
    const list = (await stat(path.join(outDir, 'company/index.json'))).size;
    check(list > MAX_ASSET_BYTES, `the company list is ${list} bytes, not past 25 MiB`);
    console.log(
      `build: company list ${(list / MIB).toFixed(1)} MiB, ${(built.ms / 1000).toFixed(1)} s, peak RSS ${(rss / 1e6).toFixed(0)} MB (bench target < ${BENCH_LIMITS.maxBuildRssBytes / 1e6} MB)`,
    );
    const options = {
      resources: API,
      dataDir,
      outDir,
      targetsDir: path.join(parent, 'targets'),
      headersPath: SAMPLE_HEADERS,
      baseUrl,
      pageSize: 100,
      cloudflarePlan,
    } as const;
    // Of every target, the build wrote those that take the catalogue and left out the others,
    // whose folders hold only a README saying why.
    const folders = (await readdir(options.targetsDir)).sort();
    const onlyReadme = await Promise.all(
      folders.map(async (name) => (await readdir(path.join(options.targetsDir, name))).join() === 'README.md'),
    );
    const written = folders.filter((_, index) => !onlyReadme[index]);
    const leftOut = folders.filter((_, index) => onlyReadme[index]);
    const taking = ['apache', 'caddy', 'cloudflare-pages', 'cloudflare-workers', 'nginx', 'vercel'];
    const refused = ['cloudflare-pages-static', 'netlify'];
    const asExpected = written.join() === taking.join() && leftOut.join() === refused.join();
    check(
      asExpected,
      `the build wrote targets/ for ${written.join(', ')} and left out ${leftOut.join(', ')}, not ${taking.join(', ')} and ${refused.join(', ')}`,
    );
    console.log(
      `${asExpected ? 'ok  ' : 'FAIL'} written: ${written.join(', ')}; left out: ${leftOut.join(', ')} (vercel not run: vercel dev cannot run offline)`,
    );
    await refusals(options, outDir);
    const { routes } = await build({ ...options, check: true });
    for (const name of SERVED) await serveAndCompare(name, parent, sampleRoutes(routes));
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
  if (failures.length > 0) {
    console.error(`\n${failures.length} failure(s):\n${failures.join('\n')}`);
    process.exitCode = 1;
  }
}

await main();
