// `npm run dev` and `npm start` as users run them, over real HTTP, each in a project of its own (a
// temporary folder holding data/ and _headers, its working directory): dev serves each saved change,
// keeps serving the last good build when a change has problems (and prints them as the build does),
// never answers 5xx meanwhile, and serves the fix; start builds for the origin it serves. Neither
// writes anything but .preview/<port>/, so the project's public/, targets/ and schemas/ stay as
// they are.

import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readCatalogue } from '../../scripts/builder/pipeline/catalogue.ts';
import { DataErrors, formatDataError } from '../../scripts/builder/pipeline/errors.ts';
import { sendRaw } from '../e2e/lib/raw-http.ts';
import { API, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { GOOD_DATA, ROOT, startCommand } from '../unit/helpers/cli.ts';

const COMPANIES = 'data/company/companies.json';
const WAIT_MS = 20_000;

interface Company {
  id: number;
  name: string;
}

interface Running {
  /** The origin it listens on, from its banner. */
  url: string;
  /** Everything it printed on stderr so far. */
  stderr: () => string;
  /** Resolves once stderr, past its first `from` characters, matches `pattern`. */
  printed: (pattern: RegExp, from?: number) => Promise<void>;
}

const stops: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

/** A project folder with the good fixture's data and the repository's _headers. */
async function project(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'preview-'));
  await cp(GOOD_DATA, path.join(dir, 'data'), { recursive: true });
  await cp(SAMPLE_HEADERS, path.join(dir, '_headers'));
  stops.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

interface Launched {
  stderr: () => string;
  printed: Running['printed'];
}

/**
 * Runs the command in `dir`, stopped after the test before its folder is removed: SIGTERM, then
 * SIGKILL after `graceMs` (0: SIGKILL at once, for a process paused by STATIC_API_PAUSE_AT, which
 * has nothing to finish). Neither command prints on stdout: it is read and dropped all the same,
 * so that the pipe never fills.
 */
function launch(
  command: 'dev' | 'start',
  dir: string,
  args: readonly string[],
  { env = {}, graceMs = 5000 }: { env?: Record<string, string>; graceMs?: number } = {},
): Launched {
  const child = startCommand(command, args, { cwd: dir, env });
  child.stdout?.resume();
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
    for (const listener of listeners) listener();
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  stops.unshift(async () => {
    child.kill(graceMs === 0 ? 'SIGKILL' : 'SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(killer);
  });
  const printed = (pattern: RegExp, from = 0) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!pattern.test(stderr.slice(from))) return;
        clearTimeout(timer);
        listeners.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`no ${pattern} within ${WAIT_MS / 1000} s; stderr:\n${stderr}`));
      }, WAIT_MS);
      listeners.add(check);
      exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`exited before printing ${pattern}; stderr:\n${stderr}`));
      });
      check();
    });
  return { stderr: () => stderr, printed };
}

/** Starts the command in `dir` on a free port; resolves once it prints its banner. */
async function start(command: 'dev' | 'start', dir: string, args: readonly string[] = []): Promise<Running> {
  const { stderr, printed } = launch(command, dir, ['--port', '0', ...args]);
  await printed(/^Serving \S+ at http:\/\/\S+$/m);
  const url = /^Serving \S+ at (http:\/\/\S+)$/m.exec(stderr())?.[1] as string;
  return { url, stderr, printed };
}

