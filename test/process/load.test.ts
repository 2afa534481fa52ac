// scripts/builder/pipeline/load.ts: finding and parsing the source files in temp folders. One record or
// an array per file, path order, syntax errors with line and column, BOM, top-level values that
// are not records, files outside the four resource folders, the strict reading of the bytes
// (strict-json.ts, one line per problem naming the file) and of the file system
// (source-files.ts: symbolic links, FIFOs, files skipped with a warning, --data one level up).

import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatDataError } from '../../scripts/builder/pipeline/errors.ts';
import { load } from '../../scripts/builder/pipeline/load.ts';
import { validate } from '../../scripts/builder/pipeline/validate.ts';
import { API } from '../fixtures/sample.ts';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'load-test-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function files(entries: Record<string, string | Buffer>): Promise<void> {
  for (const [name, content] of Object.entries(entries)) {
    const file = path.join(dir, name);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  }
}

/** `folder` loaded as the build loads a data folder, for the sample's lists. */
const loadLists = (folder: string) =>
  load(
    folder,
    API.map((resource) => resource.name),
  );

/** The error lines, with the temp folder written as `data`. */
async function errorLines(): Promise<string[]> {
  const { errors } = await loadLists(dir);
  return errors
    .map(formatDataError)
    .map((line) => line.replaceAll(dir, 'data'))
    .sort();
}

const STRAY = 'expected only .json files in the folders company/, virtualfair/, event/, virtualbooth-texture/';

describe('load: records', () => {
  it('reads escaped surrogates as JSON.parse does; a lone one is left to the schemas to report', async () => {
    await files({
      'event/accent.json': '{"id": 1, "name": "caf\\u00e9"}',
      'event/pair.json': '[{"id": 2, "name": "\\ud83d\\ude00"}, {"id": 3}]',
      'event/lone.json': '{"id": 4, "name": "\\uDC00"}',
    });
    const { records, errors } = await loadLists(dir);
    expect(errors).toEqual([]);
    expect(records.map((r) => [path.basename(r.file), r.value])).toEqual([
      ['accent.json', { id: 1, name: 'café' }],
      ['lone.json', { id: 4, name: '\udc00' }],
      ['pair.json', { id: 2, name: '😀' }],
      ['pair.json', { id: 3 }],
    ]);
    const lines = validate(records, API)
      .errors.map(formatDataError)
      .filter((line) => line.includes('surrogate'));
    expect(lines.map((line) => line.replaceAll(dir, 'data'))).toEqual([
      'data/event/lone.json#/name (record id 4): expected well-formed Unicode text (no lone surrogates), got "\\udc00"',
    ]);
  });

  it('reads a one-record file as a record with index null', async () => {
    await files({ 'event/one.json': '{"id": 5, "name": "Expo"}' });
    expect(await loadLists(dir)).toEqual({
      records: [
        { resource: 'event', file: path.join(dir, 'event/one.json'), index: null, value: { id: 5, name: 'Expo' } },
      ],
      errors: [],
      warnings: [],
      incomplete: new Set(),
      files: 1,
      bytes: 25,
    });
  });

  it('reads an array file as one record per element, with its index', async () => {
    await files({ 'company/all.json': '[{"id": 1}, {"id": 2}, {"id": 3}]' });
    const { records, errors } = await loadLists(dir);
    expect(errors).toEqual([]);
    expect(records.map((r) => [r.resource, r.index, r.value])).toEqual([
      ['company', 0, { id: 1 }],
      ['company', 1, { id: 2 }],
      ['company', 2, { id: 3 }],
    ]);
  });

  it('reads an empty array as no records, without an error', async () => {
    await files({ 'virtualfair/none.json': '[]' });
    expect(await loadLists(dir)).toMatchObject({ records: [], errors: [], files: 1 });
  });

  it('reads files in path (code-point) order, folders included', async () => {
    await files({
      'virtualfair/f.json': '{"n": "virtualfair/f"}',
      'event/b.json': '{"n": "event/b"}',
      'event/a.json': '[{"n": "event/a 0"}, {"n": "event/a 1"}]',
      'event/A.json': '{"n": "event/A"}',
      'event/9.json': '{"n": "event/9"}',
      'event/10.json': '{"n": "event/10"}',
      'event/sub/z.json': '{"n": "event/sub/z"}',
      'company/x.json': '{"n": "company/x"}',
      'virtualbooth-texture/t.json': '{"n": "virtualbooth-texture/t"}',
    });
    const { records, errors, files: count } = await loadLists(dir);
    expect(errors).toEqual([]);
    expect(count).toBe(9);
    expect(records.map((r) => (r.value as { n: string }).n)).toEqual([
      'company/x',
      'event/10',
      'event/9',
      'event/A',
      'event/a 0',
      'event/a 1',
      'event/b',
      'event/sub/z',
      'virtualbooth-texture/t',
      'virtualfair/f',
    ]);
    expect(records.map((r) => r.resource)).toEqual([
      'company',
      'event',
      'event',
      'event',
      'event',
      'event',
      'event',
      'event',
      'virtualbooth-texture',
      'virtualfair',
    ]);
  });

  it('names files with the data folder as given', async () => {
    const { records } = await loadLists('test/fixtures/good/data');
    expect([...new Set(records.map((r) => r.file))]).toEqual([
      'test/fixtures/good/data/company/companies.json',
      'test/fixtures/good/data/event/events.json',
      'test/fixtures/good/data/virtualbooth-texture/cork.json',
      'test/fixtures/good/data/virtualbooth-texture/oak.json',
      'test/fixtures/good/data/virtualfair/fairs.json',
    ]);
  });

  it('accepts a UTF-8 byte order mark', async () => {
    await files({
      'event/bom.json': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name": "Köln"}')]),
    });
    const { records, errors } = await loadLists(dir);
    expect(errors).toEqual([]);
    expect(records.map((r) => r.value)).toEqual([{ name: 'Köln' }]);
  });

  it('counts the files and their bytes', async () => {
    await files({ 'event/a.json': '{"name": "é"}', 'event/b.json': '[]' });
    expect(await loadLists(dir)).toMatchObject({ files: 2, bytes: 16 });
  });
});

