// scripts/targets/selection.ts: which targets a build writes, judged on plain values (the
// rendered output, each target's files) before anything is written. The same rules as the
// build runs them: test/process/limits-cli.test.ts.

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { routingOf } from '../../scripts/contract/routes.ts';
import { cloudflarePagesStatic, cloudflareWorkers } from '../../scripts/targets/cloudflare/targets.ts';
import { TARGET_NAMES } from '../../scripts/targets/index.ts';
import { LimitsError } from '../../scripts/targets/limits.ts';
import { type Asked, askTargets, judgeTargets, selectTargets } from '../../scripts/targets/selection.ts';
import { HeadersTargetError, type Target, type TargetContext } from '../../scripts/targets/target.ts';
import { nginx } from '../../scripts/targets/web-servers/targets.ts';
import { API } from '../fixtures/sample.ts';

const OUT = '/tmp/out';
const TARGETS_DIR = '/tmp/targets';
const pagesStaticDir = path.join(TARGETS_DIR, 'cloudflare-pages-static');

/** A `_headers` of `count` rules, as Pages' static target writes it. */
const headersOf = (count: number) =>
  Array.from({ length: count }, (_, index) => `/rule-${index}/\n  X-Rule: ${index}`).join('\n');

const OVER = `cloudflare-pages-static: ${pagesStaticDir}/_headers has 101 rules, over the limit of 100 _headers rules on Cloudflare Pages; use fewer rules in _headers, or another target (cloudflare-pages, cloudflare-workers)`;

function judge(asked: readonly Asked[], named: boolean, resources = routingOf(API)) {
  const warnings: string[] = [];
  const run = () =>
    judgeTargets(asked, {
      output: new Map([['company/index.json', '[]']]),
      resources,
      named,
      outDir: OUT,
      targetsDir: TARGETS_DIR,
      warn: (line) => warnings.push(line),
    });
  return { run, warnings };
}

describe('selectTargets', () => {
  it('is every target when none is named, else the named ones in the order of the list', () => {
    expect(selectTargets(undefined).map((target) => target.name)).toEqual([...TARGET_NAMES]);
    expect(selectTargets(['vercel', 'nginx']).map((target) => target.name)).toEqual(['nginx', 'vercel']);
    expect(selectTargets([])).toEqual([]);
  });
});

describe('judgeTargets', () => {
  const within: Asked = { target: nginx, files: new Map([['api.conf', '']]) };
  const over: Asked = { target: cloudflarePagesStatic, files: new Map([['_headers', headersOf(101)]]) };

  it('of every target, leaves one over a limit out with a warning per reason, its folder a README saying why', () => {
    const { run, warnings } = judge([over, within], false);
    const verdict = run();
    expect(verdict.written).toEqual([within]);
    expect(verdict.leftOut.map(({ target }) => target)).toEqual([cloudflarePagesStatic]);
    expect(warnings).toEqual([
      OVER,
      `cloudflare-pages-static is left out: ${pagesStaticDir}/ holds only a README saying why (--target cloudflare-pages-static makes this an error)`,
    ]);
    const readme = verdict.leftOut[0]?.files.get('README.md');
    expect(readme).toContain(`- ${OVER}\n`);
    expect([...(verdict.leftOut[0]?.files.keys() ?? [])]).toEqual(['README.md']);
  });

  it('a named target that cannot take the build stops it, one line per reason; a warning near a limit still goes first', () => {
    const near: Asked = { target: cloudflarePagesStatic, files: new Map([['_headers', headersOf(85)]]) };
    const { run, warnings } = judge([over, near], true);
    expect(run).toThrow(LimitsError);
    expect(() => run()).toThrow(OVER);
    try {
      run();
    } catch (error) {
      expect((error as LimitsError).lines).toEqual([OVER]);
    }
    expect(warnings[0]).toContain('has 85 rules, 85% of the limit of 100 _headers rules');
  });

  it("leaves out a target not named that refuses a `_headers` rule, with the refusal's line", () => {
    const refusal = new HeadersTargetError('nginx', '/x/', 'sets a header nginx cannot write');
    const { run, warnings } = judge([{ target: nginx, files: refusal }], false);
    expect(run().leftOut.map(({ target }) => target)).toEqual([nginx]);
    expect(warnings[0]).toBe('target nginx: the _headers rule /x/ sets a header nginx cannot write');
  });

  it('leaves out a target routing on the path alone while a list has filters, search or orderings', () => {
    const query = { filters: [], search: [], ordering: ['name'], prerendered: [] };
    const resources = routingOf(API).map((resource) =>
      resource.name === 'company' ? { ...resource, query } : resource,
    );
    const pagesStatic: Asked = { target: cloudflarePagesStatic, files: new Map([['_headers', headersOf(1)]]) };
    const { run, warnings } = judge([pagesStatic, within], false, resources);
    expect(run().written).toEqual([within]);
    expect(warnings[0]).toBe(
      'cloudflare-pages-static: routes on the path alone, so it cannot answer or refuse the filters, search and orderings the settings file gives /company/ (it would send the whole list); use cloudflare-workers, cloudflare-pages, nginx, caddy, apache, netlify, vercel, or remove those settings',
    );
    // Without those settings it takes the build.
    expect(judge([pagesStatic], false).run().written).toEqual([pagesStatic]);
  });
});

describe('askTargets', () => {
  const context: TargetContext = { routes: [], documents: [], headerRules: [], resources: routingOf(API) };
  /** A target refusing a rule after `ms`: a generator that bundles first answers later. */
  const refusing = (name: string, ms = 0): Target => ({
    ...cloudflareWorkers,
    name,
    files: async () => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      throw new HeadersTargetError(name, '/x/', 'cannot');
    },
  });

  it("keeps a refusal of a `_headers` rule for the judge when no target is named, and fails on it when one is: the list's first", async () => {
    const [first, second] = [refusing('first', 50), refusing('second')];
    const asked = await askTargets([first, second], context, false);
    expect(asked.map(({ files }) => (files as HeadersTargetError).refusal)).toEqual([
      'target first: the _headers rule /x/ cannot',
      'target second: the _headers rule /x/ cannot',
    ]);
    await expect(askTargets([first, second], context, true)).rejects.toThrow('target first:');
  });

  it('fails on any other error, named or not', async () => {
    const broken: Target = { ...nginx, files: () => Promise.reject(new Error('esbuild failed')) };
    await expect(askTargets([broken], context, false)).rejects.toThrow('esbuild failed');
  });
});
