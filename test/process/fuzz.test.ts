// A fuzz test of the build with fast-check: the good fixture's source files, mutated in their
// bytes (a byte changed, bytes inserted or deleted, the file cut short, re-encoded) and in their
// JSON structure (a value replaced, a field removed or added, a duplicate key, a number out of
// range, deep nesting, keys reordered and re-indented). For every case the build either
// succeeds, with output whose values equal the input's, or fails with DataErrors holding at least
// one line naming a file of the data folder, leaving the previous output byte for byte as it was.
// Never another exception (a stack trace), never a hang: each case is bounded in time.
//
// `npm test` runs a bounded number of cases in-process plus a few through the real CLI;
// `npm run fuzz` runs many more (FUZZ_RUNS, default 2000 there; FUZZ_SEED to replay a failure).

import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { visit } from 'jsonc-parser';
import { afterAll, describe, expect, it } from 'vitest';
import { type BuildOptions, build } from '../../scripts/builder/build.ts';
import { DataErrors, formatDataError } from '../../scripts/builder/pipeline/errors.ts';
import { DEFAULTS } from '../../scripts/cli/settings.ts';
import { API, SAMPLE_DIR, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import { cleanEnv, commandLine, outputArgs } from '../unit/helpers/cli.ts';
import { readTree, tempDirs } from '../unit/helpers/tree.ts';

const GOOD = 'test/fixtures/good/data';
const RUNS = Number(process.env.FUZZ_RUNS ?? 120);
const CLI_RUNS = Number(process.env.FUZZ_CLI_RUNS ?? 3);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
/** A case taking longer than this is a hang. */
const CASE_TIMEOUT_MS = 10_000;
const tempDir = tempDirs('fuzz-test-');

const LIST_NAMES = ['company', 'event', 'virtualfair', 'virtualbooth-texture'] as const;
const SOURCE_FILES = [
  'company/companies.json',
  'event/events.json',
  'virtualbooth-texture/cork.json',
  'virtualbooth-texture/oak.json',
  'virtualfair/fairs.json',
];
const GOOD_FILES = new Map<string, Buffer>(SOURCE_FILES.map((file) => [file, readFileSync(path.join(GOOD, file))]));

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

// ---------------------------------------------------------------------------------------------
// Mutations: each takes the file's bytes and returns new bytes.

type Mutation = { label: string; apply: (bytes: Buffer) => Buffer };

const anyByte = fc.integer({ min: 0, max: 255 });
const at = fc.double({ min: 0, max: 1, noNaN: true });
const position = (bytes: Buffer, where: number) => Math.min(bytes.length, Math.floor(where * bytes.length));

const byteMutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.tuple(at, anyByte).map(([where, byte]) => ({
    label: `byte at ${where.toFixed(3)} set to 0x${byte.toString(16)}`,
    apply: (bytes: Buffer) => {
      const copy = Buffer.from(bytes);
      const i = Math.min(copy.length - 1, position(copy, where));
      if (i >= 0) copy[i] = byte;
      return copy;
    },
  })),
  fc.tuple(at, fc.uint8Array({ minLength: 1, maxLength: 6 })).map(([where, inserted]) => ({
    label: `bytes [${[...inserted]}] inserted at ${where.toFixed(3)}`,
    apply: (bytes: Buffer) => {
      const i = position(bytes, where);
      return Buffer.concat([bytes.subarray(0, i), inserted, bytes.subarray(i)]);
    },
  })),
  fc.tuple(at, fc.integer({ min: 1, max: 40 })).map(([where, length]) => ({
    label: `${length} bytes deleted at ${where.toFixed(3)}`,
    apply: (bytes: Buffer) => {
      const i = position(bytes, where);
      return Buffer.concat([bytes.subarray(0, i), bytes.subarray(i + length)]);
    },
  })),
  at.map((where) => ({
    label: `cut at ${where.toFixed(3)}`,
    apply: (bytes: Buffer) => bytes.subarray(0, position(bytes, where)),
  })),
  fc.constantFrom<Mutation>(
    { label: 'a UTF-8 BOM added', apply: (bytes) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]) },
    { label: 're-encoded as UTF-16 LE', apply: (bytes) => Buffer.from(bytes.toString('utf8'), 'utf16le') },
    {
      label: 're-encoded as UTF-16 BE with a BOM',
      apply: (bytes) =>
        Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(bytes.toString('utf8'), 'utf16le').swap16()]),
    },
    { label: 're-encoded as Latin-1', apply: (bytes) => Buffer.from(bytes.toString('utf8'), 'latin1') },
  ),
);

