// The local server's ETag over real HTTP: the SHA-1 of the bytes sent, for a list larger than
// the piece the server hashes at a time, and a new one once the file is replaced, as the live
// preview replaces it.

import { createHash } from 'node:crypto';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../scripts/builder/build.ts';
import { DEFAULTS } from '../../scripts/cli/settings.ts';
import { createApiServer, listen } from '../../scripts/respond/node-server.ts';
import { API, SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';

let parent: string;
let dir: string;
let server: http.Server;
let origin: string;

/** A company list of about `megabytes` MB. */
function bigList(megabytes: number, name: string): Buffer {
  const records = Array.from({ length: megabytes * 4000 }, (_, id) => ({
    id,
    name: `${name} ${id}`,
    city: 'Zürich'.repeat(30),
  }));
  return Buffer.from(JSON.stringify(records));
}

const sha1 = (bytes: Buffer) => `"${createHash('sha1').update(bytes).digest('hex')}"`;

beforeAll(async () => {
  parent = await mkdtemp(path.join(tmpdir(), 'server-etag-test-'));
  dir = path.join(parent, 'public');
  await build({
    resources: API,
    ...DEFAULTS,
    dataDir: SAMPLE_DATA,
    headersPath: SAMPLE_HEADERS,
    outDir: dir,
    targets: [],
    targetsDir: parent,
    schemasDir: undefined,
    precompress: false,
  });
  server = createApiServer(dir, API);
  origin = await listen(server, '127.0.0.1', 0);
}, 30_000);

afterAll(async () => {
  await new Promise<void>((done) => server.close(() => done()));
  await rm(parent, { recursive: true, force: true });
});

describe('the local server', () => {
  it('sends the SHA-1 of the bytes as the ETag, of a large list too, and a new one when it is replaced', async () => {
    const file = path.join(dir, 'company/index.json');
    const ask = async () => {
      const answer = await fetch(`${origin}/company/`, { headers: { 'Accept-Encoding': 'identity' } });
      return { etag: answer.headers.get('etag'), bytes: Buffer.from(await answer.arrayBuffer()) };
    };
    for (const name of ['first', 'second']) {
      const bytes = bigList(3, name);
      expect(bytes.length).toBeGreaterThan(2 * 1024 * 1024);
      // As the live preview replaces a file: a new one renamed over it.
      await writeFile(`${file}.partial`, bytes);
      await rename(`${file}.partial`, file);
      const answer = await ask();
      expect(answer.bytes.equals(bytes)).toBe(true);
      expect(answer.etag).toBe(sha1(bytes));
    }
  });
});
