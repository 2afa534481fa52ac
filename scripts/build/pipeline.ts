// The build in order: load → validate → render. Pure of any output folder: what it returns is
// written by the caller (scripts/cli/run-build.ts), together with the deploy targets' files.

import { readFile } from 'node:fs/promises';
import type { HeaderRule } from '../contract/headers.ts';
import { compareStrings } from '../contract/ordering.ts';
import type { Route } from '../contract/routes.ts';
import { DataErrors, type DataError } from './errors.ts';
import { findSources, readSources } from './load.ts';
import { renderLists, renderShared, routesOf } from './render.ts';
import { checkCatalogue, checkSchemas, validateHeadersFile } from './validate.ts';

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
  /** Output path → text (or UTF-8 bytes) of every file of the output folder. */
  files: Map<string, string | Uint8Array>;
  records: number;
  sourceFiles: number;
  sourceBytes: number;
}

/** File, then record: the order a reader fixes them in. The sort is stable within a record. */
function byLocation(a: DataError, b: DataError): number {
  const record = (e: DataError) => Number(/^\/(\d+)/.exec(e.pointer)?.[1] ?? -1);
  return compareStrings(a.file, b.file) || record(a) - record(b);
}

/** Loads, validates and renders; throws DataErrors (holding every problem found) when the input is bad. */
export async function buildSite(options: SiteOptions): Promise<Site> {
  const log = options.log ?? (() => {});
  let started = performance.now();
  const step = (line: string) => {
    const now = performance.now();
    log(`${line} (${Math.round(now - started)} ms)`);
    started = now;
  };
  const settings = { baseUrl: options.baseUrl, pageSize: options.pageSize };

  const headersText = await readFile(options.headersPath, 'utf8');
  const headers = validateHeadersFile(options.headersPath, headersText);
  const found = await findSources(options.dataDir);
  const loaded = await readSources(found.sources, checkSchemas);
  step(`load: ${loaded.records} records from ${loaded.files} files, ${loaded.bytes} bytes`);

  const { catalogue, errors } = checkCatalogue(loaded.parsed, !loaded.incomplete.has('event'));
  const problems = [...headers.errors, ...found.errors, ...loaded.errors, ...errors];
  if (problems.length > 0) throw new DataErrors(problems.sort(byLocation));
  step('validate: no problems');

  const routes = routesOf(catalogue, settings);
  const files = new Map<string, string | Uint8Array>([...renderLists(catalogue, settings, routes), ...renderShared(headersText)]);
  step(`render: ${routes.length} routes, ${files.size} files`);
  return { routes, headerRules: headers.rules, files, records: loaded.records, sourceFiles: loaded.files, sourceBytes: loaded.bytes };
}
