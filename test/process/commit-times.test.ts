// A deploy built in a fresh clone gives each committed file of the output the time of the last
// commit that changed it (shared/commit-times.ts), so two deploys of two commits give the same
// ETag and Last-Modified to every answer whose bytes did not change, and a newer time to those
// that did. Here with real git: a repository holding data/, _headers and their build in public/
// and targets/, committed twice at set times, cloned and built again at other moments.

import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../scripts/builder/build.ts';
import { verifyRequests } from '../../scripts/migrate/verify-requests.ts';
import { readCommitTimesOf } from '../../scripts/shared/commit-times.ts';
import { nginx } from '../e2e/targets/nginx.ts';
import { freePort } from '../e2e/targets/process.ts';
import type { RunningTarget } from '../e2e/targets/target.ts';
import { API, SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { findProgram, reportMissing } from '../installed.ts';
import { ROOT } from '../unit/helpers/cli.ts';

const run = promisify(execFile);
const FIRST = 1_600_000_000;
const SECOND = 1_600_086_400;
const OUTPUTS = ['public', 'targets'];

const hasNginx = findProgram(['nginx']) !== undefined;
if (!hasNginx) reportMissing('nginx', 'the equal validators of two clones on nginx');

// Without the variables a git hook (or the repository this test runs in) may set.
const gitEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GIT_')));
const git = (cwd: string, args: string[], env: Record<string, string> = {}) =>
  run('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.org', ...args], {
    cwd,
    env: { ...gitEnv, ...env },
  }).then(({ stdout }) => stdout);

