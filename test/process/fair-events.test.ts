// A fair's events given as objects (scripts/builder/pipeline/validators.ts, fairEventSchema; checkFairEvents of
// scripts/builder/pipeline/validate.ts; render.ts): what a live DRF service can show and an event id alone
// cannot say, rendered to the API's bytes through validate() and render(), and by the CLI; and
// every invalid form, with its pointer and message.

import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SourceRecord } from '../../scripts/builder/pipeline/load.ts';
import { render, routesOf } from '../../scripts/builder/pipeline/render.ts';
import { validate } from '../../scripts/builder/pipeline/validate.ts';
import { DEFAULTS } from '../../scripts/cli/settings.ts';
import { bytesOf, type FileBody } from '../../scripts/shared/file-body.ts';
import { API, SAMPLE_DIR } from '../fixtures/sample.ts';
import { cleanEnv, commandLine, GOOD_DATA, outputArgs } from '../unit/helpers/cli.ts';
import { validFair } from '../unit/helpers/records.ts';
import { tempDirs } from '../unit/helpers/tree.ts';

// biome-ignore lint/suspicious/noExplicitAny: records of every shape, right and wrong
type Raw = any;

// Written out, not built from helpers/records.ts: what a fair shows of them is spelt below
// (EXPO_AS_SHOWN, and event 11's fields).
const EVENTS: Raw[] = [
  {
    id: 5,
    name: 'Expo',
    slug: 'expo-2024',
    short_code: 'EXPO',
    start_date: '2024-05-02',
    end_date: '2024-05-04',
    logo: '/media/events/expo-2024.png',
    logo_bg_color: '#2a9d8f',
  },
  {
    id: 11,
    name: 'Future Days',
    slug: '2031',
    short_code: 'FUTR',
    start_date: '2031-09-16',
    end_date: '2031-09-20',
    logo: null,
    logo_bg_color: null,
  },
];

// A fair of event 5: the tests below give it their own events (fairWith).
const FAIR: Raw = { ...validFair(), events: [5] };

// Event 412 is in no event record: the fair gives all of it.
const EVENT_412 = {
  id: 412,
  slug: 'expo-online-2033',
  name: 'Expo Online',
  short_code: null,
  start_date: '2033-10-18',
  event_logo: '/media/events/expo-online.png',
};

const FAIR_FILE = 'data/virtualfair/fairs.json';
const MUST_GIVE =
  'is not in the event data, so this fair event must give slug, name, short_code, start_date and event_logo';
const EVENT_FILE = 'data/event/events.json';

const records = (fairs: Raw[], events: Raw[] = EVENTS): SourceRecord[] => [
  ...fairs.map((value, index): SourceRecord => ({ resource: 'virtualfair', file: FAIR_FILE, index, value })),
  ...events.map((value, index): SourceRecord => ({ resource: 'event', file: EVENT_FILE, index, value })),
];

const fairWith = (events: Raw[], id = FAIR.id): Raw => ({ ...FAIR, id, slug: `fair-${id}`, events });

/** The problems validate() finds, as file, pointer and message. */
function problems(fairs: Raw[], events: Raw[] = EVENTS, eventsComplete = true) {
  return validate(records(fairs, events), API, eventsComplete ? new Set() : new Set(['event'])).errors.map(
    ({ file, pointer, message }) => ({
      file,
      pointer,
      message,
    }),
  );
}

/** The body of /virtualfair/ and /event/ for valid data. */
function bodies(fairs: Raw[], events: Raw[] = EVENTS): { fairs: string; events: string } {
  const { catalogue, errors } = validate(records(fairs, events), API);
  expect(errors).toEqual([]);
  const settings = { baseUrl: DEFAULTS.baseUrl, pageSize: DEFAULTS.pageSize };
  const files = render(catalogue, routesOf(catalogue, settings.pageSize, API), '', settings, API);
  const text = (file: string) => bytesOf(files.get(file) as FileBody).toString('utf8');
  return { fairs: text('virtualfair/index.json'), events: text('event/index.json') };
}