describe('load: malformed JSON, at file:line:column', () => {
  it.each<[string, string, string]>([
    ['trailing comma', '{\n  "id": 1,\n  "name": "x",\n}\n', ':4:1: malformed JSON: property name expected'],
    // Placed where the comma goes, on the line of the value before it, not at the next value.
    [
      'missing comma between records',
      '[\n  {"id": 1}\n  {"id": 2}\n]\n',
      ':2:12: malformed JSON: a comma is missing here, after the value before it',
    ],
    ['unclosed array', '[1, 2', ':1:6: malformed JSON: close bracket expected'],
    ['empty file', '', ':1:1: malformed JSON: value expected'],
    ['two values', '{"a": 1} {"b": 2}', ':1:10: malformed JSON: end of file expected'],
    ['raw tab in a string', '{"a": "\t"}', ':1:7: malformed JSON: invalid character'],
    ['leading zero', '{"a": 01}', ':1:8: malformed JSON: a comma is missing here, after the value before it'],
    ['a comment', '// note\n{}', ':1:1: malformed JSON: invalid comment token'],
    [
      'CRLF line ends',
      '{\r\n  "a": 1\r\n  "b": 2\r\n}',
      ':2:9: malformed JSON: a comma is missing here, after the value before it',
    ],
    ['single quotes', "{'a': 1}", ':1:2: malformed JSON: invalid symbol'],
  ])('%s', async (_label, text, message) => {
    await files({ 'event/bad.json': text });
    expect(await errorLines()).toEqual([`data/event/bad.json${message}`]);
    expect((await loadLists(dir)).records).toEqual([]);
  });

  it('counts the column after a BOM from the first character of the text', async () => {
    await files({ 'event/bom.json': '\ufeff{"a": 1,}' });
    expect(await errorLines()).toEqual(['data/event/bom.json:1:9: malformed JSON: property name expected']);
  });

  it('marks the resources whose files could not all be parsed', async () => {
    await files({ 'event/bad.json': '[', 'event/good.json': '{"id": 1}', 'company/c.json': '[]' });
    expect((await loadLists(dir)).incomplete).toEqual(new Set(['event']));
  });

  it('reports every malformed file and still reads the good ones', async () => {
    await files({ 'event/a.json': '[', 'event/b.json': '{"id": 1}', 'company/c.json': '{' });
    const { records } = await loadLists(dir);
    expect(records.map((r) => r.value)).toEqual([{ id: 1 }]);
    expect(await errorLines()).toEqual([
      'data/company/c.json:1:2: malformed JSON: close brace expected',
      'data/event/a.json:1:2: malformed JSON: close bracket expected',
    ]);
  });
});

