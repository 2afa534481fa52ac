// `npm run build` and the hosts' limits, as the user runs it: of every target, one the limits
// refuse is left out with a warning; a target the user named (--target, or `targets` in the
// settings file) stops the build before anything is written. A `_headers` with many rules is
// what Cloudflare Pages' static target (100 `_headers` rules) cannot take: a real limit, cheap
// to reach.

import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { GOOD_DATA, outputArgs, ROOT, runCommand } from '../unit/helpers/cli.ts';
import { readTreeText, tempDirs } from '../unit/helpers/tree.ts';

const tempDir = tempDirs('limits-cli-');

/** The project's `_headers` (one rule) and `extra` rules more. */
async function headersWith(dir: string, extra: number): Promise<string> {
  const file = path.join(dir, '_headers');
  const rules = Array.from({ length: extra }, (_, index) => `/extra-${index}/\n  X-Extra: ${index}\n`);
  await writeFile(file, `${await readFile(SAMPLE_HEADERS, 'utf8')}${rules.join('')}`);
  return file;
}

function buildArgs(dir: string, headers: string, more: string[] = []): string[] {
  return [
    '--data',
    GOOD_DATA,
    '--headers',
    headers,
    '--config',
    path.join(dir, 'config.json'),
    ...outputArgs(dir),
    ...more,
  ];
}

