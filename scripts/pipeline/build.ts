// The pipeline in order: load → validate → render → write. Used by the CLI, the benchmark and
// the tests alike. Nothing is written unless every check passed.

import { readFile } from 'node:fs/promises';
import { compareStrings } from '../api/ordering.ts';
import { DataErrors, type DataError } from './errors.ts';
import { load } from './load.ts';
import { render } from './render.ts';
import type { Route } from '../api/routes.ts';
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

export interface BuildResult {
  routes: Route[];
  /** Output path → text of every file the build wrote (or, with `check`, would write). */
  files: Map<string, string>;
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

  const { routes, files: rendering } = render(catalogue, { baseUrl: options.baseUrl, pageSize: options.pageSize, headersFile: headersText });
  const hosts = HOSTS.filter((host) => !options.targets || options.targets.includes(host.name));
  const hostFiles = hosts.map((host) => ({ host, files: host.files({ routes, headerRules: headers.rules }) }));
  const files = new Map<string, string>();
  let outputBytes = 0;
  function* kept() {
    for (const [file, text] of rendering) {
      files.set(file, text);
      outputBytes += Buffer.byteLength(text);
      yield [file, text] as const;
    }
  }
  if (options.check) for (const _ of kept());
  else await writeOutput(options.outDir, kept());
  // One stage: each file is written while the next one is rendered.
  step(`${options.check ? 'render' : 'render+write'}: ${routes.length} routes, ${files.size} files, ${outputBytes} bytes${options.check ? '' : ` to ${options.outDir}/`}`);
  if (!options.check) {
    for (const { host, files: hostFileMap } of hostFiles) await writeOutput(path.join(options.hostsDir, host.name), hostFileMap);
    if (hosts.length) step(`hosts: ${hosts.map((h) => `${options.hostsDir}/${h.name}/`).join(', ')}`);
  }
  return { routes, files, records: loaded.records.length, sourceFiles: loaded.files, sourceBytes: loaded.bytes, outputBytes };
}
