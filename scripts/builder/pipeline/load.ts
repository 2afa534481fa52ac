// Stage 1: find the source files (source-files.ts) and parse them strictly (strict-json.ts). A
// file holds one record or an array of records; every problem is reported with its place.

import { readFile as readFileWithCallback } from 'node:fs';
import { promisify } from 'node:util';
import { mapLimited } from '../../shared/map-limited.ts';
import type { DataError } from './errors.ts';
import { findSources, type Source } from './source-files.ts';
import { parseStrict } from './strict-json.ts';

export interface SourceRecord {
  resource: string;
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
  /** Files skipped with a warning: nobody means them as data (`.DS_Store`, editor backups). */
  warnings: DataError[];
  /** Resources with a file that could not be read or parsed: their records are incomplete. */
  incomplete: Set<string>;
  files: number;
  bytes: number;
}

const READ_CONCURRENCY = 64;
// The callback API, promisified, for the reason write.ts gives: no FileHandle for each file.
const readFile = promisify(readFileWithCallback);

function parseFile(resource: string, file: string, data: Buffer, errors: DataError[]): SourceRecord[] {
  const parsed = parseStrict(data);
  if (!parsed.ok) {
    for (const problem of parsed.problems) errors.push({ file, ...problem });
    return [];
  }
  const { value } = parsed;
  if (isRecord(value)) return [{ resource, file, index: null, value }];
  if (!Array.isArray(value)) {
    errors.push({ file, pointer: '', message: 'expected a record object or an array of records' });
    return [];
  }
  const records: SourceRecord[] = [];
  value.forEach((item: unknown, index) => {
    if (isRecord(item)) records.push({ resource, file, index, value: item });
    else errors.push({ file, pointer: `/${index}`, message: `expected a record object, got ${shortly(item)}` });
  });
  return records;
}

function isRecord(value: unknown): value is object {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A value that is not a record, shortly. */
function shortly(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** One source file, read and parsed. */
export interface LoadedFile {
  records: SourceRecord[];
  errors: DataError[];
  /** Its size; 0 when it could not be read. */
  bytes: number;
  /** It could not be read or parsed: its resource's records are incomplete. */
  failed: boolean;
}

/** Reads and parses one source file: the unit that the full load and the live preview share. */
export async function loadFile({ resource, file }: Source): Promise<LoadedFile> {
  const errors: DataError[] = [];
  let data: Buffer;
  try {
    data = await readFile(file);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    errors.push({ file, pointer: '', message: `expected a readable file, got ${code ?? message}` });
    return { records: [], errors, bytes: 0, failed: true };
  }
  const records = parseFile(resource, file, data, errors);
  return { records, errors, bytes: data.length, failed: errors.length > 0 };
}

/** Reads and parses the files, keeping their order. */
async function readSources(
  sources: readonly Source[],
): Promise<Pick<Loaded, 'records' | 'errors' | 'incomplete' | 'files' | 'bytes'>> {
  const perFile = await mapLimited(sources, READ_CONCURRENCY, loadFile);
  const incomplete = new Set<string>();
  perFile.forEach((loaded, index) => {
    if (loaded.failed) incomplete.add((sources[index] as Source).resource);
  });
  return {
    records: perFile.flatMap((loaded) => loaded.records),
    errors: perFile.flatMap((loaded) => loaded.errors),
    incomplete,
    files: sources.length,
    bytes: perFile.reduce((sum, loaded) => sum + loaded.bytes, 0),
  };
}

/** Stage 1: every source file of the data folder of the resources named `names`, found and parsed. */
export async function load(dataDir: string, names: readonly string[]): Promise<Loaded> {
  const found = await findSources(dataDir, names);
  const loaded = await readSources(found.sources);
  return {
    ...loaded,
    errors: [...found.errors, ...loaded.errors],
    warnings: found.warnings,
    incomplete: new Set([...found.incomplete, ...loaded.incomplete]),
  };
}
