// The build's second thread: it loads, validates and renders the source files it is given while
// the main thread does the same for the others and writes (start-worker.ts starts it). It writes
// nothing; its files go back to the main thread, which writes them all.

import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { DataError } from './errors.ts';
import { readSources, type Source } from './load.ts';
import { renderLists, routesOf, type RenderSettings } from './render.ts';
import { checkCatalogue, checkSchemas } from './validate.ts';

/** Marks the worker data, so the thread runs only when started as the build's worker. */
export const JOB = 'static-drf-api build worker';

export interface WorkerJob {
  sources: Source[];
  settings: RenderSettings;
}

export interface LoadStats {
  records: number;
  files: number;
  bytes: number;
}

/** What the thread posts, in this order; it stops after `checked` when there are problems. */
export type WorkerMessage =
  | ({ type: 'loaded' } & LoadStats)
  | { type: 'checked'; errors: DataError[] }
  | { type: 'rendered'; files: Array<[string, Uint8Array]> };

/**
 * Whether `bytes` is the only view of its buffer, as far as the build's code goes: it is the whole
 * buffer, or it starts it and is too large to be a slice of Buffer's shared pool (which serves
 * only allocations under half its size). The company list is such a view: its buffer has room
 * left over (encodePlainArrayBytes), which moves with it, untouched.
 */
export function ownsBuffer(bytes: Uint8Array): boolean {
  return bytes.byteOffset === 0 && (bytes.byteLength === bytes.buffer.byteLength || bytes.byteLength >= Buffer.poolSize >>> 1);
}

async function run({ sources, settings }: WorkerJob): Promise<void> {
  const post = (message: WorkerMessage, transfer: ArrayBuffer[] = []) => parentPort?.postMessage(message, transfer);
  const loaded = await readSources(sources, checkSchemas);
  post({ type: 'loaded', records: loaded.records, files: loaded.files, bytes: loaded.bytes });
  const { catalogue, errors } = checkCatalogue(loaded.parsed);
  const problems = [...loaded.errors, ...errors];
  post({ type: 'checked', errors: problems });
  if (problems.length > 0) return;
  const resources = new Set(sources.map((source) => source.resource));
  const routes = routesOf(catalogue, settings).filter((route) => resources.has(route.resource));
  // As UTF-8 bytes, which move to the main thread without a copy (a string would be copied,
  // and then encoded there, on the thread that writes everything). Only a whole buffer can move,
  // so a view that may share its buffer is copied first (see ownsBuffer).
  const encoder = new TextEncoder();
  const files = [...renderLists(catalogue, settings, routes)].map(([file, body]): [string, Uint8Array] => {
    if (typeof body === 'string') return [file, encoder.encode(body)];
    return [file, ownsBuffer(body) ? body : new Uint8Array(body)];
  });
  post({ type: 'rendered', files }, files.map(([, bytes]) => bytes.buffer as ArrayBuffer));
}

// A failure rejects unhandled, which ends the thread with an 'error' event on the main side.
if (!isMainThread && (workerData as { job?: string } | null)?.job === JOB) void run(workerData as WorkerJob);