describe('load: top-level values that are not records', () => {
  it.each([['5'], ['"text"'], ['null'], ['true']])('%s', async (text) => {
    await files({ 'company/c.json': text });
    expect(await errorLines()).toEqual(['data/company/c.json: expected a record object or an array of records']);
    expect((await loadLists(dir)).records).toEqual([]);
  });
});

describe('load: array elements that are not records', () => {
  // Before, they reached validate(), whose rule across fairs read `.events` of null (a TypeError).
  it.each<[string, string]>([
    ['null', 'null'],
    ['5', '5'],
    ['"text"', '"text"'],
    ['[{"id": 2}]', 'an array'],
    [`"${'x'.repeat(60)}"`, `"${'x'.repeat(36)}...`],
  ])('%s', async (element, shown) => {
    await files({ 'virtualfair/f.json': `[{"id": 1}, ${element}]` });
    expect(await errorLines()).toEqual([`data/virtualfair/f.json#/1: expected a record object, got ${shown}`]);
    const { records, incomplete } = await loadLists(dir);
    expect(records.map((r) => [r.index, r.value])).toEqual([[0, { id: 1 }]]);
    expect(incomplete).toEqual(new Set(['virtualfair']));
  });
});

describe('load: files outside the four resource folders', () => {
  it.each<[string, string]>([
    ['a JSON file at the top', 'events.json'],
    ['a JSON file in an unknown folder', 'category/wood.json'],
    ['a folder named like a resource but plural', 'events/e.json'],
    ['a text file in a resource folder', 'event/notes.txt'],
    ['an upper-case extension', 'event/E.JSON'],
    ['a .jsonc file', 'event/e.jsonc'],
    ['a file without an extension', 'company/README'],
  ])('%s (%s)', async (_label, name) => {
    await files({ [name]: '{}', 'event/ok.json': '{"id": 1}' });
    expect(await errorLines()).toEqual([`data/${name}: ${STRAY}`]);
    expect((await loadLists(dir)).records.map((r) => r.value)).toEqual([{ id: 1 }]);
  });

  it('reports a broken symbolic link, which cannot be read, and reads a folder named like a file as a folder', async () => {
    await files({ 'event/ok.json': '{"id": 1}', 'company/folder.json/c.json': '{"id": 2}' });
    await symlink(path.join(dir, 'nowhere.json'), path.join(dir, 'event/broken.json'));
    expect(await errorLines()).toEqual(['data/event/broken.json: expected a readable file, got ENOENT']);
    const { records, incomplete } = await loadLists(dir);
    expect(records.map((r) => [path.relative(dir, r.file), r.value])).toEqual([
      ['company/folder.json/c.json', { id: 2 }],
      ['event/ok.json', { id: 1 }],
    ]);
    // The events are then incomplete: a fair naming an event of that file is not reported twice.
    expect(incomplete).toEqual(new Set(['event']));
  });

  it('reports every stray file', async () => {
    await files({ 'a.txt': '', 'b/c.json': '{}', 'virtualfair/d.yaml': '' });
    expect(await errorLines()).toEqual([
      `data/a.txt: ${STRAY}`,
      `data/b/c.json: ${STRAY}`,
      `data/virtualfair/d.yaml: ${STRAY}`,
    ]);
  });
});