const scratch = await mkdtemp(path.join(os.tmpdir(), 'commit-times-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

const buildIn = (repo: string) =>
  build({
    resources: API,
    dataDir: path.join(repo, 'data'),
    headersPath: path.join(repo, '_headers'),
    outDir: path.join(repo, 'public'),
    targetsDir: path.join(repo, 'targets'),
    targets: ['nginx'],
    baseUrl: 'http://127.0.0.1:8000',
    pageSize: 10,
  });

/** Each file's modification time (ms) under the outputs of `repo`, by path from the repository. */
async function times(repo: string): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (const folder of OUTPUTS)
    for (const file of await readdir(path.join(repo, folder), { recursive: true })) {
      const stats = await stat(path.join(repo, folder, file));
      if (stats.isFile()) found.set(`${folder}/${file.split(path.sep).join('/')}`, stats.mtimeMs);
    }
  return found;
}

/** Renames one event of `repo`'s data (to a name of another length), as one record's edit. */
async function renameEvent(repo: string, suffix: string): Promise<void> {
  const file = path.join(repo, 'data/event/events.json');
  const events = JSON.parse(await readFile(file, 'utf8')) as Array<{ name: string }>;
  (events[0] as { name: string }).name += suffix;
  await writeFile(file, JSON.stringify(events, null, 2));
}

const commit = (repo: string, time: number, message: string) =>
  git(repo, ['commit', '-q', '-m', message], {
    GIT_AUTHOR_DATE: `@${time} +0000`,
    GIT_COMMITTER_DATE: `@${time} +0000`,
  });

const origin = path.join(scratch, 'origin with space');
const clones = [path.join(scratch, 'clone-a'), path.join(scratch, 'clone-b')];
let changedInSecond: string[];

beforeAll(async () => {
  await mkdir(origin);
  await cp(SAMPLE_DATA, path.join(origin, 'data'), { recursive: true });
  await cp(SAMPLE_HEADERS, path.join(origin, '_headers'));
  // The project's: the answers' precompressed siblings are not committed.
  await cp(path.join(ROOT, '.gitignore'), path.join(origin, '.gitignore'));
  await git(origin, ['init', '-q', '-b', 'main']);
  await buildIn(origin);
  await git(origin, ['add', '.']);
  await commit(origin, FIRST, 'first');
  await renameEvent(origin, ' (renamed)');
  await buildIn(origin);
  await git(origin, ['add', '.']);
  await commit(origin, SECOND, 'second');
  changedInSecond = (await git(origin, ['diff', '--name-only', '-z', 'HEAD~1', 'HEAD', '--', ...OUTPUTS]))
    .split('\0')
    .filter(Boolean);
  // At different moments: each checkout gives its files a time of its own.
  for (const [index, clone] of clones.entries()) {
    if (index > 0) await new Promise((done) => setTimeout(done, 1_100));
    await git(scratch, ['clone', '-q', origin, clone]);
    await buildIn(clone);
  }
}, 60_000);

describe('builds in fresh clones', () => {
  it('give every file of public/ and targets/ the time of the last commit that changed it, in both clones', async () => {
    const [a, b] = await Promise.all(clones.map(times));
    expect([...(b as Map<string, number>)]).toEqual([...(a as Map<string, number>)]);
    const wrong: string[] = [];
    for (const [file, time] of a as Map<string, number>) {
      // A precompressed sibling, untracked, has its answer's time.
      const answer = file.replace(/\.(?:br|gz)$/, '');
      const expected = (changedInSecond.includes(answer) ? SECOND : FIRST) * 1000;
      if (time !== expected) wrong.push(`${file}: ${time} instead of ${expected}`);
    }
    expect(wrong).toEqual([]);
    expect(changedInSecond.some((file) => file.startsWith('public/event/'))).toBe(true);
    expect((a as Map<string, number>).size).toBeGreaterThan(changedInSecond.length * 2);
  });

  it('give the files of an uncommitted edit the time of their writing, and keep it when it is undone', async () => {
    const clone = path.join(scratch, 'clone-edited');
    await git(scratch, ['clone', '-q', origin, clone]);
    await renameEvent(clone, ' (edited)');
    const started = Math.floor(Date.now() / 1000) * 1000;
    await buildIn(clone);
    const edited = (await git(clone, ['status', '--porcelain', '-z', '--', 'public'])).split('\0').filter(Boolean);
    expect(edited.length).toBeGreaterThan(0);
    const afterEdit = await times(clone);
    for (const [file, time] of afterEdit) {
      const answer = file.replace(/\.(?:br|gz)$/, '');
      const isEdited = edited.some((line) => line.slice(3) === answer);
      if (isEdited) expect(time, file).toBeGreaterThanOrEqual(started);
      else expect(time, file).toBe((changedInSecond.includes(answer) ? SECOND : FIRST) * 1000);
    }
    // Undone: those answers change again, so their time may not go back to a commit's.
    await git(clone, ['checkout', '-q', '--', 'data']);
    await buildIn(clone);
    expect(await git(clone, ['status', '--porcelain', '--', 'public'])).toBe('');
    const afterUndo = await times(clone);
    for (const line of edited) expect(afterUndo.get(line.slice(3)), line).toBeGreaterThanOrEqual(started);
  });

  it('are read as a build starts: the same for a folder whose parent is not there yet', async () => {
    const clone = path.join(scratch, 'clone-emptied');
    await git(scratch, ['clone', '-q', origin, clone]);
    const file = 'nginx/README.md';
    const bytes = await readFile(path.join(clone, 'targets', file));
    const expected = (changedInSecond.includes(`targets/${file}`) ? SECOND : FIRST) as number;
    const [before] = readCommitTimesOf([path.join(clone, 'targets')]);
    expect((await before)?.('nginx/README.md', bytes)).toBe(expected);
    // A build reads the times of targets/<name>/ before it writes targets/: here it is not there.
    await rm(path.join(clone, 'targets'), { recursive: true });
    const [fresh, missing] = readCommitTimesOf([path.join(clone, 'targets', 'nginx'), undefined]);
    expect((await fresh)?.('README.md', bytes)).toBe(expected);
    expect(await missing).toBeUndefined();
  });

  it('outside a git repository, leave every file the time of its writing', async () => {
    const plain = path.join(scratch, 'plain');
    await mkdir(plain);
    await cp(path.join(origin, 'data'), path.join(plain, 'data'), { recursive: true });
    await cp(path.join(origin, '_headers'), path.join(plain, '_headers'));
    const started = Math.floor(Date.now() / 1000) * 1000;
    await buildIn(plain);
    const found = await times(plain);
    expect(found.size).toBeGreaterThan(10);
    for (const [file, time] of found) expect(time, file).toBeGreaterThanOrEqual(started);
  });
});

/** ETag and Last-Modified of one GET. */
function validators(origin: string, url: string): Promise<string> {
  return new Promise((done, fail) => {
    const request = http.request(`${origin}/${url}`, { agent: false }, (response) => {
      response.resume();
      response.once('end', () =>
        done(`${response.statusCode} ${response.headers.etag} ${response.headers['last-modified']}`),
      );
    });
    request.once('error', fail);
    request.end();
  });
}

describe.skipIf(!hasNginx)('two clones served by nginx', () => {
  const running: RunningTarget[] = [];
  afterAll(() => Promise.all(running.map((server) => server.stop())));

  it('give every route the same ETag and Last-Modified', async () => {
    for (const [index, clone] of clones.entries()) {
      const workDir = path.join(scratch, `nginx-${index}`);
      await mkdir(workDir);
      const targetsDir = path.join(clone, 'targets');
      running.push(
        await nginx.start({ publicDir: path.join(clone, 'public'), targetsDir, port: await freePort(), workDir }),
      );
    }
    const routes = (await buildIn(clones[0] as string)).routes;
    const urls = [
      ...new Set(verifyRequests(routes, API).flatMap(({ method, url }) => (method === 'GET' ? [url] : []))),
    ];
    const differences: string[] = [];
    let withEtag = 0;
    for (const url of urls) {
      const [a, b] = await Promise.all(running.map((server) => validators(server.origin, url)));
      if (a !== b) differences.push(`${url}: ${a} | ${b}`);
      if (a?.startsWith('200 "')) withEtag += 1;
    }
    expect(differences).toEqual([]);
    expect(withEtag).toBeGreaterThan(20);
  });
});
