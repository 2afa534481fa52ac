// The pipeline in order: load → validate → render → write. Used by the CLI, the benchmark and
// the tests alike. The output is replaced only when every check passed.

import { readFile } from 'node:fs/promises';
import { compareStrings } from '../api/ordering.ts';
import { DataErrors, type DataError } from './errors.ts';
import { findSources, readSources } from './load.ts';
import { renderLists, renderShared, routesOf } from './render.ts';
import type { ResourceName, Route } from '../api/routes.ts';
import { startWorker } from './start-worker.ts';
import { checkCatalogue, checkSchemas, validateHeadersFile } from './validate.ts';
import { writeOutput, type FileBody } from './write.ts';
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
  /** Output path → UTF-8 bytes of every file the build wrote (or, with `check`, would write). */
  files: Map<string, Uint8Array>;
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

/**
 * Resources loaded, validated and rendered on a worker thread, while this thread does the rest.
 * Only a resource no other one needs can go: fairs need events, and the texture count decides
 * the routes. Companies are also the largest list, most of a big catalogue's work.
 */
const WORKER_RESOURCES: ReadonlySet<ResourceName> = new Set(['company']);

/** Runs the pipeline; throws DataErrors (holding every problem found) when the input is bad. */
export async function build(options: BuildOptions): Promise<BuildResult> {
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
  const away = found.sources.filter((source) => WORKER_RESOURCES.has(source.resource));
  const worker = away.length > 0 ? startWorker({ sources: away, settings }) : null;
  try {
    const loaded = await readSources(
      found.sources.filter((source) => !WORKER_RESOURCES.has(source.resource)),
      checkSchemas,
    );
    // Stage lines report both threads, so each is logged once the slower thread has got there;
    // this thread does not wait for that.
    const loadLine = (worker?.loaded ?? Promise.resolve({ records: 0, files: 0, bytes: 0 })).then((other) => {
      const [records, files, bytes] = [loaded.records + other.records, loaded.files + other.files, loaded.bytes + other.bytes];
      step(`load: ${records} records from ${files} files, ${bytes} bytes`);
      return { records, files, bytes };
    });
    const { catalogue, errors } = checkCatalogue(loaded.parsed, !loaded.incomplete.has('event'));
    const problems = [...headers.errors, ...found.errors, ...loaded.errors, ...errors];
    // With problems here, the worker's are awaited too: every problem is reported in one run.
    if (problems.length > 0) throw new DataErrors([...problems, ...((await worker?.checked) ?? [])].sort(byLocation));
    const checked = Promise.all([loadLine, worker?.checked ?? []]).then(([, others]) => {
      if (others.length > 0) throw new DataErrors([...others].sort(byLocation));
      step('validate: no problems');
    });
    checked.catch(() => {});

    const routes = routesOf(catalogue, settings);
    const hosts = HOSTS.filter((host) => !options.targets || options.targets.includes(host.name));
    // Started before the write, so esbuild bundles (in its own process) while this thread writes.
    const hostFiles = Promise.all(hosts.map(async (host) => ({ host, files: await host.files({ routes, headerRules: headers.rules }) })));
    // A failed write is the error to report; a bundling error then is only noise.
    hostFiles.catch(() => {});
    const files = new Map<string, Uint8Array>();
    let outputBytes = 0;
    const keep = ([file, body]: readonly [string, FileBody]) => {
      // The bytes the write needs anyway, encoded once: they also give the size. Kept as bytes
      // (outside V8's heap), the rendered text is garbage at once instead of living to the end.
      const bytes = typeof body === 'string' ? Buffer.from(body) : body;
      files.set(file, bytes);
      outputBytes += bytes.length;
      return [file, bytes] as const;
    };
    // This thread's files, with the worker's put in as soon as they arrive, so that the large
    // company list is written while this thread still renders. The worker's problems stop the
    // writer before the output is replaced, so a bad company file leaves the old output.
    async function* kept() {
      let arrived: Array<[string, Uint8Array]> | undefined;
      const theirs = checked.then(() => worker?.rendered ?? []).then((files) => (arrived = files));
      theirs.catch(() => {});
      let taken = false;
      const ours = function* () {
        // Without company files no worker started: the (empty) company list is rendered here.
        yield* renderLists(catalogue, settings, routes.filter((route) => !worker || !WORKER_RESOURCES.has(route.resource)));
        yield* renderShared(routes, headersText);
      };
      for (const entry of ours()) {
        yield keep(entry);
        if (arrived && !taken) {
          taken = true;
          yield* arrived.map(keep);
        }
      }
      if (!taken) yield* (await theirs).map(keep);
    }
    if (options.check) for await (const _ of kept());
    else await writeOutput(options.outDir, kept());
    // One stage: each file is written while the next one is rendered.
    step(`${options.check ? 'render' : 'render+write'}: ${routes.length} routes, ${files.size} files, ${outputBytes} bytes${options.check ? '' : ` to ${options.outDir}/`}`);
    const hostOutputs = await hostFiles;
    if (!options.check) {
      for (const { host, files: hostFileMap } of hostOutputs) await writeOutput(path.join(options.hostsDir, host.name), hostFileMap);
      if (hosts.length) step(`hosts: ${hosts.map((h) => `${options.hostsDir}/${h.name}/`).join(', ')}`);
    }
    const { records, files: sourceFiles, bytes: sourceBytes } = await loadLine;
    return { routes, files, records, sourceFiles, sourceBytes, outputBytes };
  } finally {
    // Ends the thread when the build failed before it was done; after a success it has ended.
    await worker?.stop();
  }
}
