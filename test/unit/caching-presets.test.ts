// The caching presets of docs/caching.md, as a user adds them: each preset's lines appended to
// the project's _headers, the sample built, and the answers asked on the real servers and the
// local one. Each sends the preset's Cache-Control on a list, a page of textures, an ordering and
// a 304, and the targets whose files carry headers (vercel.json, the Pages _headers) carry it.

import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../scripts/builder/build.ts';
import { freePort } from '../e2e/targets/process.ts';
import type { RunningTarget, Target } from '../e2e/targets/target.ts';
import { ROOT } from './helpers/cli.ts';
import { installedWebServers, localInProcess } from './helpers/web-servers.ts';

const installed = installedWebServers('the caching presets');
const TARGETS: Target[] = [...installed, localInProcess];
const ASKED = ['company/', 'event/?ordering=-start_date', 'virtualbooth-texture/?page=2'];

/** The presets of docs/caching.md: each `<!-- preset: name -->` and the lines of the block after it. */
async function presets(): Promise<Array<{ name: string; lines: string; cacheControl: string }>> {
  const page = await readFile(path.join(ROOT, 'docs/caching.md'), 'utf8');
  return [...page.matchAll(/<!-- preset: ([\w-]+) -->\n```text\n([^`]*)```/g)].map((match) => ({
    name: match[1] as string,
    lines: match[2] as string,
    cacheControl: (/^ {2}Cache-Control: (.+)$/m.exec(match[2] as string)?.[1] ?? '') as string,
  }));
}

interface Answer {
  status: number;
  cacheControl?: string;
  etag?: string;
}

function ask(origin: string, target: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((done, fail) => {
    const request = http.request(`${origin}/${target}`, { headers, agent: false }, (response) => {
      response.resume();
      response.once('end', () =>
        done({
          status: response.statusCode ?? 0,
          cacheControl: response.headers['cache-control'],
          etag: response.headers.etag,
        }),
      );
    });
    request.once('error', fail);
    request.end();
  });
}

const found = await presets();

describe('the caching presets of docs/caching.md', () => {
  it('names three presets, each one Cache-Control line under /*', () => {
    expect(found.map((preset) => preset.name)).toEqual(['revalidate', 'stale-while-revalidate', 'shared-cache']);
    for (const preset of found) {
      expect(preset.lines.split('\n')[0]).toBe('/*');
      expect(preset.cacheControl).not.toBe('');
    }
  });
});

describe.each(found)('preset $name', (preset) => {
  let dir: string;
  let targetsDir: string;
  const running = new Map<string, RunningTarget>();

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'caching-presets-'));
    const headersPath = path.join(dir, '_headers');
    await writeFile(headersPath, `${await readFile(path.join(ROOT, '_headers'), 'utf8')}${preset.lines}`);
    const publicDir = path.join(dir, 'public');
    targetsDir = path.join(dir, 'targets');
    await build({
      dataDir: path.join(ROOT, 'data'),
      headersPath,
      outDir: publicDir,
      targetsDir,
      targets: [...installed.map((server) => server.name), 'vercel', 'cloudflare-pages-static'],
      baseUrl: 'http://127.0.0.1:8000',
      pageSize: 10,
    });
    for (const server of TARGETS) {
      const workDir = path.join(dir, `work-${server.name}`);
      await mkdir(workDir);
      running.set(server.name, await server.start({ publicDir, targetsDir, port: await freePort(), workDir }));
    }
  }, 60_000);

  afterAll(async () => {
    await Promise.all([...running.values()].map((server) => server.stop()));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it.each(TARGETS.map((server) => server.name))('%s sends it on 200s and on the 304', async (name) => {
    const { origin } = running.get(name) as RunningTarget;
    for (const target of ASKED) {
      const answer = await ask(origin, target);
      expect([target, answer.status, answer.cacheControl]).toEqual([target, 200, preset.cacheControl]);
      expect(answer.etag).toBeDefined();
      const revalidated = await ask(origin, target, { 'If-None-Match': answer.etag as string });
      expect([target, revalidated.status, revalidated.cacheControl]).toEqual([target, 304, preset.cacheControl]);
    }
  });

  it('vercel.json and the Pages _headers carry it', async () => {
    const vercel = JSON.parse(await readFile(path.join(targetsDir, 'vercel/vercel.json'), 'utf8')) as {
      headers: Array<{ headers: Array<{ key: string; value: string }> }>;
    };
    const values = vercel.headers.flatMap((rule) => rule.headers).filter((header) => header.key === 'Cache-Control');
    expect(values.map((header) => header.value)).toContain(preset.cacheControl);
    const pages = await readFile(path.join(targetsDir, 'cloudflare-pages-static/_headers'), 'utf8');
    expect(pages).toContain(`Cache-Control: ${preset.cacheControl}`);
  });
});
