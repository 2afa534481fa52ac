// scripts/targets/query-answers.ts: fileAnswer, which both rule files (_redirects, vercel.json) ask
// which file answers a query. It knows each route's own query from the route table and asks
// resolve() about the rest; here every query it is asked is checked against resolve() alone.

import { describe, expect, it } from 'vitest';
import { planRoutes, resolve } from '../../scripts/contract/routes.ts';
import { combinations, fileAnswer, listKeys, subsets } from '../../scripts/targets/query-answers.ts';
import { API, declares, missingList } from '../fixtures/sample.ts';

function byResolve(path: string, pairs: Array<[string, string]>, files: ReadonlySet<string>): string | undefined {
  const search = new URLSearchParams(pairs).toString();
  const answer = resolve('GET', `${path}${search ? `?${search}` : ''}`, API);
  return answer.kind === 'file' && answer.status === 200 && files.has(answer.file) ? answer.file : undefined;
}

describe('fileAnswer', () => {
  it('gives the file resolve() gives, for every query the rules ask about', () => {
    const routes = planRoutes(3, API);
    const files = new Set(routes.map((route) => route.file));
    let asked = 0;
    for (const { path } of API) {
      const { keys, values } = listKeys(path, routes, API);
      for (const subset of subsets(keys)) {
        for (const pairs of combinations(subset, values)) {
          expect(fileAnswer(path, pairs, routes, API), `${path} ${JSON.stringify(pairs)}`).toBe(
            byResolve(path, pairs, files),
          );
          asked++;
        }
      }
    }
    // Route queries and others alike: a page of each format, `page=1`, the probes' orderings.
    expect(asked).toBeGreaterThan(routes.length);
  });

  it('asks resolve() about keys in another order, and about values no route has', ({ skip }) => {
    skip(!declares('virtualbooth-texture'), missingList('virtualbooth-texture'));
    const routes = planRoutes(3, API);
    expect(
      fileAnswer(
        '/virtualbooth-texture/',
        [
          ['page', '2'],
          ['format', 'api'],
        ],
        routes,
        API,
      ),
    ).toBe('virtualbooth-texture/format=api/page=2.json');
    expect(fileAnswer('/virtualbooth-texture/', [['page', '1']], routes, API)).toBe('virtualbooth-texture/index.json');
    expect(fileAnswer('/virtualbooth-texture/', [['page', '4']], routes, API)).toBeUndefined();
    expect(fileAnswer('/event/', [['ordering', 'id']], routes, API)).toBe('event/index.json');
    expect(fileAnswer('/event/', [['ordering', 'name,id']], routes, API)).toBe('event/ordering=name.json');
    expect(fileAnswer('/event/', [['ordering', 'name,slug']], routes, API)).toBeUndefined();
  });
});