/** A path to a node of the value: keys and indexes picked by fractions, so any shape works. */
function pick(value: Json, choices: number[]): { parent: Json[] | Record<string, Json>; key: string | number } | null {
  let node = value;
  let found: { parent: Json[] | Record<string, Json>; key: string | number } | null = null;
  for (const choice of choices) {
    if (Array.isArray(node) && node.length > 0) {
      const index = Math.floor(choice * node.length) % node.length;
      found = { parent: node, key: index };
      node = node[index] as Json;
    } else if (node !== null && typeof node === 'object' && !Array.isArray(node) && Object.keys(node).length > 0) {
      const keys = Object.keys(node);
      const key = keys[Math.floor(choice * keys.length) % keys.length] as string;
      found = { parent: node, key };
      node = node[key] as Json;
    } else break;
  }
  return found;
}

const choices = fc.array(at, { minLength: 1, maxLength: 4 });
const anyString = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }));
const anyValue: fc.Arbitrary<Json> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
  anyString,
  fc.integer(),
  fc.constantFrom<Json>(0, -1, 2 ** 53 - 1, 2 ** 53, 1e308, 5e-324, '', '2024-02-29', '#ffffff', 'https://e.com/a.png'),
);

/** Rewrites the parsed file; the result is written with JSON.stringify (and an indentation). */
function structural(label: string, change: (value: Json) => void, indent: number): Mutation {
  return {
    label,
    apply: (bytes) => {
      let value: Json;
      try {
        value = JSON.parse(bytes.toString('utf8'));
      } catch {
        return bytes;
      }
      try {
        change(value);
        return Buffer.from(JSON.stringify(value, null, indent));
      } catch {
        // Too deep for this recursive rewrite (a file an earlier mutation wrapped in arrays).
        return bytes;
      }
    },
  };
}

/** Edits the text directly, for what JSON.stringify cannot write. */
function textual(label: string, change: (text: string) => string): Mutation {
  return { label, apply: (bytes) => Buffer.from(change(bytes.toString('utf8'))) };
}

const indent = fc.constantFrom(0, 1, 2, 4);

const jsonMutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.tuple(choices, anyValue, indent).map(([path, replacement, spaces]) =>
    structural(
      `value at ${path.map((c) => c.toFixed(2))} replaced by ${JSON.stringify(replacement)}`,
      (value) => {
        const found = pick(value, path);
        if (found) (found.parent as Record<string | number, Json>)[found.key] = replacement;
      },
      spaces,
    ),
  ),
  fc.tuple(choices, indent).map(([path, spaces]) =>
    structural(
      `node at ${path.map((c) => c.toFixed(2))} removed`,
      (value) => {
        const found = pick(value, path);
        if (!found) return;
        if (Array.isArray(found.parent)) found.parent.splice(found.key as number, 1);
        else delete found.parent[found.key];
      },
      spaces,
    ),
  ),
  fc.tuple(choices, anyString, anyValue, indent).map(([path, key, added, spaces]) =>
    structural(
      `field ${JSON.stringify(key)} added at ${path.map((c) => c.toFixed(2))}`,
      (value) => {
        const found = pick(value, path);
        const target = found ? (found.parent as Record<string | number, Json>)[found.key] : value;
        if (target !== null && typeof target === 'object' && !Array.isArray(target)) target[key] = added;
      },
      spaces,
    ),
  ),
  fc.tuple(fc.integer({ min: 0, max: 2 ** 31 }), indent).map(([seed, spaces]) =>
    structural(
      `keys reordered (seed ${seed})`,
      (value) => {
        const stack: Json[] = [value];
        let n = seed;
        while (stack.length > 0) {
          const node = stack.pop();
          if (Array.isArray(node)) stack.push(...node);
          else if (node !== null && typeof node === 'object') {
            const entries = Object.entries(node);
            for (const key of Object.keys(node)) delete node[key];
            for (let i = entries.length - 1; i > 0; i--) {
              n = (n * 1103515245 + 12345) % 2 ** 31;
              const j = n % (i + 1);
              [entries[i], entries[j]] = [entries[j] as [string, Json], entries[i] as [string, Json]];
            }
            for (const [key, child] of entries) {
              node[key] = child;
              stack.push(child);
            }
          }
        }
      },
      spaces,
    ),
  ),
  fc.tuple(at, fc.constantFrom('"id"', '"name"', '"slug"', '"x"')).map(([where, key]) =>
    textual(`duplicate key ${key} near ${where.toFixed(3)}`, (text) => {
      const braces = [...text.matchAll(/\{/g)].map((match) => match.index);
      const brace = braces[Math.floor(where * braces.length) % Math.max(1, braces.length)];
      return brace === undefined ? text : `${text.slice(0, brace + 1)}${key}: 1, ${key}: 2, ${text.slice(brace + 1)}`;
    }),
  ),
  fc
    .tuple(at, fc.constantFrom('1e400', '-1e999', '9007199254740993', '123456789012345678901234567890', '1e-400', '-0'))
    .map(([where, number]) =>
      textual(`number ${number} written near ${where.toFixed(3)}`, (text) => {
        const numbers = [...text.matchAll(/(?<=:\s*)-?\d+(\.\d+)?/g)];
        const match = numbers[Math.floor(where * numbers.length) % Math.max(1, numbers.length)];
        if (!match) return text;
        return `${text.slice(0, match.index)}${number}${text.slice(match.index + match[0].length)}`;
      }),
    ),
  fc
    .integer({ min: 1, max: 200_000 })
    .map((depth) => textual(`wrapped in ${depth} arrays`, (text) => `${'['.repeat(depth)}${text}${']'.repeat(depth)}`)),
);

