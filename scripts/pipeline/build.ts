// The pipeline in order: load → validate → render → write. Used by the CLI, the benchmark and
// the tests alike. Nothing is written unless every check passed.

import { readFile } from 'node:fs/promises';
import { compareStrings } from '../api/ordering.ts';
import { DataErrors, type DataError } from './errors.ts';
import { load } from './load.ts';
import { render, type Rendered } from './render.ts';
import { validate, validateHeadersFile } from './validate.ts';
import { writeOutput } from './write.ts';
import path from 'node:path';
import { HOSTS } from '../hosts/index.ts';

export interface BuildOptions {
  dataDir: string;
  outDir: string;
  /** The project's `_headers`, copied into the output. */
  headersPath: string;
  baseUrl: string;
  pageSize: number;
  /** Where host configurations go, one folder per target (hosts/<name>/). */
  hostsDir: string;
  /** Host targets to write configuration for; all of them when absent. */
  targets?: readonly string[];
  /** Validate and render only; write nothing. */
  check?: boolean;
  /** Receives one line per finished stage, for progress on long builds. */
  log?: (line: string) => void;
}

export interface BuildResult extends Rendered {
  records: number;
  sourceFiles: number;
  sourceBytes: number;
  outputBytes: number;
}

/** File, then record: the order a reader fixes them in. The sort is stable within a record. */
function byLocation(a: DataError, b: DataError): number {
  const record = (e: DataError) => Number(/^\/(\d+)/.exec(e.pointer)?.[1] ?? -1);
  return compareStrings(a.file, b.file) || record(a) - record(b);
}

/** Runs the pipeline; throws DataErrors (holding every problem found) when the input is bad. */
export async function build(options: BuildOptions): Promise<BuildResult> {
  const log = options.log ?? (() => {});
  let started = performance.now();
  const step = (line: string) => {
    const now = performance.now();
    log(`${line} (${Math.round(now - started)} ms)`);
    started = now;
  };

  const headersText = await readFile(options.headersPath, 'utf8');
  const headers = validateHeadersFile(options.headersPath, headersText);
  const loaded = await load(options.dataDir);
  step(`load: ${loaded.records.length} records from ${loaded.files} files, ${loaded.bytes} bytes`);
  const { catalogue, errors } = validate(loaded.records, !loaded.incomplete.has('event'));
  const problems = [...headers.errors, ...loaded.errors, ...errors];
  if (problems.length > 0) throw new DataErrors(problems.sort(byLocation));
  step('validate: no problems');

  const rendered = render(catalogue, { baseUrl: options.baseUrl, pageSize: options.pageSize, headersFile: headersText });
  let outputBytes = 0;
  for (const text of rendered.files.values()) outputBytes += Buffer.byteLength(text);
  step(`render: ${rendered.routes.length} routes, ${rendered.files.size} files, ${outputBytes} bytes`);
  const hosts = HOSTS.filter((host) => !options.targets || options.targets.includes(host.name));
  const hostFiles = hosts.map((host) => ({ host, files: host.files({ routes: rendered.routes, headerRules: headers.rules }) }));
  if (!options.check) {
    await writeOutput(options.outDir, rendered.files);
    for (const { host, files } of hostFiles) await writeOutput(path.join(options.hostsDir, host.name), files);
    step(`write: ${options.outDir}/${hosts.length ? ` and ${hosts.map((h) => `${options.hostsDir}/${h.name}/`).join(', ')}` : ''}`);
  }
  return { ...rendered, records: loaded.records.length, sourceFiles: loaded.files, sourceBytes: loaded.bytes, outputBytes };
}