/** The warning lines, with the temp folder written as `data`. */
async function warningLines(): Promise<string[]> {
  const { warnings } = await loadLists(dir);
  return warnings.map(formatDataError).map((line) => line.replaceAll(dir, 'data'));
}

describe('load: source bytes read strictly, one line naming the file and the place', () => {
  it.each<[string, string | Buffer, string]>([
    [
      'invalid UTF-8',
      Buffer.concat([Buffer.from('{"name": "K'), Buffer.from([0xf6]), Buffer.from('ln"}')]),
      'data/event/e.json: invalid UTF-8 at line 1, column 12 (byte 11, 0xF6): save the file as UTF-8',
    ],
    [
      'UTF-16',
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"id": 1}', 'utf16le')]),
      'data/event/e.json: the file is encoded as UTF-16 (little-endian, with a byte order mark): save it as UTF-8',
    ],
    [
      'a duplicate key',
      '[{"id": 1, "id": 2}]',
      'data/event/e.json#/0/id: duplicate key "id" at line 1, column 12, first at line 1, column 3: JSON keeps only one of them; remove the other',
    ],
    [
      'a number outside the range of a double',
      '{"id": 1e400}',
      'data/event/e.json#/id: the number 1e400 at line 1, column 8 is outside the range of a double (about ±1.8e308): write a smaller number',
    ],
    [
      'an integer beyond 2^53',
      '{"id": 9007199254740993}',
      'data/event/e.json#/id: the integer 9007199254740993 at line 1, column 8 is beyond 2^53 - 1 and would be rounded: write an integer between -9007199254740991 and 9007199254740991',
    ],
    [
      'nesting 100,000 deep',
      `{"id": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
      'data/event/e.json:1:71: nesting deeper than 64 levels: the records are only a few levels deep; remove the extra brackets',
    ],
  ])('%s', async (_label, content, line) => {
    await files({ 'event/e.json': content, 'event/ok.json': '{"id": 3}' });
    expect(await errorLines()).toEqual([line]);
    const { records, incomplete } = await loadLists(dir);
    expect(records.map((r) => r.value)).toEqual([{ id: 3 }]);
    expect(incomplete).toEqual(new Set(['event']));
  });
});

describe('load: the file system read strictly', () => {
  it('follows a symbolic link that stays inside the data folder, to a file or a folder', async () => {
    await files({ 'shared/one.json': '{"id": 1}', 'shared/more/two.json': '{"id": 2}' });
    await mkdir(path.join(dir, 'event'));
    await symlink('../shared/one.json', path.join(dir, 'event/one.json'));
    await symlink(path.join(dir, 'shared/more'), path.join(dir, 'event/more'));
    const { records } = await loadLists(dir);
    expect(records.filter((r) => r.resource === 'event').map((r) => [path.relative(dir, r.file), r.value])).toEqual([
      ['event/more/two.json', { id: 2 }],
      ['event/one.json', { id: 1 }],
    ]);
  });

  it('refuses a symbolic link that leaves the data folder, to a file or a folder, without reading it', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'load-outside-'));
    try {
      await writeFile(path.join(outside, 'secret.json'), '{"id": 666}');
      await files({ 'event/ok.json': '{"id": 1}' });
      await symlink(path.join(outside, 'secret.json'), path.join(dir, 'event/secret.json'));
      await symlink(outside, path.join(dir, 'company'));
      const { records, incomplete } = await loadLists(dir);
      expect(records.map((r) => r.value)).toEqual([{ id: 1 }]);
      expect(incomplete).toEqual(new Set(['event']));
      const lines = (await errorLines()).map((line) => line.replaceAll(outside, 'OUTSIDE'));
      expect(lines).toEqual([
        'data/company: a symbolic link to OUTSIDE, outside the data folder: copy the file into the data folder instead',
        'data/event/secret.json: a symbolic link to OUTSIDE/secret.json, outside the data folder: copy the file into the data folder instead',
      ]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('reports a symbolic link loop once, at the link, not as thousands of duplicate ids', async () => {
    await files({ 'event/e.json': '{"id": 1}' });
    await symlink('..', path.join(dir, 'event/up'));
    await symlink('.', path.join(dir, 'event/here'));
    await symlink('b.json', path.join(dir, 'event/a.json'));
    await symlink('a.json', path.join(dir, 'event/b.json'));
    expect(await errorLines()).toEqual([
      'data/event/a.json: a symbolic link loop (the link leads back to itself): remove or fix the link',
      'data/event/b.json: a symbolic link loop (the link leads back to itself): remove or fix the link',
      'data/event/here: a symbolic link loop (the link leads to a folder above it): remove the link',
      'data/event/up: a symbolic link loop (the link leads to a folder above it): remove the link',
    ]);
    expect((await loadLists(dir)).records.map((r) => r.value)).toEqual([{ id: 1 }]);
  });

  it('refuses a FIFO named *.json without opening it (opening one would wait forever)', async () => {
    await files({ 'event/ok.json': '{"id": 1}' });
    execFileSync('/usr/bin/mkfifo', [path.join(dir, 'event/pipe.json')]);
    await symlink('pipe.json', path.join(dir, 'event/to-pipe.json'));
    expect(await errorLines()).toEqual([
      'data/event/pipe.json: a FIFO (named pipe) is not source data: remove it',
      'data/event/to-pipe.json: a symbolic link to a FIFO (named pipe), which is not source data: remove it',
    ]);
    expect((await loadLists(dir)).incomplete).toEqual(new Set(['event']));
  }, 5000);

  it('refuses a socket and a device file', async () => {
    await files({ 'event/ok.json': '{"id": 1}' });
    const { createServer } = await import('node:net');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path.join(dir, 'event/socket.json'), resolve));
    try {
      await symlink('/dev/null', path.join(dir, 'event/null.json'));
      const lines = await errorLines();
      // /dev/null is outside the data folder: the link is refused before its kind matters.
      expect(lines).toEqual([
        'data/event/null.json: a symbolic link to /dev/null, outside the data folder: copy the file into the data folder instead',
        'data/event/socket.json: a socket is not source data: remove it',
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('skips the files the system or an editor makes, with one warning each, and reads the rest', async () => {
    const junk = [
      '.DS_Store',
      'event/.DS_Store',
      'event/Thumbs.db',
      'event/e.json~',
      'event/.e.json.swp',
      'event/.e.json.swo',
      'event/#e.json#',
      'company/._c.json',
    ];
    await files({ 'event/e.json': '{"id": 1}', ...Object.fromEntries(junk.map((name) => [name, 'x'])) });
    expect(await errorLines()).toEqual([]);
    expect((await loadLists(dir)).records.map((r) => r.value)).toEqual([{ id: 1 }]);
    const reason = 'skipped: a file the system or an editor makes, not source data';
    expect(await warningLines()).toEqual(
      [
        '.DS_Store',
        'company/._c.json',
        'event/#e.json#',
        'event/.DS_Store',
        'event/.e.json.swo',
        'event/.e.json.swp',
        'event/Thumbs.db',
        'event/e.json~',
      ].map((name) => `data/${name}: ${reason}`),
    );
  });

  it('keeps every other stray file an error, hidden or not', async () => {
    await files({ 'event/.hidden': '{}', 'event/e.json.bak': '{}', 'event/e.swp': '{}' });
    expect(await errorLines()).toEqual([
      `data/event/.hidden: ${STRAY}`,
      `data/event/e.json.bak: ${STRAY}`,
      `data/event/e.swp: ${STRAY}`,
    ]);
  });

  it('says which folder was probably meant when --data points one level too high', async () => {
    await files({ 'data/event/e.json': '{"id": 1}', 'data/company/c.json': '[]', 'README.md': '' });
    expect(await errorLines()).toEqual([
      'data: expected the folders company/, virtualfair/, event/, virtualbooth-texture/ here, but they are in data/data: use --data data/data',
    ]);
  });
});
