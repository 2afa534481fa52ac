// contract/filters.ts reads a filter's value as django-filter 23.1 on Django 3.2's form fields:
// examples written out, then the same values and generated ones against Django itself, when the
// DRF service's packages are installed (python3-django, python3-django-filters).

import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type FilterKind, filterMatcher, readFilters } from '../../scripts/contract/filters.ts';
import { reportMissing } from '../installed.ts';

const ORACLE = fileURLToPath(new URL('../unit/helpers/django-forms.py', import.meta.url));

type Outcome = ['ignored'] | ['value', string | boolean] | ['error', string];

function engine(kind: FilterKind, raw: string): Outcome {
  const { conditions, errors } = readFilters(new Map([['f', raw]]), [{ field: 'f', kind }]);
  if (errors) return ['error', errors.f?.[0] as string];
  const [condition] = conditions;
  return condition === undefined ? ['ignored'] : ['value', condition.equals];
}

/** Django's readings of the values, in one python3 run; undefined when Django or django-filter is missing. */
function django(inputs: ReadonlyArray<readonly [FilterKind, string]>): Outcome[] | undefined {
  const input = inputs.map((pair) => JSON.stringify(pair)).join('\n');
  const output = execFileSync('/usr/bin/python3', [ORACLE], { input, encoding: 'utf8', maxBuffer: 64 << 20 });
  return output
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Outcome);
}

function djangoInstalled(): boolean {
  try {
    execFileSync('/usr/bin/python3', ['-c', 'import django, django_filters'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const EXAMPLES: ReadonlyArray<readonly [FilterKind, string, Outcome]> = [
  ['text', '', ['ignored']],
  ['text', ' \t\u3000', ['ignored']],
  ['text', ' Zürich ', ['value', 'Zürich']],
  ['text', 'a\0b', ['error', 'Null characters are not allowed.']],
  ['text', '\ufeffx', ['value', '\ufeffx']],
  ['integer', '', ['ignored']],
  ['integer', ' ', ['error', 'Enter a number.']],
  ['integer', '12', ['value', '12']],
  ['integer', ' +0012 ', ['value', '12']],
  ['integer', '2.9', ['value', '2']],
  ['integer', '-0.5', ['value', '0']],
  ['integer', '1e3', ['value', '1000']],
  ['integer', '1_000', ['value', '1000']],
  ['integer', '١٢', ['value', '12']],
  ['integer', 'NaN', ['error', 'Enter a number.']],
  ['integer', 'Infinity', ['error', 'Enter a number.']],
  ['integer', 'abc', ['error', 'Enter a number.']],
  ['integer', '0x10', ['error', 'Enter a number.']],
  ['boolean', 'TRUE', ['value', true]],
  ['boolean', '0', ['value', false]],
  ['boolean', 'yes', ['ignored']],
  ['boolean', '', ['ignored']],
  ['date', '2024-02-29', ['value', '2024-02-29']],
  ['date', '2023-02-29', ['error', 'Enter a valid date.']],
  ['date', '2024-2-9', ['value', '2024-02-09']],
  ['date', '02/09/24', ['value', '2024-02-09']],
  ['date', '12/31/69', ['value', '1969-12-31']],
  ['date', 'feb 9, 2024', ['value', '2024-02-09']],
  ['date', '9  FEBRUARY 2024', ['value', '2024-02-09']],
  ['date', '0000-01-01', ['error', 'Enter a valid date.']],
  ['date', ' ', ['error', 'Enter a valid date.']],
  ['date', '', ['ignored']],
  ['uuid', '{A4F0F8AF-93C1-4EEE-A163-330FCB96DD80}', ['value', 'a4f0f8af-93c1-4eee-a163-330fcb96dd80']],
  ['uuid', 'urn:uuid:a4f0f8af93c14eeea163330fcb96dd80', ['value', 'a4f0f8af-93c1-4eee-a163-330fcb96dd80']],
  ['uuid', 'a4f0f8af', ['error', 'Enter a valid UUID.']],
  ['uuid', '  ', ['ignored']],
];

describe('a filter value, read as django-filter reads it', () => {
  it.each(EXAMPLES)('%s %j', (kind, raw, expected) => {
    expect(engine(kind, raw)).toEqual(expected);
  });

  it('collects every refused field in the order of filterset_fields, and ignores the others', () => {
    const params = new Map([
      ['b', 'x'],
      ['a', 'no date'],
      ['c', 'maybe'],
    ]);
    const result = readFilters(params, [
      { field: 'a', kind: 'date' },
      { field: 'c', kind: 'boolean' },
      { field: 'b', kind: 'integer' },
    ]);
    expect(JSON.stringify(result.errors)).toBe('{"a":["Enter a valid date."],"b":["Enter a number."]}');
    expect(result.conditions).toEqual([]);
  });

  it('matches records exactly: case-sensitive text, nulls never, integers by value', () => {
    const { conditions } = readFilters(
      new Map([
        ['city', 'Zürich'],
        ['id', '7.0'],
      ]),
      [
        { field: 'city', kind: 'text' },
        { field: 'id', kind: 'integer' },
      ],
    );
    const matches = filterMatcher(conditions);
    expect(matches({ id: 7, city: 'Zürich' })).toBe(true);
    expect(matches({ id: 7, city: 'zürich' })).toBe(false);
    expect(matches({ id: 7, city: null })).toBe(false);
    expect(matches({ id: 70, city: 'Zürich' })).toBe(false);
    const phone = filterMatcher(readFilters(new Map([['phone', 'x']]), [{ field: 'phone', kind: 'text' }]).conditions);
    expect(phone({ phone: null })).toBe(false);
  });
});

const installed = djangoInstalled();
if (!installed) reportMissing('Django with django-filter', 'the comparison of the filters with Django');

describe.skipIf(!installed)('a filter value, as Django itself reads it', () => {
  it('agrees on the examples', () => {
    expect(django(EXAMPLES.map(([kind, raw]) => [kind, raw] as const))).toEqual(
      EXAMPLES.map(([, , outcome]) => outcome),
    );
  });

  it('agrees on generated values', () => {
    const piece = fc.constantFrom(
      ...[
        '0',
        '1',
        '2',
        '9',
        '12',
        '٣',
        '２',
        '.',
        '-',
        '+',
        '_',
        'e',
        'E',
        ' ',
        '\t',
        '\u3000',
        '\u00a0',
        '\x1c',
        '/',
      ],
      ...[',', 'jan', 'Feb', 'MAY', 'september', 'sept', 'a', 'f', 'ı', 'İ', 'ß', '中', '\0', 'true', 'FALSE', 'nan'],
      ...[
        'inf',
        '2024',
        '1969',
        '-02-',
        '-2-',
        '29',
        '31',
        '{',
        '}',
        'urn:',
        'uuid:',
        'a4f0f8af93c14eee',
        'A163330FCB96DD80',
      ],
    );
    const value = fc.array(piece, { maxLength: 7 }).map((pieces) => pieces.join(''));
    const kind = fc.constantFrom<FilterKind>('text', 'integer', 'boolean', 'date', 'uuid');
    const samples = fc.sample(fc.tuple(kind, value), { numRuns: 3000, seed: 35 });
    const expected = django(samples) as Outcome[];
    const differences = samples
      .map(([k, raw], index) => ({ kind: k, raw, engine: engine(k, raw), django: expected[index] }))
      .filter((one) => JSON.stringify(one.engine) !== JSON.stringify(one.django));
    expect(differences.slice(0, 10)).toEqual([]);
  });
});