/** Polls until the company list answers 200 and `test` holds for it; returns it. */
async function companiesUntil(url: string, test: (list: Company[]) => boolean): Promise<Company[]> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const answer = await fetch(`${url}/company/`);
    const text = await answer.text();
    if (answer.status === 200 && test(JSON.parse(text) as Company[])) return JSON.parse(text) as Company[];
    if (Date.now() > deadline) throw new Error(`still ${answer.status} ${text.slice(0, 100)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Requests `paths` in turn until stopped (before the server); resolves with every status, 0 for no answer. */
function hammer(url: string, paths: readonly string[]): { stop: () => Promise<number[]> } {
  const statuses: number[] = [];
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      try {
        const answer = await fetch(`${url}${paths[i % paths.length]}`);
        await answer.arrayBuffer();
        statuses.push(answer.status);
      } catch {
        statuses.push(0);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  const stop = async () => {
    running = false;
    await loop;
    return statuses;
  };
  stops.unshift(async () => void (await stop()));
  return { stop };
}

/** Saves the fixture's companies into the data folder `dataDir` with the first one named `name`. */
async function saveCompanies(dataDir: string, name: string): Promise<void> {
  const file = 'company/companies.json';
  const list = JSON.parse(await readFile(path.join(GOOD_DATA, file), 'utf8')) as Company[];
  await writeFile(path.join(dataDir, file), JSON.stringify([{ ...list[0], name }, ...list.slice(1)], null, 2));
}

/** The lines the build prints for the problems of the project in `dir`, as run from `dir`. */
async function problemLines(dir: string): Promise<string[]> {
  const options = {
    resources: API,
    dataDir: path.join(dir, 'data'),
    headersPath: path.join(dir, '_headers'),
    pageSize: 10,
  };
  const problems = await readCatalogue(options, () => {}).then(
    () => [],
    (error: unknown) => (error instanceof DataErrors ? error.errors : Promise.reject(error)),
  );
  return problems.map((problem) => formatDataError(problem).replaceAll(`${dir}${path.sep}`, ''));
}

/** Every file of the repository's committed build folders, with its size and modification time. */
async function committedFolders(): Promise<string[]> {
  const found: string[] = [];
  for (const folder of ['public', 'targets', 'schemas']) {
    for (const file of await readdir(path.join(ROOT, folder), { recursive: true })) {
      const stats = await stat(path.join(ROOT, folder, file));
      if (stats.isFile()) found.push(`${folder}/${file} ${stats.size} ${stats.mtimeMs}`);
    }
  }
  return found.sort();
}

describe('npm run dev', () => {
  it('serves each saved change; on a change with problems prints them and serves the last good build; then the fix', async () => {
    const dir = await project();
    const dev = await start('dev', dir, ['--page-size', '1']);
    const port = new URL(dev.url).port;
    expect(dev.stderr()).toContain(`Serving .preview/${port}/ at ${dev.url}`);
    const traffic = hammer(dev.url, ['/company/', '/virtualbooth-texture/?page=2', '/event/?ordering=-name']);

    let mark = dev.stderr().length;
    await saveCompanies(path.join(dir, 'data'), 'Aardvark Tools');
    await companiesUntil(dev.url, (list) => list.some((company) => company.name === 'Aardvark Tools'));
    await dev.printed(new RegExp(`^rebuilt in \\d+ ms: ${COMPANIES} changed$`, 'm'), mark);
    const good = await (await fetch(`${dev.url}/company/`)).text();

    mark = dev.stderr().length;
    await writeFile(path.join(dir, COMPANIES), '[{"id": 12,');
    await dev.printed(/^1 problem in the source data; the last good build is still served\.$/m, mark);
    const problems = await problemLines(dir);
    expect(problems).toHaveLength(1);
    expect(dev.stderr().slice(mark).split('\n')).toContain(problems[0]);
    expect(await (await fetch(`${dev.url}/company/`)).text()).toBe(good);

    mark = dev.stderr().length;
    await saveCompanies(path.join(dir, 'data'), 'Zebra Works');
    const fixed = await companiesUntil(dev.url, (list) => list.some((company) => company.name === 'Zebra Works'));
    expect(fixed.map((company) => company.name)).not.toContain('Aardvark Tools');
    await dev.printed(/^rebuilt in \d+ ms: /m, mark);

    const statuses = await traffic.stop();
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    // The page links name the origin it serves.
    const page = (await (await fetch(`${dev.url}/virtualbooth-texture/`)).json()) as { next: string };
    expect(page.next).toBe(`http://localhost:${port}/virtualbooth-texture/?page=2`);
    expect((await readdir(dir)).sort()).toEqual(['.preview', '_headers', 'data']);
    expect(await readdir(path.join(dir, '.preview'))).toEqual([port]);
  });

  it('writes a data change in place: the folder stays, only the changed answers are new files, and every answer read meanwhile is whole', async () => {
    const dir = await project();
    const dev = await start('dev', dir);
    const output = path.join(dir, '.preview', new URL(dev.url).port);
    const inode = async (file: string) => (await stat(path.join(output, file))).ino;
    const before = {
      folder: await inode(''),
      companies: await inode('company/index.json'),
      events: await inode('event/index.json'),
    };
    // Read and parsed again and again while the saves are written.
    let reading = true;
    const parsed: unknown[] = [];
    const reader = (async () => {
      while (reading) parsed.push(JSON.parse(await (await fetch(`${dev.url}/company/`)).text()));
    })();
    for (const name of ['Aardvark Tools', 'Beaver Works', 'Zebra Works']) {
      await saveCompanies(path.join(dir, 'data'), name);
      await companiesUntil(dev.url, (list) => list.some((company) => company.name === name));
    }
    reading = false;
    await reader;
    expect(parsed.length).toBeGreaterThan(0);
    expect(await inode('')).toBe(before.folder);
    expect(await inode('company/index.json')).not.toBe(before.companies);
    expect(await inode('event/index.json')).toBe(before.events);
    // Nothing is left beside the files: the one file a save changed was renamed into place.
    expect((await readdir(path.join(output, 'company'))).sort()).toEqual(['index.json']);
  });

  it('starts on data with problems: prints them, answers 503, and serves once they are fixed', async () => {
    const dir = await project();
    const good = await readFile(path.join(dir, COMPANIES), 'utf8');
    await writeFile(path.join(dir, COMPANIES), '{');
    const dev = await start('dev', dir);
    expect(dev.stderr()).toContain('1 problem in the source data; .preview/');
    const problems = await problemLines(dir);
    expect(problems).toHaveLength(1);
    expect(dev.stderr().split('\n')).toContain(problems[0]);
    const waiting = await fetch(`${dev.url}/company/`);
    expect(waiting.status).toBe(503);
    expect(waiting.headers.get('content-type')).toBe('application/json');
    expect(waiting.headers.get('retry-after')).toBeNull();
    expect(await waiting.json()).toEqual({
      detail: 'Nothing is built yet: the source data has problems (see the terminal).',
    });

    await writeFile(path.join(dir, COMPANIES), good);
    await companiesUntil(dev.url, (list) => list.length === 2);
  });

  it('keeps serving the last good build when every record is removed, unless --allow-empty', async () => {
    const dir = await project();
    const dev = await start('dev', dir);
    await companiesUntil(dev.url, (list) => list.length === 2);
    const mark = dev.stderr().length;
    await rm(path.join(dir, 'data'), { recursive: true });
    await mkdir(path.join(dir, 'data', 'company'), { recursive: true });
    await dev.printed(/^1 problem in the source data; the last good build is still served\.$/m, mark);
    expect(dev.stderr().slice(mark)).toContain(': no record in any of the folders company/, ');
    expect((await companiesUntil(dev.url, () => true)).length).toBe(2);

    const allowed = await start('dev', dir, ['--allow-empty']);
    expect(await companiesUntil(allowed.url, () => true)).toEqual([]);
  });

  it('rebuilds on a change of the headers file and of the settings file', async () => {
    const dir = await project();
    const dev = await start('dev', dir);
    const headers = await readFile(path.join(dir, '_headers'), 'utf8');
    await writeFile(path.join(dir, '_headers'), headers.replace(/^\/\*\n/m, '/*\n  X-Preview: yes\n'));
    const deadline = Date.now() + WAIT_MS;
    while ((await fetch(`${dev.url}/company/`)).headers.get('x-preview') !== 'yes') {
      expect(Date.now(), dev.stderr()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    // A settings file made while it runs: the texture pages follow its page size.
    await writeFile(path.join(dir, 'static-api.config.json'), JSON.stringify({ pageSize: 1 }));
    for (;;) {
      const page = (await (await fetch(`${dev.url}/virtualbooth-texture/`)).json()) as { results: unknown[] };
      if (page.results.length === 1) break;
      expect(Date.now(), dev.stderr()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  it('rebuilds with the settings file as it is now: a filter it adds answers the filtered list', async () => {
    const dir = await project();
    const dev = await start('dev', dir);
    const cities = async () => {
      const answer = await fetch(`${dev.url}/company/?city=Remscheid`);
      return { status: answer.status, cities: ((await answer.json()) as Array<{ city: string }>).map((c) => c.city) };
    };
    // No filter in the settings: the parameter is ignored, as DRF ignores it.
    const before = await cities();
    expect(before.status).toBe(200);
    expect(new Set(before.cities).size).toBeGreaterThan(1);
    const mark = dev.stderr().length;
    await writeFile(
      path.join(dir, 'static-api.config.json'),
      JSON.stringify({ resources: { company: { filterset_fields: ['city'] } } }),
    );
    await dev.printed(/^rebuilt in \d+ ms: static-api\.config\.json changed$/m, mark);
    expect(await cities()).toEqual({ status: 200, cities: ['Remscheid'] });
    // And without it again: the whole list.
    const again = dev.stderr().length;
    await writeFile(path.join(dir, 'static-api.config.json'), JSON.stringify({}));
    await dev.printed(/^rebuilt in \d+ ms: static-api\.config\.json changed$/m, again);
    expect((await cities()).cities).toEqual(before.cities);
  });

  it("ignores the temporary files of an editor's save without a word, and prints a problem once per save", async () => {
    const dir = await project();
    const dev = await start('dev', dir);
    const file = path.join(dir, COMPANIES);
    // A save is one rebuild, or two when a loaded machine spreads its events past the quiet time;
    // either way every line names the data file, never the editor's temporary ones.
    const onlyRebuilds = new RegExp(`^(rebuilt in \\d+ ms: ${COMPANIES} changed\n)+$`);
    /** Waits for `pattern`, then a while longer: a late event of the save would print meanwhile. */
    const settled = async (pattern: RegExp, mark: number) => {
      await dev.printed(pattern, mark);
      await new Promise((resolve) => setTimeout(resolve, 500));
      return dev.stderr().slice(mark);
    };
    // GNU sed -i writes data/company/sedXXXXXX and renames it over the file.
    let mark = dev.stderr().length;
    execFileSync('sed', ['-i', 's/"name": "Zeta Werkzeuge GmbH"/"name": ""/', file]);
    const problem = (await problemLines(dir))[0] as string;
    expect(problem).toContain('expected a non-empty string');
    let printed = await settled(/^1 problem in the source data; /m, mark);
    expect(printed.split('\n').filter((line) => line === problem)).toHaveLength(1);
    expect(printed).not.toMatch(/sed\w{6}|rebuilt/);
    mark = dev.stderr().length;
    execFileSync('sed', ['-i', 's/"name": ""/"name": "Zeta Werkzeuge GmbH"/', file]);
    printed = await settled(/^rebuilt in \d+ ms: /m, mark);
    expect(printed).toMatch(onlyRebuilds);

    // JetBrains' safe write: a ___jb_tmp___ file, the old one kept as ___jb_old___ until the rename.
    mark = dev.stderr().length;
    const fixed = (await readFile(file, 'utf8')).replace('Zeta Werkzeuge GmbH', 'Zeta Tools');
    await writeFile(`${file}___jb_tmp___`, fixed);
    await rename(file, `${file}___jb_old___`);
    await rename(`${file}___jb_tmp___`, file);
    await rm(`${file}___jb_old___`);
    printed = await settled(/^rebuilt in \d+ ms: /m, mark);
    expect(printed).toMatch(onlyRebuilds);
    await companiesUntil(dev.url, (list) => list.some((company) => company.name === 'Zeta Tools'));

    // Vim: a 4913 file to test the folder, the old file renamed to a backup, then removed.
    mark = dev.stderr().length;
    await writeFile(path.join(dir, 'data/company/4913'), '');
    await rm(path.join(dir, 'data/company/4913'));
    await rename(file, `${file}~`);
    await writeFile(file, fixed.replace('Zeta Tools', 'Zeta Tooling'));
    await rm(`${file}~`);
    printed = await settled(/^rebuilt in \d+ ms: /m, mark);
    expect(printed).toMatch(onlyRebuilds);
  });

  it('follows a data folder replaced whole, as npm run import swaps it in, and the changes after', async () => {
    const dir = await project();
    const dev = await start('dev', dir);
    await cp(path.join(dir, 'data'), path.join(dir, 'data.new'), { recursive: true });
    await saveCompanies(path.join(dir, 'data.new'), 'Aardvark Tools');
    await rename(path.join(dir, 'data'), path.join(dir, 'data.old'));
    await rename(path.join(dir, 'data.new'), path.join(dir, 'data'));
    await rm(path.join(dir, 'data.old'), { recursive: true });
    await companiesUntil(dev.url, (list) => list.some((company) => company.name === 'Aardvark Tools'));
    await saveCompanies(path.join(dir, 'data'), 'Zebra Works');
    await companiesUntil(dev.url, (list) => list.some((company) => company.name === 'Zebra Works'));
  });
});

/** A port nothing listens on now (the kernel's pick, released at once). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

describe.each(['start', 'dev'] as const)('npm %s during its first build', (command) => {
  it('answers 503 saying that it is building, with Retry-After', async () => {
    const dir = await project();
    const port = await freePort();
    // The first build waits for ever at its write: the server already listens.
    const preview = launch(command, dir, ['--port', String(port)], {
      env: { STATIC_API_PAUSE_AT: 'recovered' },
      graceMs: 0,
    });
    await preview.printed(/paused at recovered/);
    const answer = await fetch(`http://127.0.0.1:${port}/company/`);
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(await answer.json()).toEqual({ detail: 'Building: the API is served once the first build is done.' });
  });
});

describe.each(['start', 'dev'] as const)('npm %s', (command) => {
  it("names the reference page's address beside the API's, when the page is on", async () => {
    const dir = await project();
    const on = await start(command, dir);
    const page = `${on.url}/_reference/`;
    expect(on.stderr()).toContain(
      `Serving .preview/${new URL(on.url).port}/ at ${on.url}\nThe API reference page: ${page}\n`,
    );
    const answer = await fetch(page);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    const off = await start(command, dir, ['--reference', 'off']);
    expect(off.stderr()).not.toContain('reference');
  });
});

describe('npm start', () => {
  it('on every address, says in one line how to give the page links an address other machines can follow', async () => {
    const dir = await project();
    /** What it printed by its banner's second line, or by the line after the banner. */
    const startedOnEveryAddress = async (args: string[]): Promise<string> => {
      const preview = launch('start', dir, ['--port', '0', '--host', '0.0.0.0', ...args]);
      // Written with the banner, in one write.
      await preview.printed(/^Serving .*\n/m);
      return preview.stderr();
    };
    const told = await startedOnEveryAddress([]);
    const port = /port (\d+)/.exec(told)?.[1];
    expect(told).toContain(
      `\nIts page links name http://localhost:${port}, which another machine cannot follow: start it with --base-url (or BASE_URL) set to the address others reach it at, such as --base-url http://${hostname()}:${port}\n`,
    );
    // Given, the links are that address, and nothing is said.
    expect(await startedOnEveryAddress(['--base-url', 'http://192.0.2.1:8080'])).not.toContain('Its page links');
  });

  it("answers a method Node's parser refuses as the contract does, as npm run serve does", async () => {
    const dir = await project();
    const server = await start('start', dir);
    for (const method of ['FOO', 'get']) {
      const answer = await sendRaw(server.url, { method, target: '/company/', headers: [] });
      if (typeof answer === 'string') throw new Error(`${method}: ${answer}`);
      expect(answer.status, method).toBe(405);
      expect(answer.body.toString('utf8')).toBe(`{"detail":"Method \\"${method}\\" not allowed."}`);
      expect(answer.headers.find(([name]) => name.toLowerCase() === 'allow')?.[1]).toBe('GET, HEAD, OPTIONS');
    }
  });

  it('builds for the origin it serves into .preview/<port>/ and writes nothing else', async () => {
    const before = await committedFolders();
    const dir = await project();
    const server = await start('start', dir, ['--page-size', '1']);
    const port = new URL(server.url).port;
    expect(server.stderr()).toContain(`wrote .preview/${port}/ with `);
    const page = (await (await fetch(`${server.url}/virtualbooth-texture/`)).json()) as { next: string };
    expect(page.next).toBe(`http://localhost:${port}/virtualbooth-texture/?page=2`);
    expect((await readdir(dir)).sort()).toEqual(['.preview', '_headers', 'data']);
    expect(await readdir(path.join(dir, '.preview'))).toEqual([port]);
    expect(await committedFolders()).toEqual(before);
  });
});
