// The value the import asks a list's filter with (migrate/query-probes.ts filterProbe): one held by
// several records but not all where there is one, else one held by some, never one django-filter
// would read otherwise, and the records an exact filter with it keeps.

import { describe, expect, it } from 'vitest';
import { filterProbe } from '../../scripts/migrate/query-probes.ts';

const rows = (cities: unknown[]) => cities.map((city, index) => ({ id: index + 1, city }));

describe('the filter probe', () => {
  it('takes the first value several records hold, not all, in the records’ order', () => {
    const records = rows(['Oslo', 'Bergen', 'Tromsø', 'Bergen', 'Tromsø', 'Oslo2']);
    const probe = filterProbe(records, 'city', 'text');
    expect(probe?.value).toBe('Bergen');
    expect(probe?.kept().map((record) => record.id)).toEqual([2, 4]);
  });

  it('takes the first value some records hold when none is held twice', () => {
    expect(filterProbe(rows(['Oslo', 'Bergen', 'Tromsø']), 'city', 'text')?.value).toBe('Oslo');
    expect(filterProbe(rows([7, 3, 3]), 'city', 'integer')?.value).toBe('3');
  });

  it('passes over a value every record holds, null, and a text django-filter reads otherwise', () => {
    // Stripped, empty or null: a request with that text does not keep the records holding it.
    expect(filterProbe(rows([' Oslo ', ' Oslo ', '', '', null, null, 'Bergen']), 'city', 'text')?.value).toBe('Bergen');
    expect(filterProbe(rows(['Oslo', 'Oslo']), 'city', 'text')).toBeUndefined();
    expect(filterProbe(rows([null, ' x ']), 'city', 'text')).toBeUndefined();
  });
});
