// A second thread for the build: it loads, validates and renders the source files it is given
// while the main thread does the same for the others and writes. A resource can go there only
// when no other resource's rules or files need its records (companies: the largest list).
// The worker writes nothing; its files come back to the main thread, which writes them all.

import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { DataError } from './errors.ts';
import { readSources, type Source } from './load.ts';
import { renderLists, routesOf, type RenderSettings } from './render.ts';
import { validate } from './validate.ts';

export interface WorkerJob {
  sources: Source[];
  settings: RenderSettings;
}

export interface LoadStats {
  records: number;
  files: number;
  bytes: number;
}

type Message =
  | ({ type: 'loaded' } & LoadStats)
  | { type: 'checked'; errors: DataError[] }
  | { type: 'rendered'; files: Array<[string, string]> };

/** The worker's progress, one promise per stage, in the order they settle. */
export interface WorkerBuild {
  loaded: Promise<LoadStats>;
  /** Every problem in its files; empty when all their records are valid. */
  checked: Promise<DataError[]>;
  /** Its output files, once `checked` found no problem. */
  rendered: Promise<Array<[string, string]>>;
  /** Ends the thread, whatever it is doing (a build that failed elsewhere needs no more of it). */
  stop(): Promise<void>;
}

const ENTRY = new URL('./worker-entry.mjs', import.meta.url);
const JOB = 'static-drf-api build worker';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  // Whoever needs the stage awaits it; a stage nobody reaches must not be an unhandled rejection.
  promise.catch(() => {});
  return { promise, resolve, reject };
}

export function startWorker(job: WorkerJob): WorkerBuild {
  const loaded = deferred<LoadStats>();
  const checked = deferred<DataError[]>();
  const rendered = deferred<Array<[string, string]>>();
  const worker = new Worker(ENTRY, { workerData: { job: JOB, ...job } });
  const fail = (error: Error) => [loaded, checked, rendered].forEach((stage) => stage.reject(error));
  worker.on('message', (message: Message) => {
    if (message.type === 'loaded') loaded.resolve(message);
    else if (message.type === 'checked') checked.resolve(message.errors);
    else rendered.resolve(message.files);
  });
  worker.on('error', fail);
  // Settles nothing that already settled: only a thread that ended early leaves a stage open.
  worker.on('exit', (code) => fail(new Error(`the build's worker thread ended (exit code ${code}) before it finished`)));
  return {
    loaded: loaded.promise,
    checked: checked.promise,
    rendered: rendered.promise,
    stop: async () => {
      await worker.terminate();
    },
  };
}

async function run({ sources, settings }: WorkerJob): Promise<void> {
  const post = (message: Message) => parentPort?.postMessage(message);
  const loaded = await readSources(sources);
  post({ type: 'loaded', records: loaded.records.length, files: loaded.files, bytes: loaded.bytes });
  const { catalogue, errors } = validate(loaded.records);
  const problems = [...loaded.errors, ...errors];
  post({ type: 'checked', errors: problems });
  if (problems.length > 0) return;
  const resources = new Set(sources.map((source) => source.resource));
  const routes = routesOf(catalogue, settings).filter((route) => resources.has(route.resource));
  post({ type: 'rendered', files: [...renderLists(catalogue, settings, routes)] });
}

if (!isMainThread && (workerData as { job?: string } | null)?.job === JOB) await run(workerData as WorkerJob);
