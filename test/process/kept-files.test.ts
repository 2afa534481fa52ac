// A build carries every file whose bytes did not change over to the new output with its inode
// and modification time (shared/write.ts), so the validators that nginx, Caddy and Apache make of
// them survive a rebuild. Here on the real servers and the local one: the sample data is built and
// served, one event is renamed in a copy of data/, and the build runs again into the same folders
// under the running servers. Exactly the answers whose bytes changed get a new ETag; every other
// keeps its ETag and Last-Modified, and a client revalidating with that ETag gets 304.

import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../scripts/builder/build.ts';
import { verifyRequests } from '../../scripts/migrate/verify-requests.ts';
import { freePort } from '../e2e/targets/process.ts';
import type { RunningTarget, Target } from '../e2e/targets/target.ts';
import { API, SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { installedWebServers, localInProcess } from '../unit/helpers/web-servers.ts';

const installed = installedWebServers('the kept ETags');
const TARGETS: Target[] = [...installed, localInProcess];

interface Answer {
  status: number;
  etag?: string;
  lastModified?: string;
  body: string;
}

function ask(origin: string, url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((done, fail) => {
    const request = http.request(`${origin}/${url}`, { headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('end', () =>
        done({
          status: response.statusCode ?? 0,
          etag: response.headers.etag,
          lastModified: response.headers['last-modified'],
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    request.once('error', fail);
    request.end();
  });
}

/** Each file's inode and modification time under `dir`, with its bytes, by relative path. */
async function identities(dir: string): Promise<Map<string, { id: string; bytes: Buffer }>> {
  const found = new Map<string, { id: string; bytes: Buffer }>();
  for (const file of await readdir(dir, { recursive: true })) {
    const stats = await stat(path.join(dir, file));
    if (stats.isFile())
      found.set(file, { id: `${stats.ino} ${stats.mtimeMs}`, bytes: await readFile(path.join(dir, file)) });
  }
  return found;
}

/**
 * Waits until the clock is past the second of the newest file under `dirs`: nginx's ETag and
 * every Last-Modified count whole seconds, so a file rewritten within the same second with the
 * same size would keep them whatever the build does, and Apache gives a file changed within the
 * last second a weak ETag.
 */
async function pastNewestSecond(dirs: string[]): Promise<void> {
  let newest = 0;
  for (const dir of dirs)
    for (const { id } of (await identities(dir)).values()) newest = Math.max(newest, Number(id.split(' ')[1]));
  const wait = Math.ceil(newest / 1000) * 1000 + 1_100 - Date.now();
  if (wait > 0) await new Promise((done) => setTimeout(done, wait));
}

describe('a rebuild after a one-record edit, under the running servers', () => {
  let dir: string;
  let urls: string[];
  const running = new Map<string, RunningTarget>();
  const before = new Map<string, Map<string, Answer>>();
  const after = new Map<string, Map<string, Answer>>();
  let folders: {
    before: Map<string, { id: string; bytes: Buffer }>;
    after: Map<string, { id: string; bytes: Buffer }>;
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'kept-files-'));
    const dataDir = path.join(dir, 'data');
    await cp(SAMPLE_DATA, dataDir, { recursive: true });
    const publicDir = path.join(dir, 'public');
    const targetsDir = path.join(dir, 'targets');
    const schemasDir = path.join(dir, 'schemas');
    const options = {
      resources: API,
      dataDir,
      headersPath: SAMPLE_HEADERS,
      outDir: publicDir,
      targetsDir,
      schemasDir,
      targets: installed.map((server) => server.name),
      baseUrl: 'http://127.0.0.1:8000',
      pageSize: 10,
    };
    const result = await build(options);
    urls = [
      ...new Set(verifyRequests(result.routes, API).flatMap(({ method, url }) => (method === 'GET' ? [url] : []))),
    ];
    for (const server of TARGETS) {
      const workDir = path.join(dir, `work-${server.name}`);
      await mkdir(workDir);
      running.set(server.name, await server.start({ publicDir, targetsDir, port: await freePort(), workDir }));
    }
    for (const [name, server] of running) {
      before.set(
        name,
        new Map(await Promise.all(urls.map(async (url) => [url, await ask(server.origin, url)] as const))),
      );
    }
    const written = [publicDir, targetsDir, schemasDir];
    const kept = async () => {
      const all = new Map<string, { id: string; bytes: Buffer }>();
      for (const folder of written)
        for (const [file, value] of await identities(folder)) all.set(path.join(path.basename(folder), file), value);
      return all;
    };
    const first = await kept();
    // One record: an event that a fair shows, renamed (to a name of another length).
    const eventsFile = path.join(dataDir, 'event/events.json');
    const events = JSON.parse(await readFile(eventsFile, 'utf8')) as Array<{ id: number; name: string }>;
    const fairs = JSON.parse(await readFile(path.join(dataDir, 'virtualfair/fairs.json'), 'utf8')) as Array<{
      events: number[];
    }>;
    const shown = events.find((event) => fairs.some((fair) => fair.events.includes(event.id)));
    if (!shown) throw new Error('no event of the sample data is shown by a fair');
    shown.name = `${shown.name} (renamed)`;
    await writeFile(eventsFile, JSON.stringify(events, null, 2));
    await pastNewestSecond(written);
    await build(options);
    folders = { before: first, after: await kept() };
    for (const [name, server] of running) {
      after.set(
        name,
        new Map(await Promise.all(urls.map(async (url) => [url, await ask(server.origin, url)] as const))),
      );
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...running.values()].map((server) => server.stop()));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('keeps the inode and modification time of every unchanged file of public/, targets/ and schemas/', () => {
    const changed: string[] = [];
    const keptAnew: string[] = [];
    for (const [file, now] of folders.after) {
      const was = folders.before.get(file);
      if (!was) continue;
      if (!was.bytes.equals(now.bytes)) changed.push(file);
      else if (was.id !== now.id) keptAnew.push(file);
    }
    expect(keptAnew).toEqual([]);
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.every((file) => /^public\/(event|virtualfair)\//.test(file))).toBe(true);
    expect(folders.after.size - changed.length).toBeGreaterThan(changed.length);
    const others = [...folders.after.keys()].filter((file) => !file.startsWith('public/'));
    expect(others.length).toBeGreaterThan(1);
  });

  it.each(TARGETS.map((server) => server.name))(
    '%s: a new ETag for exactly the answers that changed; every other keeps it and answers 304',
    async (name) => {
      const server = running.get(name) as RunningTarget;
      const changed: string[] = [];
      const wrong: string[] = [];
      let kept = 0;
      for (const url of urls) {
        const was = before.get(name)?.get(url) as Answer;
        const now = after.get(name)?.get(url) as Answer;
        if (was.status !== 200 || was.etag === undefined) continue;
        if (was.body !== now.body) {
          changed.push(url);
          if (now.etag === was.etag) wrong.push(`${url}: changed, same ETag ${now.etag}`);
          const stale = await ask(server.origin, url, { 'If-None-Match': was.etag });
          if (stale.status !== 200) wrong.push(`${url}: changed, answered ${stale.status} to its old ETag`);
          continue;
        }
        kept += 1;
        if (now.etag !== was.etag) wrong.push(`${url}: unchanged, ETag ${was.etag} → ${now.etag}`);
        if (now.lastModified !== was.lastModified)
          wrong.push(`${url}: unchanged, Last-Modified ${was.lastModified} → ${now.lastModified}`);
        const fresh = await ask(server.origin, url, { 'If-None-Match': was.etag });
        if (fresh.status !== 304) wrong.push(`${url}: unchanged, answered ${fresh.status} to its ETag`);
      }
      expect(wrong).toEqual([]);
      expect(changed.length).toBeGreaterThan(0);
      expect(changed.every((url) => /^(event|virtualfair)\//.test(url))).toBe(true);
      expect(changed.some((url) => url.startsWith('virtualfair/'))).toBe(true);
      expect(kept).toBeGreaterThan(changed.length);
    },
  );
});