/** The `events` of each fair in a /virtualfair/ body, as written. */
const fairEventsText = (body: string): string[] =>
  [...body.matchAll(/"events":(\[.*?\]),"url":/g)].map((match) => match[1] as string);

const EXPO_AS_SHOWN = `{"id":5,"slug":"expo-2024","name":"Expo","short_code":"EXPO","start_date":"2024-05-02","event_logo":"/media/events/expo-2024.png"}`;
const EVENT_LIST = bodies([FAIR]).events;

describe('a fair event given as an object, rendered', () => {
  it('an object with the id alone is the id alone, byte for byte', () => {
    expect(bodies([fairWith([{ id: 5 }])]).fairs).toBe(bodies([fairWith([5])]).fairs);
    expect(fairEventsText(bodies([fairWith([5])]).fairs)).toEqual([`[${EXPO_AS_SHOWN}]`]);
  });

  it('(1) shows the name, slug, start_date and logo the fair gives, and the rest from the event', () => {
    const given = {
      id: 5,
      name: 'Expo (virtual)',
      slug: 'expo-virtual-2024',
      start_date: '2024-06-01',
      event_logo: '/media/fairs/expo-virtual.png',
    };
    const { fairs, events } = bodies([fairWith([given])]);
    expect(fairEventsText(fairs)).toEqual([
      '[{"id":5,"slug":"expo-virtual-2024","name":"Expo (virtual)","short_code":"EXPO","start_date":"2024-06-01","event_logo":"/media/fairs/expo-virtual.png"}]',
    ]);
    // /event/ shows the event record.
    expect(events).toBe(EVENT_LIST);
  });

  it('(2) two fairs show different short codes for one event, a null one too', () => {
    const { fairs } = bodies([
      fairWith([{ id: 5, short_code: 'EX-A' }], 3),
      fairWith([{ id: 5, short_code: null }], 4),
    ]);
    expect(fairEventsText(fairs)).toEqual([
      `[${EXPO_AS_SHOWN.replace('"EXPO"', '"EX-A"')}]`,
      `[${EXPO_AS_SHOWN.replace('"EXPO"', 'null')}]`,
    ]);
  });

  it('(3) shows an event that /event/ does not list, in the order the fair gives', () => {
    const { fairs, events } = bodies([fairWith([EVENT_412, 5])]);
    expect(fairEventsText(fairs)).toEqual([
      `[{"id":412,"slug":"expo-online-2033","name":"Expo Online","short_code":null,"start_date":"2033-10-18","event_logo":"/media/events/expo-online.png"},${EXPO_AS_SHOWN}]`,
    ]);
    expect(events).toBe(EVENT_LIST);
    expect(events).not.toContain('412');
  });

  it('(4) shows event_logo for an event whose logo is null', () => {
    const { fairs, events } = bodies([fairWith([{ id: 11, event_logo: '/media/events/future-days.png' }])]);
    expect(fairEventsText(fairs)).toEqual([
      '[{"id":11,"slug":"2031","name":"Future Days","short_code":"FUTR","start_date":"2031-09-16","event_logo":"/media/events/future-days.png"}]',
    ]);
    expect(events).toContain(
      '"id":11,"name":"Future Days","slug":"2031","start_date":"2031-09-16","end_date":"2031-09-20","logo":null',
    );
  });

  it('writes the fields in the order of the API, whatever the order of the object', () => {
    const reversed = Object.fromEntries(Object.entries(EVENT_412).reverse());
    expect(bodies([fairWith([reversed])]).fairs).toBe(bodies([fairWith([EVENT_412])]).fairs);
  });
});

