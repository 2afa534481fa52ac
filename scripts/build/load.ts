// Stage 1: find the source files with fast-glob and parse them. A file holds one record or an
// array of records; a syntax error is reported with its line and column.

import { readFile as readFileWithCallback } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import fg from 'fast-glob';
import { type ParseError, parse as parseTolerant, printParseErrorCode } from 'jsonc-parser';
import { compareStrings } from '../contract/ordering.ts';
import { RESOURCES, type ResourceName } from '../contract/routes.ts';
import type { DataError } from './errors.ts';
import { mapLimited } from './map-limited.ts';

export interface SourceRecord {
  resource: ResourceName;
  /** The file as the user names it: the data folder as given, joined with the file's path. */
  file: string;
  /** Position in the file's array; null when the file holds a single record. */
  index: number | null;
  value: unknown;
}

export interface Loaded {
  /** Every record of every file that could be parsed, in source order. */
  records: SourceRecord[];
  errors: DataError[];
  /** Resources with a file that could not be read or parsed: their records are incomplete. */
  incomplete: Set<ResourceName>;
  files: number;
  bytes: number;
}

const READ_CONCURRENCY = 64;
// The callback API, promisified, for the reason write.ts gives: no FileHandle for each file.
const readFile = promisify(readFileWithCallback);

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `line ${line}, column ${offset - before.lastIndexOf('\n')}`;
}

/** Where JSON.parse gave up; V8's own message has no position, so a tolerant parser finds it. */
function describeSyntaxError(text: string, fallback: string): string {
  const problems: ParseError[] = [];
  parseTolerant(text, problems, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = problems[0];
  if (!first) return `malformed JSON (${fallback})`;
  // `CommaExpected` → `comma expected`
  const reason = printParseErrorCode(first.error)
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
  return `malformed JSON at ${lineAndColumn(text, first.offset)}: ${reason}`;
}

function parseFile(resource: ResourceName, file: string, text: string, errors: DataError[]): SourceRecord[] {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    errors.push({ file, pointer: '', message: describeSyntaxError(source, (error as Error).message) });
    return [];
  }
  if (Array.isArray(value)) return value.map((item, index) => ({ resource, file, index, value: item }));
  if (value !== null && typeof value === 'object') return [{ resource, file, index: null, value }];
  errors.push({ file, pointer: '', message: 'expected a record object or an array of records' });
  return [];
}

/** A source file and the resource its folder names. */
interface Source {
  resource: ResourceName;
  file: string;
}

/**
 * Lists `data/<resource>/**\/*.json` in path order (so a catalogue split over many files has a
 * stable order). Any other file under the data folder is an error, since it would be ignored.
 */
async function findSources(dataDir: string): Promise<{ sources: Source[]; errors: DataError[] }> {
  const errors: DataError[] = [];
  const folder = await stat(dataDir).catch(() => null);
  if (!folder?.isDirectory()) {
    // Building nothing would replace the API with empty lists: a mistyped --data must fail.
    errors.push({ file: dataDir, pointer: '', message: 'expected a folder holding the source data' });
    return { sources: [], errors };
  }
  // `dot: true`, so that a hidden stray file is reported rather than silently skipped. Everything
  // but folders, so that a broken symbolic link is read (and reported), not left out.
  const found = await fg('**/*', { cwd: dataDir, onlyFiles: false, markDirectories: true, dot: true });
  const entries = found.filter((entry) => !entry.endsWith('/')).sort(compareStrings);
  const known = new Set<string>(RESOURCES.map((resource) => resource.name));
  const sources: Source[] = [];
  for (const entry of entries) {
    const file = path.join(dataDir, entry);
    const topFolder = entry.split('/')[0] ?? '';
    if (entry.endsWith('.json') && entry.includes('/') && known.has(topFolder)) {
      sources.push({ resource: topFolder as ResourceName, file });
    } else {
      const folders = RESOURCES.map((resource) => `${resource.name}/`).join(', ');
      errors.push({ file, pointer: '', message: `expected only .json files in the folders ${folders}` });
    }
  }
  return { sources, errors };
}

/** Reads and parses the files, keeping their order. */
async function readSources(sources: readonly Source[]): Promise<Loaded> {
  const errors: DataError[] = [];
  let bytes = 0;
  const incomplete = new Set<ResourceName>();
  const perFile = await mapLimited(sources, READ_CONCURRENCY, async ({ resource, file }) => {
    let data: Buffer;
    try {
      data = await readFile(file);
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException;
      errors.push({ file, pointer: '', message: `expected a readable file, got ${code ?? message}` });
      incomplete.add(resource);
      return [];
    }
    bytes += data.length;
    const errorsBefore = errors.length;
    const records = parseFile(resource, file, data.toString('utf8'), errors);
    if (errors.length > errorsBefore) incomplete.add(resource);
    return records;
  });
  return { records: perFile.flat(), errors, incomplete, files: sources.length, bytes };
}

/** Stage 1: every source file of the data folder, found and parsed. */
export async function load(dataDir: string): Promise<Loaded> {
  const found = await findSources(dataDir);
  const loaded = await readSources(found.sources);
  return { ...loaded, errors: [...found.errors, ...loaded.errors] };
}
