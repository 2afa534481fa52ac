// The build in order: load → validate → render. Pure of any output folder: what it returns is
// written by the caller (scripts/cli/run-build.ts), together with the deploy targets' files.

import { readFile } from 'node:fs/promises';
import type { HeaderRule } from '../contract/headers.ts';
import { compareStrings } from '../contract/ordering.ts';
import type { Route } from '../contract/routes.ts';
import { DataErrors, type DataError } from './errors.ts';
import { load } from './load.ts';
import { render } from './render.ts';
import { validate, validateHeadersFile } from './validate.ts';

export interface SiteOptions {
  dataDir: string;
  /** The project's `_headers`, checked and copied into the output. */
  headersPath: string;
  baseUrl: string;
  pageSize: number;
  /** Receives one line per finished stage, for progress on long builds. */
  log?: (line: string) => void;
}

/** What the build makes of the source data, before anything is written. */
export interface Site {
  routes: Route[];
  headerRules: HeaderRule[];
  /** Output path → text of every file of the output folder. */
  files: Map<string, string>;
  records: number;
  sourceFiles: number;
  sourceBytes: number;
}

/** File, then record: the order a reader fixes them in. The sort is stable within a record. */
function byLocation(a: DataError, b: DataError): number {
  const record = (error: DataError) => Number(/^\/(\d+)/.exec(error.pointer)?.[1] ?? -1);
  return compareStrings(a.file, b.file) || record(a) - record(b);
}

/** Times the stages: each call logs the line with the time since the previous call. */
export function stageLogger(log: (line: string) => void): (line: string) => void {
  let started = performance.now();
  return (line) => {
    const now = performance.now();
    log(`${line} (${Math.round(now - started)} ms)`);
    started = now;
  };
}

/**
 * Loads and validates. A function of its own so that the parsed input is garbage once it
 * returns: render and write then run with half as many objects on the heap.
 */
async function readCatalogue(options: SiteOptions, step: (line: string) => void) {
  const headersText = await readFile(options.headersPath, 'utf8');
  const headers = validateHeadersFile(options.headersPath, headersText);
  const loaded = await load(options.dataDir);
  step(`load: ${loaded.records.length} records from ${loaded.files} files, ${loaded.bytes} bytes`);

  const { catalogue, errors } = validate(loaded.records, !loaded.incomplete.has('event'));
  const problems = [...headers.errors, ...loaded.errors, ...errors];
  if (problems.length > 0) throw new DataErrors(problems.sort(byLocation));
  step('validate: no problems');
  return { catalogue, headersText, headerRules: headers.rules, records: loaded.records.length, sourceFiles: loaded.files, sourceBytes: loaded.bytes };
}

/** Loads, validates and renders; throws DataErrors (holding every problem found) when the input is bad. */
export async function buildSite(options: SiteOptions): Promise<Site> {
  const step = stageLogger(options.log ?? (() => {}));
  const { catalogue, headersText, ...source } = await readCatalogue(options, step);
  const { routes, files } = render(catalogue, headersText, { baseUrl: options.baseUrl, pageSize: options.pageSize });
  step(`render: ${routes.length} routes, ${files.size} files`);
  return { routes, files, ...source };
}