describe('a fair event given as an object, invalid', () => {
  const at = (pointer: string, message: string) => ({ file: FAIR_FILE, pointer, message });

  it('an id no event record has, without every field: one problem per missing field', () => {
    expect(problems([fairWith([5, { id: 412, name: 'Expo Online', short_code: null }])])).toEqual([
      at('/0/events/1/slug', `expected "slug" here: event 412 ${MUST_GIVE}`),
      at('/0/events/1/start_date', `expected "start_date" here: event 412 ${MUST_GIVE}`),
      at('/0/events/1/event_logo', `expected "event_logo" here: event 412 ${MUST_GIVE}`),
    ]);
    expect(problems([fairWith([{ id: 412 }])]).map((problem) => problem.pointer)).toEqual([
      '/0/events/0/slug',
      '/0/events/0/name',
      '/0/events/0/short_code',
      '/0/events/0/start_date',
      '/0/events/0/event_logo',
    ]);
  });

  it('an id no event record has, alone: as before', () => {
    expect(problems([fairWith([412])])).toEqual([
      at('/0/events/0', 'expected the id of an event in the event data, got 412'),
    ]);
  });

  it('an unknown id is not reported when an event file could not be read', () => {
    expect(problems([fairWith([{ id: 412, name: 'Expo Online' }, 413])], EVENTS, false)).toEqual([]);
  });

  it('an event whose logo is null, in an object without event_logo', () => {
    expect(problems([fairWith([{ id: 11, name: 'Future Days (virtual)' }, 5])])).toEqual([
      at(
        '/0/events/0',
        'expected an event with a logo (a fair shows event_logo), but event 11 has logo null, and this fair event gives no event_logo',
      ),
    ]);
  });

  it.each<[Raw[], string]>([
    [[5, { id: 5 }], '[5,{"id":5}]'],
    [[{ id: 5, name: 'A' }, { id: 5 }], '[{"id":5,"name":"A"},{"id":5}]'],
    [[EVENT_412, { id: 412 }], '[{"id":412,"slug":"expo-online-2033","name":"Expo Online"...'],
  ])('an event id twice, whichever the forms: %j', (events, shown) => {
    expect(problems([fairWith(events)])).toEqual([at('/0/events', `expected each event id once, got ${shown}`)]);
  });

  it.each<[string, Raw, string, string]>([
    [
      'an unknown field',
      { id: 5, logo: '/media/x.png' },
      '/0/events/0/logo',
      'unexpected field "logo" (expected only the documented fields)',
    ],
    [
      'an end_date',
      { id: 5, end_date: '2024-05-04' },
      '/0/events/0/end_date',
      'unexpected field "end_date" (expected only the documented fields)',
    ],
    ['no id', { name: 'Expo' }, '/0/events/0/id', 'missing field (expected a number)'],
    ['an id as text', { id: '5' }, '/0/events/0/id', 'expected a number, got "5"'],
    ['an id 0', { ...EVENT_412, id: 0 }, '/0/events/0/id', 'expected a positive integer id, got 0'],
    ['an empty name', { id: 5, name: '' }, '/0/events/0/name', 'expected a non-empty string, got ""'],
    ['a slug that is not text', { id: 5, slug: 5 }, '/0/events/0/slug', 'expected a string, got 5'],
    ['a short_code that is a number', { id: 5, short_code: 7 }, '/0/events/0/short_code', 'expected a string, got 7'],
    [
      'a start_date not on the calendar',
      { id: 5, start_date: '2023-02-29' },
      '/0/events/0/start_date',
      'expected a date YYYY-MM-DD that exists on the calendar, got "2023-02-29"',
    ],
    ['an event_logo null', { id: 11, event_logo: null }, '/0/events/0/event_logo', 'expected a string, got null'],
    [
      'an event_logo that is a URL',
      { id: 5, event_logo: 'https://media.example.com/x.png' },
      '/0/events/0/event_logo',
      'expected a site-relative path beginning with /media/, got "https://media.example.com/x.png"',
    ],
    [
      'a name with a lone surrogate',
      { id: 5, name: 'Expo \ud800' },
      '/0/events/0/name',
      'expected well-formed Unicode text (no lone surrogates), got "Expo \\ud800"',
    ],
    [
      'neither an id nor an object',
      '5',
      '/0/events/0',
      'expected an event id, or an object with the id and the fields this fair shows instead, got "5"',
    ],
    [
      'an array',
      [5],
      '/0/events/0',
      'expected an event id, or an object with the id and the fields this fair shows instead, got [5]',
    ],
  ])('%s', (_label, item, pointer, message) => {
    expect(problems([fairWith([item])])).toEqual([at(pointer, message)]);
  });

  it('reports every problem of an object at once, with those across records', () => {
    expect(problems([fairWith([{ id: 412, name: '', colour: 'red' }])])).toEqual([
      at('/0/events/0/name', 'expected a non-empty string, got ""'),
      at('/0/events/0/colour', 'unexpected field "colour" (expected only the documented fields)'),
      at('/0/events/0/slug', `expected "slug" here: event 412 ${MUST_GIVE}`),
      at('/0/events/0/short_code', `expected "short_code" here: event 412 ${MUST_GIVE}`),
      at('/0/events/0/start_date', `expected "start_date" here: event 412 ${MUST_GIVE}`),
      at('/0/events/0/event_logo', `expected "event_logo" here: event 412 ${MUST_GIVE}`),
    ]);
  });
});

