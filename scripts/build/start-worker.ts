// Starts the build's worker thread (worker.ts) and turns its messages into one promise per stage.
//
// Node 20 passes no module hooks on to a worker thread, and registering tsx inside one costs
// about half a second (each module, zod's included, goes through tsx's hooks thread). So the
// worker's code is bundled by esbuild, which already bundles the host files, into one script,
// kept in node_modules/.cache until one of its files changes (bundle-cache.ts); the thread then
// starts in about 0.1 s.

import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { cacheFile, cachedBundle } from './bundle-cache.ts';
import type { DataError } from './errors.ts';
import { JOB, type LoadStats, type WorkerJob, type WorkerMessage } from './worker.ts';

/** The worker's progress, one promise per stage, in the order they settle. */
export interface WorkerBuild {
  loaded: Promise<LoadStats>;
  /** Every problem in its files; empty when all their records are valid. */
  checked: Promise<DataError[]>;
  /** Its output files, once `checked` found no problem. */
  rendered: Promise<Array<[string, Uint8Array]>>;
  /** Ends the thread, whatever it is doing (a build that failed elsewhere needs no more of it). */
  stop(): Promise<void>;
}

const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url));
let script: Promise<string> | undefined;

function workerScript(): Promise<string> {
  script ??= cachedBundle(
    {
      entryPoints: [WORKER],
      bundle: true,
      platform: 'node',
      // A CommonJS script, as `eval` workers take; `module` first, so that packages shipping both
      // (jsonc-parser) give esbuild their ES modules, which it can bundle without a require() at run time.
      format: 'cjs',
      mainFields: ['module', 'main'],
      target: 'node20',
      logLevel: 'silent',
    },
    cacheFile('worker'),
  );
  return script;
}

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
  const rendered = deferred<Array<[string, Uint8Array]>>();
  const fail = (error: Error) => [loaded, checked, rendered].forEach((stage) => stage.reject(error));
  let stopped = false;
  const started = workerScript().then((code) => {
    if (stopped) return null;
    const worker = new Worker(code, { eval: true, workerData: { job: JOB, ...job } });
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'loaded') loaded.resolve(message);
      else if (message.type === 'checked') checked.resolve(message.errors);
      else rendered.resolve(message.files);
    });
    worker.on('error', fail);
    // Settles nothing that already settled: only a thread that ended early leaves a stage open.
    worker.on('exit', (code) => fail(new Error(`the build's worker thread ended (exit code ${code}) before it finished`)));
    return worker;
  });
  started.catch(fail);
  return {
    loaded: loaded.promise,
    checked: checked.promise,
    rendered: rendered.promise,
    stop: async () => {
      stopped = true;
      await (await started.catch(() => null))?.terminate();
    },
  };
}