const mutation = fc.oneof({ weight: 1, arbitrary: byteMutation }, { weight: 2, arbitrary: jsonMutation });

/** One case: a few mutations, each applied to one of the source files. */
const fuzzCase = fc.array(fc.tuple(fc.constantFrom(...SOURCE_FILES), mutation), { minLength: 1, maxLength: 3 });

function mutatedFiles(edits: [string, Mutation][]): Map<string, Buffer> {
  const files = new Map<string, Buffer>(GOOD_FILES);
  for (const [file, edit] of edits) files.set(file, edit.apply(files.get(file) as Buffer));
  return files;
}

const describeCase = (edits: [string, Mutation][]) => edits.map(([file, edit]) => `${file}: ${edit.label}`).join('; ');

// ---------------------------------------------------------------------------------------------
// The property

async function writeData(files: Map<string, Buffer>): Promise<string> {
  const data = path.join(await tempDir(), 'data');
  for (const [file, bytes] of files) {
    mkdirSync(path.dirname(path.join(data, file)), { recursive: true });
    writeFileSync(path.join(data, file), bytes);
  }
  return data;
}

const options = (dataDir: string, parent: string): BuildOptions => ({
  resources: API,
  dataDir,
  headersPath: SAMPLE_HEADERS,
  baseUrl: DEFAULTS.baseUrl,
  pageSize: 100,
  outDir: path.join(parent, 'public'),
  targetsDir: path.join(parent, 'targets'),
  targets: ['nginx'],
});

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * The records of the input, by resource, for a build that succeeded: so the input had one
 * meaning only (checked here on its own, with jsonc-parser's scanner): UTF-8, no duplicate key,
 * every number exactly what it says.
 */
function inputRecords(files: Map<string, Buffer>, label: string): Map<string, Record<string, Json>[]> {
  const byResource = new Map<string, Record<string, Json>[]>(LIST_NAMES.map((resource) => [resource, []]));
  for (const file of [...files.keys()].sort()) {
    const text = utf8.decode(files.get(file) as Buffer);
    const keys: Set<string>[] = [];
    const negativeZeros: number[] = [];
    visit(text, {
      onObjectBegin: () => void keys.push(new Set()),
      onObjectEnd: () => void keys.pop(),
      onObjectProperty: (key) => {
        const seen = keys[keys.length - 1] as Set<string>;
        expect(seen.has(key), `${label}: ${file} was built with a duplicate key ${key}`).toBe(false);
        seen.add(key);
      },
      onLiteralValue: (value, offset, length) => {
        if (typeof value !== 'number') return;
        const literal = text.slice(offset, offset + length);
        expect(Number.isFinite(value), `${label}: ${file} was built with ${literal}`).toBe(true);
        if (/^-?\d+$/.test(literal))
          expect(String(value), `${label}: ${file} was built with ${literal}`).toBe(literal.replace(/^-0$/, '0'));
        if (literal === '-0') negativeZeros.push(offset);
      },
    });
    // The integer -0 is 0 to Python, and so to the service (JSON.parse makes it -0): as the input means it.
    let meant = text;
    for (const offset of negativeZeros.reverse()) meant = `${meant.slice(0, offset)}0${meant.slice(offset + 2)}`;
    const value = JSON.parse(meant) as Json;
    const records = (Array.isArray(value) ? value : [value]) as Record<string, Json>[];
    byResource.get(file.split('/')[0] as string)?.push(...records);
  }
  return byResource;
}

/** Every record of the output's lists equals the input record with its id, field by field. */
function expectOutputEqualsInput(files: Map<string, Buffer>, out: string, label: string): void {
  for (const [resource, records] of inputRecords(files, label)) {
    const body = JSON.parse(readFileSync(path.join(out, resource, 'index.json'), 'utf8'));
    const list = (Array.isArray(body) ? body : body.results) as Record<string, Json>[];
    expect(list.length, `${label}: ${resource} count`).toBe(records.length);
    for (const item of list) {
      const input = records.find((record) => record.id === item.id);
      expect(input, `${label}: ${resource} ${JSON.stringify(item.id)} is in the input`).toBeDefined();
      for (const [key, value] of Object.entries(item)) {
        if (!(input && key in input)) continue;
        // A fair's events are ids in the input and the events themselves in the output.
        const actual =
          resource === 'virtualfair' && key === 'events' ? (value as { id: Json }[]).map((e) => e.id) : value;
        expect(actual, `${label}: ${resource} ${JSON.stringify(item.id)} ${key}`).toEqual(input[key]);
      }
    }
  }
}

function timeout(ms: number, label: string): Promise<never> {
  return new Promise((_resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`hang: the case took over ${ms} ms: ${label}`)), ms);
    timer.unref();
  });
}

