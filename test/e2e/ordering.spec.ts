// [ordering] docs/contract.md section 5.3, DRF's OrderingFilter on /event/: every field ascending and
// descending, comma-separated fields, invalid terms dropped. Each answer's order is checked
// with the test's own comparator (lib/order.ts: code points, nulls last ascending / first
// descending, ties by id ascending) and its records against the source data.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { declares, missingList, SAMPLE_DATA } from '../fixtures/sample.ts';
import { expect, test } from './fixtures.ts';
import { EVENT_FIELDS } from './lib/contract.ts';
import type { Client } from './lib/http.ts';
import { eventKeys, ids, sortBy, type Value } from './lib/order.ts';

type EventRow = Record<string, Value> & { id: number };

// The event list's contract: a run whose declarations have no event list leaves it out.
test.skip(!declares('event'), missingList('event'));

async function sourceIds(): Promise<number[]> {
  const events = JSON.parse(await readFile(path.join(SAMPLE_DATA, 'event/events.json'), 'utf8')) as Array<{
    id: number;
  }>;
  return events.map((e) => e.id).sort((a, b) => a - b);
}

/** Asserts that `url` answers every source event, sorted by `terms` then id ascending. */
async function expectOrder(api: Client, url: string, terms: readonly string[]): Promise<void> {
  const answer = await api.get(url);
  expect(answer.status, `${answer}`).toBe(200);
  const events = answer.json<EventRow[]>();
  expect(
    ids(events).sort((a, b) => a - b),
    'the records of the source data',
  ).toEqual(await sourceIds());
  expect(ids(events), `${answer}: order by ${terms.join(',') || 'id'}`).toEqual(ids(sortBy(events, eventKeys(terms))));
}

for (const field of EVENT_FIELDS) {
  for (const term of [field, `-${field}`]) {
    test(`[ordering] /event/?ordering=${term}`, async ({ api }) => {
      await expectOrder(api, `/event/?ordering=${term}`, [term]);
    });
  }
}

const MULTI: ReadonlyArray<readonly [query: string, terms: string[]]> = [
  ['-start_date,name', ['-start_date', 'name']],
  ['name,-id', ['name', '-id']],
  ['logo_bg_color,-end_date,slug', ['logo_bg_color', '-end_date', 'slug']],
  ['-logo,start_date', ['-logo', 'start_date']],
  ['name,logo_bg_color', ['name', 'logo_bg_color']],
];

for (const [query, terms] of MULTI) {
  test(`[ordering.multi] /event/?ordering=${query}`, async ({ api }) => {
    await expectOrder(api, `/event/?ordering=${query}`, terms);
  });
}

// Terms that are not event fields are dropped silently; none left means the default order.
const INVALID: ReadonlyArray<readonly [query: string, terms: string[]]> = [
  ['bogus', []],
  ['-start_date,bogus', ['-start_date']],
  ['bogus,-nope', []],
  ['', []],
  ['name,bogus,-id', ['name', '-id']],
  ['--id', []],
  ['short_code', []],
];

for (const [query, terms] of INVALID) {
  test(`[ordering.invalid] /event/?ordering=${query} → ${terms.length ? terms.join(',') : 'default order (id ascending)'}`, async ({
    api,
  }) => {
    await expectOrder(api, `/event/?ordering=${query}`, terms);
  });
}