describe('npm run build against the hosts limits', () => {
  it('of every target, leaves out one its host refuses, with a warning per limit, and writes the rest', async () => {
    const dir = await tempDir();
    const headers = await headersWith(dir, 120);
    const run = await runCommand('build', buildArgs(dir, headers));
    expect(run.code).toBe(0);
    const pagesStatic = path.join(dir, 'targets', 'cloudflare-pages-static');
    expect(run.stderr).toContain(
      `warning: cloudflare-pages-static: ${pagesStatic}/_headers has 121 rules, over the limit of 100 _headers rules on Cloudflare Pages; use fewer rules in _headers, or another target (cloudflare-pages, cloudflare-workers)\n`,
    );
    expect(run.stderr).toContain(
      `warning: cloudflare-pages-static is left out: ${pagesStatic}/ holds only a README saying why (--target cloudflare-pages-static makes this an error)\n`,
    );
    // A rule for a path outside the lists is one Netlify cannot give that path's 404: left out alike.
    expect(run.stderr).toContain(
      `warning: target netlify: the _headers rule /extra-0/ matches paths outside the lists, whose 404 Netlify sends as one static file with the headers of /_errors/not-found.json: write it for a list's path (/company/) or every path (/*)\n`,
    );
    expect(run.stderr).toContain(
      `warning: netlify is left out: ${path.join(dir, 'targets', 'netlify')}/ holds only a README saying why (--target netlify makes this an error)\n`,
    );
    const written = Object.keys(await readTreeText(path.join(dir, 'targets')));
    expect(new Set(written.filter((file) => !file.endsWith('/README.md')).map((file) => file.split('/')[0]))).toEqual(
      new Set(['cloudflare-workers', 'cloudflare-pages', 'nginx', 'caddy', 'apache', 'vercel']),
    );
    expect(written).toContain('netlify/README.md');
    expect(written).not.toContain('netlify/_redirects');
    expect(await readFile(path.join(dir, 'public', '_headers'), 'utf8')).toContain('/extra-119/');
  });

  it('a target named with --target or in the settings file stops the build: exit 1, nothing written', async () => {
    const dir = await tempDir();
    const before = await runCommand('build', buildArgs(dir, await headersWith(dir, 0)));
    expect(before.code).toBe(0);
    const previous = await readTreeText(dir);
    const headers = await headersWith(dir, 150);
    const previousWithHeaders = { ...previous, _headers: await readFile(headers, 'utf8') };

    const named = await runCommand('build', buildArgs(dir, headers, ['--target', 'nginx,cloudflare-pages-static']));
    expect(named.code).toBe(1);
    const pagesStatic = path.join(dir, 'targets', 'cloudflare-pages-static');
    expect(named.stderr).toContain(
      `\ncloudflare-pages-static: ${pagesStatic}/_headers has 151 rules, over the limit of 100 _headers rules on Cloudflare Pages; use fewer rules in _headers, or another target (cloudflare-pages, cloudflare-workers)\n`,
    );
    expect(named.stderr).toContain('\nThe chosen targets cannot take this build; nothing was written.');
    expect(named.stderr).not.toContain('warning:');
    expect(await readTreeText(dir)).toEqual(previousWithHeaders);

    await writeFile(path.join(dir, 'config.json'), JSON.stringify({ targets: ['cloudflare-pages-static'] }));
    const stored = await runCommand('build', buildArgs(dir, headers));
    expect(stored.code).toBe(1);
    expect(stored.stderr).toContain(`cloudflare-pages-static: ${pagesStatic}/_headers has 151 rules, over the limit`);
    // The flag wins over the settings file: `all` is every target, the refused one left out.
    const all = await runCommand('build', buildArgs(dir, headers, ['--target', 'all']));
    expect(all.code).toBe(0);
    expect(all.stderr).toContain('warning: cloudflare-pages-static is left out');
  });

  it('warns from 80% of a limit and writes the target', async () => {
    const dir = await tempDir();
    const run = await runCommand(
      'build',
      buildArgs(dir, await headersWith(dir, 84), ['--target', 'cloudflare-pages-static']),
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `warning: cloudflare-pages-static: ${path.join(dir, 'targets', 'cloudflare-pages-static')}/_headers has 85 rules, 85% of the limit of 100 _headers rules on Cloudflare Pages; before it grows past it, use fewer rules in _headers, or another target (cloudflare-pages, cloudflare-workers)\n`,
    );
    expect(await readFile(path.join(dir, 'targets', 'cloudflare-pages-static', '_headers'), 'utf8')).toContain(
      '/extra-83/',
    );
  });

  it('refuses a settings file whose targets or plan it cannot read', async () => {
    const dir = await tempDir();
    const headers = await headersWith(dir, 0);
    const config = path.join(dir, 'config.json');
    await writeFile(config, JSON.stringify({ targets: 'nginx' }));
    const text = await runCommand('build', buildArgs(dir, headers));
    expect(text.code).toBe(2);
    expect(text.stderr).toContain(
      `targets in ${config} must be an array of deploy target names, such as ["cloudflare-workers"], got "nginx"`,
    );
    await writeFile(config, JSON.stringify({ targets: ['github-pages'] }));
    expect((await runCommand('build', buildArgs(dir, headers))).stderr).toContain(
      `targets in ${config} github-pages is refused`,
    );
    await writeFile(config, JSON.stringify({ cloudflarePlan: 'pro' }));
    expect((await runCommand('build', buildArgs(dir, headers))).stderr).toContain(
      `cloudflarePlan in ${config} must be one of free, paid, got "pro"`,
    );
  });
});