/** A temp folder holding a good build in `public/` and `targets/`: the previous output. */
async function goodParent(): Promise<string> {
  const parent = await tempDir();
  await build(options(GOOD, parent));
  return parent;
}

/** How the cases ended, printed with FUZZ_VERBOSE=1 to see that both outcomes are reached. */
const outcomes = { built: 0, refused: 0 };

afterAll(() => {
  if (process.env.FUZZ_VERBOSE) console.log(`fuzz: ${outcomes.built} built, ${outcomes.refused} refused`);
});

describe('fuzz: mutated source files', () => {
  it(
    `in-process build, ${RUNS} cases: success with the input's values, or problem lines naming a file`,
    async () => {
      const parent = await goodParent();
      await fc.assert(
        fc.asyncProperty(fuzzCase, async (edits) => {
          const label = describeCase(edits);
          const files = mutatedFiles(edits);
          const data = await writeData(files);
          const before = await readTree(parent);
          try {
            const outcome = await Promise.race([
              build(options(data, parent)).then(
                () => null,
                (error: unknown) => error,
              ),
              timeout(CASE_TIMEOUT_MS, label),
            ]);
            if (outcome === null) {
              outcomes.built++;
              expectOutputEqualsInput(files, path.join(parent, 'public'), label);
              return;
            }
            outcomes.refused++;
            expect(outcome, `${label}: ${(outcome as Error)?.stack}`).toBeInstanceOf(DataErrors);
            const lines = (outcome as DataErrors).errors.map(formatDataError);
            expect(lines.length, label).toBeGreaterThan(0);
            expect(
              lines.some((line) => line.startsWith(`${data}/`)),
              `${label}: no line names a file: ${lines.join('\n')}`,
            ).toBe(true);
            const after = await readTree(parent);
            expect([...after.keys()], label).toEqual([...before.keys()]);
            for (const [file, bytes] of before) expect(after.get(file)?.equals(bytes), `${label}: ${file}`).toBe(true);
          } finally {
            rmSync(path.dirname(data), { recursive: true, force: true });
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    },
    60_000 + RUNS * CASE_TIMEOUT_MS,
  );

  it(`the CLI, ${CLI_RUNS} cases: exit 0, or 1 with a line naming a file; no stack trace, no hang`, async () => {
    const parent = await goodParent();
    const cases = fc.sample(fuzzCase, { numRuns: CLI_RUNS, seed: SEED ?? 14 });
    const env = cleanEnv();
    for (const edits of cases) {
      const label = describeCase(edits);
      const files = mutatedFiles(edits);
      const data = await writeData(files);
      const before = await readTree(parent);
      const args = ['--data', data, ...outputArgs(parent)];
      const result = spawnSync(
        process.execPath,
        commandLine('build', [...args, '--target', 'nginx', '--page-size', '100']),
        {
          cwd: SAMPLE_DIR,
          encoding: 'utf8',
          env,
          timeout: 30_000,
        },
      );
      expect(result.signal, `${label}: hang`).toBeNull();
      expect(result.stderr, `${label}: a stack trace`).not.toMatch(/^\s+at /m);
      if (result.status === 0) {
        expectOutputEqualsInput(files, path.join(parent, 'public'), label);
        continue;
      }
      expect(result.status, `${label}: ${result.stderr}`).toBe(1);
      expect(
        result.stderr.split('\n').some((line) => line.startsWith(`${data}/`)),
        `${label}: ${result.stderr}`,
      ).toBe(true);
      const after = await readTree(parent);
      expect([...after.keys()], label).toEqual([...before.keys()]);
      for (const [file, bytes] of before) expect(after.get(file)?.equals(bytes), `${label}: ${file}`).toBe(true);
    }
  }, 120_000);
});
