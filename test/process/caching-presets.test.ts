// The caching presets of docs/caching.md, as a user adds them: each preset's lines appended to
// the project's _headers, the sample built, and the answers asked on the real servers and the
// local one. Each sends the preset's Cache-Control on a list, a page of textures, an ordering and
// a 304, and the targets whose files carry headers (vercel.json, the Pages _headers) carry it.

import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningTarget, Target } from '../e2e/targets/target.ts';
import { ROOT } from '../unit/helpers/cli.ts';
import {
  installedWebServers,
  localInProcess,
  type ServedSample,
  serveSampleWithHeaders,
} from '../unit/helpers/web-servers.ts';

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
  let served: ServedSample;

  beforeAll(async () => {
    served = await serveSampleWithHeaders('caching-presets-', preset.lines, TARGETS, [
      'vercel',
      'cloudflare-pages-static',
    ]);
  }, 60_000);

  afterAll(async () => {
    if (served) await served.stop();
  });

  it.each(TARGETS.map((server) => server.name))('%s sends it on 200s and on the 304', async (name) => {
    const { origin } = served.running.get(name) as RunningTarget;
    for (const target of ASKED) {
      const answer = await ask(origin, target);
      expect([target, answer.status, answer.cacheControl]).toEqual([target, 200, preset.cacheControl]);
      expect(answer.etag).toBeDefined();
      const revalidated = await ask(origin, target, { 'If-None-Match': answer.etag as string });
      expect([target, revalidated.status, revalidated.cacheControl]).toEqual([target, 304, preset.cacheControl]);
    }
  });

  it('vercel.json and the Pages _headers carry it', async () => {
    const vercel = JSON.parse(await readFile(path.join(served.targetsDir, 'vercel/vercel.json'), 'utf8')) as {
      headers: Array<{ headers: Array<{ key: string; value: string }> }>;
    };
    const values = vercel.headers.flatMap((rule) => rule.headers).filter((header) => header.key === 'Cache-Control');
    expect(values.map((header) => header.value)).toContain(preset.cacheControl);
    const pages = await readFile(path.join(served.targetsDir, 'cloudflare-pages-static/_headers'), 'utf8');
    expect(pages).toContain(`Cache-Control: ${preset.cacheControl}`);
  });
});