describe('npm run build with filters, search or orderings in the settings file', () => {
  const settings = path.join(ROOT, 'test/fixtures/filters/static-api.config.json');
  const args = (dir: string, more: string[] = []) => [
    '--data',
    GOOD_DATA,
    '--config',
    settings,
    ...outputArgs(dir),
    ...more,
  ];
  const refusal = (target: string) =>
    `${target}: routes on the path alone, so it cannot answer or refuse the filters, search and orderings the settings file gives /company/, /virtualbooth-texture/ (it would send the whole list); use cloudflare-workers, cloudflare-pages, nginx, caddy, apache, netlify, vercel, or remove those settings\n`;

  it('leaves out Pages without code, which would send the whole list, and writes the targets that answer or refuse them', async () => {
    const dir = await tempDir();
    const run = await runCommand('build', args(dir));
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`warning: ${refusal('cloudflare-pages-static')}`);
    for (const target of ['nginx', 'caddy', 'apache', 'vercel', 'netlify'])
      expect(run.stderr).not.toContain(`${target}: routes`);
    const written = Object.keys(await readTreeText(path.join(dir, 'targets')));
    const targets = (files: string[]) => new Set(files.map((file) => file.split('/')[0]));
    expect(targets(written.filter((file) => !file.endsWith('/README.md')))).toEqual(
      new Set(['cloudflare-workers', 'cloudflare-pages', 'nginx', 'caddy', 'apache', 'netlify', 'vercel']),
    );
    expect(written.filter((file) => file.startsWith('cloudflare-pages-static/'))).toEqual([
      'cloudflare-pages-static/README.md',
    ]);
  });

  it("replaces a left-out target's folder from an earlier build with a README saying why, so nothing stale is deployed", async () => {
    const dir = await tempDir();
    const pagesStatic = path.join(dir, 'targets', 'cloudflare-pages-static');
    const earlier = await runCommand('build', [
      ...outputArgs(dir),
      '--data',
      GOOD_DATA,
      '--config',
      path.join(dir, 'none.json'),
    ]);
    expect(earlier.code).toBe(0);
    expect(Object.keys(await readTreeText(pagesStatic))).toContain('_redirects');

    const run = await runCommand('build', args(dir));
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `warning: cloudflare-pages-static is left out: ${pagesStatic}/ holds only a README saying why (--target cloudflare-pages-static makes this an error)\n`,
    );
    const left = await readTreeText(pagesStatic);
    expect(Object.keys(left)).toEqual(['README.md']);
    expect(left['README.md']).toContain(`\n- ${refusal('cloudflare-pages-static')}`);
    expect(left['README.md']).toMatch(/^# cloudflare-pages-static: left out of the last build$/m);
    // The other targets are written as ever.
    expect(Object.keys(await readTreeText(path.join(dir, 'targets', 'nginx')))).toContain('api.conf');
  });

  it('refuses Pages without code named with --target: exit 1, nothing written', async () => {
    const dir = await tempDir();
    const run = await runCommand('build', args(dir, ['--target', 'cloudflare-pages-static,nginx']));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`\n${refusal('cloudflare-pages-static')}`);
    expect(run.stderr).not.toContain('nginx: routes');
    expect(run.stderr).toContain('\nThe chosen targets cannot take this build; nothing was written.');
    expect(await readTreeText(dir)).toEqual({});
  });
});

describe('npm run build and the worker CPU time per request', () => {
  const filters = path.join(ROOT, 'test/fixtures/filters/static-api.config.json');

  /** A build for cloudflare-workers alone into `dir`, with a settings file of `settings`. */
  async function buildWorkers(dir: string, settings: Record<string, unknown>) {
    const config = path.join(dir, 'config.json');
    await writeFile(config, JSON.stringify(settings));
    const args = ['--data', GOOD_DATA, '--config', config, '--target', 'cloudflare-workers', ...outputArgs(dir)];
    return runCommand('build', args);
  }

  it('writes the cpuMs of the settings file into wrangler.jsonc as limits.cpu_ms', async () => {
    const dir = await tempDir();
    const run = await buildWorkers(dir, { cloudflarePlan: 'paid', cpuMs: 60_000 });
    expect(run.code).toBe(0);
    const wrangler = await readFile(path.join(dir, 'targets', 'cloudflare-workers', 'wrangler.jsonc'), 'utf8');
    expect(parse(wrangler).limits).toEqual({ cpu_ms: 60_000 });
  });

  it('stops a build whose lists need more CPU time than the cpuMs it names, with the list and the estimate', async () => {
    const dir = await tempDir();
    const settings = JSON.parse(await readFile(filters, 'utf8')) as Record<string, unknown>;
    const run = await buildWorkers(dir, { ...settings, cloudflarePlan: 'paid', cpuMs: 1 });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /cloudflare-workers: \/company\/\?search= \(search\) takes an estimated \d+ ms of CPU, over the limit of 1 ms CPU time per request on Cloudflare Workers \(Cloudflare paid plan\)/,
    );
    expect(await readTreeText(dir)).toEqual({ 'config.json': expect.any(String) });
  });
});
