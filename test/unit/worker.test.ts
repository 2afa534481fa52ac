// scripts/build/worker.ts on a real worker thread: it renders the company list to the same
// bytes as the main thread does, reports bad records without rendering, and a thread that fails
// rejects every stage it did not finish.

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDataError } from '../../scripts/build/errors.ts';
import { findSources, readSources } from '../../scripts/build/load.ts';
import { renderLists, routesOf } from '../../scripts/build/render.ts';
import { validate } from '../../scripts/build/validate.ts';
import { startWorker } from '../../scripts/build/start-worker.ts';
import { ownsBuffer } from '../../scripts/build/worker.ts';

const SETTINGS = { baseUrl: 'http://localhost:3000', pageSize: 10 };

async function companySources(dataDir: string) {
  return (await findSources(dataDir)).sources.filter((source) => source.resource === 'company');
}

describe('ownsBuffer', () => {
  it.each<[string, () => Uint8Array, boolean]>([
    ['a whole buffer', () => new Uint8Array(10), true],
    ['a small Buffer (a slice of the shared pool)', () => Buffer.from('abc'), false],
    ['the first slice of a fresh pool', () => Buffer.from(new Uint8Array(Buffer.poolSize)).subarray(0, 3), false],
    ['a large view at the start of its buffer', () => Buffer.allocUnsafeSlow(100_000).subarray(0, 50_000), true],
    ['a large view further in', () => Buffer.allocUnsafeSlow(100_000).subarray(1, 50_000), false],
  ])('%s: %s', (_, make, expected) => {
    expect(ownsBuffer(make())).toBe(expected);
  });
});

describe('startWorker', () => {
  it('renders the company list of data/ to the bytes the main thread renders', async () => {
    const sources = await companySources('data');
    const worker = startWorker({ sources, settings: SETTINGS });
    const { catalogue } = validate((await readSources(sources)).parsed.flat());
    const here = [...renderLists(catalogue, SETTINGS, routesOf(catalogue, SETTINGS).filter((r) => r.resource === 'company'))];
    expect(await worker.loaded).toMatchObject({ records: catalogue.companies.length, files: sources.length });
    expect(await worker.checked).toEqual([]);
    const rendered = await worker.rendered;
    expect(rendered.map(([file]) => file)).toEqual(['company/index.json']);
    // The worker sends the UTF-8 bytes the main thread renders.
    const text = (body: string | Uint8Array) => (typeof body === 'string' ? body : Buffer.from(body).toString('utf8'));
    expect(rendered.map(([file, bytes]) => [file, text(bytes)])).toEqual(here.map(([file, body]) => [file, text(body)]));
    // Moved, not copied: the list's buffer came with the room encodePlainArrayBytes left in it.
    const [[, list]] = rendered as [[string, Uint8Array]];
    expect(list.buffer.byteLength).toBeGreaterThan(list.byteLength);
  });

  it('reports bad records and renders nothing', async () => {
    const caseDir = 'test/fixtures/broken/missing-field';
    const worker = startWorker({ sources: await companySources(path.join(caseDir, 'data')), settings: SETTINGS });
    expect((await worker.checked).map(formatDataError)).toEqual([
      `${caseDir}/data/company/companies.json#/0/city (record 0, id 12): missing field (expected a string)`,
    ]);
    await expect(worker.rendered).rejects.toThrow(/worker thread ended \(exit code 0\) before it finished/);
  });

  it('reports a file it cannot read as a problem, then ends', async () => {
    const worker = startWorker({ sources: [{ resource: 'company', file: 'test/fixtures/no-such-file.json' }], settings: SETTINGS });
    expect(await worker.loaded).toEqual({ type: 'loaded', records: 0, files: 1, bytes: 0 });
    expect((await worker.checked).map(formatDataError)).toEqual(['test/fixtures/no-such-file.json: expected a readable file, got ENOENT']);
    await expect(worker.rendered).rejects.toThrow(/worker thread ended \(exit code 0\) before it finished/);
  });

  it('rejects the stages it did not reach when the thread fails', async () => {
    // A job the thread cannot even start on: its first step throws.
    const worker = startWorker({ sources: null as never, settings: SETTINGS });
    await expect(worker.loaded).rejects.toThrow(TypeError);
    await expect(worker.checked).rejects.toThrow(TypeError);
    await expect(worker.rendered).rejects.toThrow(TypeError);
  });
});