describe('the CLI', () => {
  const tempDir = tempDirs('fair-events-');

  /** A copy of the good fixture whose fair's events are `events`. */
  async function dataWith(events: Raw[]): Promise<string> {
    const data = path.join(await tempDir(), 'data');
    cpSync(GOOD_DATA, data, { recursive: true });
    const file = path.join(data, 'virtualfair/fairs.json');
    const [fair] = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify([{ ...fair, events }], null, 2));
    return data;
  }

  const build = (args: string[]) =>
    spawnSync(process.execPath, commandLine('build', args), {
      cwd: SAMPLE_DIR,
      encoding: 'utf8',
      env: cleanEnv(),
    });

  it('builds every form into /virtualfair/', async () => {
    const data = await dataWith([
      9,
      { id: 5, name: 'Expo (virtual)', short_code: null },
      { id: 11, event_logo: '/media/events/future-days.png' },
      EVENT_412,
    ]);
    const out = path.join(data, '..', 'out');
    const { status, stderr } = build(['--data', data, ...outputArgs(out)]);
    expect(stderr).toContain('wrote');
    expect(status).toBe(0);
    const body = readFileSync(path.join(out, 'public/virtualfair/index.json'), 'utf8');
    expect(fairEventsText(body)).toEqual([
      '[{"id":9,"slug":"oel-gas-2018","name":"Fachmesse Öl & Gas","short_code":null,"start_date":"2018-03-06","event_logo":"/media/events/oel-gas-2018.png"},' +
        '{"id":5,"slug":"expo-2024","name":"Expo (virtual)","short_code":null,"start_date":"2024-05-02","event_logo":"/media/events/expo-2024.png"},' +
        '{"id":11,"slug":"2031","name":"Future Days","short_code":"FUTR","start_date":"2031-09-16","event_logo":"/media/events/future-days.png"},' +
        '{"id":412,"slug":"expo-online-2033","name":"Expo Online","short_code":null,"start_date":"2033-10-18","event_logo":"/media/events/expo-online.png"}]',
    ]);
  });

  it('--check names the file, the place and what to give', async () => {
    const data = await dataWith([9, { id: 412, name: 'Expo Online' }, { id: 11 }, { id: 5, logo: '/media/x.png' }]);
    const { status, stdout, stderr } = build(['--check', '--data', data]);
    expect(status).toBe(1);
    expect(stdout).toBe('');
    const lines = stderr.split('\n').filter((line) => line.includes('virtualfair/fairs.json'));
    const expected = [
      ['/0/events/3/logo', 'unexpected field "logo" (expected only the documented fields)'],
      ...['slug', 'short_code', 'start_date', 'event_logo'].map((field) => [
        `/0/events/1/${field}`,
        `expected "${field}" here: event 412 ${MUST_GIVE}`,
      ]),
      [
        '/0/events/2',
        'expected an event with a logo (a fair shows event_logo), but event 11 has logo null, and this fair event gives no event_logo',
      ],
    ];
    expect(lines).toHaveLength(expected.length);
    for (const [index, [pointer, message]] of expected.entries()) {
      expect(lines[index]).toContain(`#${pointer} `);
      expect(lines[index]?.endsWith(`: ${message}`), `${lines[index]} ends with ${message}`).toBe(true);
    }
  });
});
