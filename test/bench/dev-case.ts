// The dev case: `npm run dev`, timed from saving a file to the first answer over HTTP that has
// the change, for an edit of one company, one event and one texture, on the sample data (test/fixtures/sample/data/)
// and on the benchmark catalogue. Each runs in a project folder of its own under .bench/ (a copy
// of the data and _headers, its working directory), as a user runs it. On the benchmark
// catalogue, the full build that `npm run dev` ran on every save before it kept the catalogue in
// memory (the preview's: no deploy targets) is timed too, since the company edit is judged
// against it: its list is 43 MB, which no edit of a company can leave unwritten.

import { cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SAMPLE_DATA, SAMPLE_HEADERS } from '../fixtures/sample.ts';
import type { ChildResult } from './child.ts';
import { generate } from './generate.ts';
import { importedCatalogue } from './import-case.ts';
import {
  ask,
  buildJob,
  LAUNCHER,
  mb,
  peakRss,
  ROOT,
  runChild,
  settleDisk,
  sleep,
  startCommand,
  until,
} from './measure.ts';

const ROUNDS = { sample: 5, benchmark: 3 } as const;
/** Between rounds, so that each save meets a dev server at rest. */
const PAUSE_MS = 500;
const FULL_BUILD_ROUNDS = 3;
/**
 * For the preview's first build and for an answer to show a save: a shared machine can stretch
 * the first build of the benchmark catalogue past a minute.
 */
const DEV_TIMEOUT_MS = 5 * 60_000;

export const DEV_EDITS = ['company', 'event', 'texture'] as const;
export type DevEdit = (typeof DEV_EDITS)[number];

export interface DevRound {
  /** From the start of the save to the first answer with the change, over HTTP: to its headers. */
  answerMs: number;
  /** The same, to the end of its body. */
  bodyMs: number;
  /** What `npm run dev` printed for the rebuild (`rebuilt in N ms`): from the change seen to every file written. */
  rebuiltMs: number;
}

export interface DevCatalogueResult {
  /** `imported`: the benchmark catalogue in the layout `npm run import` writes (migrate/layout.ts). */
  catalogue: 'sample' | 'benchmark' | 'imported';
  records: number;
  /** The source files the records are in: the layout. */
  files?: number;
  rounds: Record<DevEdit, DevRound[]>;
  /** The full build of the same data as the preview builds it, each round's time; on the benchmark catalogue only. */
  fullBuildMs?: number[];
  /** The full builds' peak RSS, the worst round. */
  fullBuildRssBytes?: number;
  /** Of the imported layout: the peak RSS of the `npm run import` that wrote it. */
  importRssBytes?: number;
  /** The preview's peak RSS over its first build and every edit (Linux only). */
  peakRssBytes?: number;
  /** The company edit's file read, parsed and checked on its own, as the preview does on a save. */
  companyFile?: ChildResult;
}

type Json = { [key: string]: unknown };

/** A save of one record: the file, its records, which one, and the answer that shows it. */
interface Edit {
  file: string;
  records: Json[] | Json;
  index: number | null;
  answer: string;
}

/** Every .json file under `folder`, in path order. */
async function jsonFiles(folder: string): Promise<string[]> {
  const found = await readdir(folder, { recursive: true });
  return found
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => path.join(folder, file));
}

async function readRecords(file: string): Promise<Json[] | Json> {
  return JSON.parse(await readFile(file, 'utf8')) as Json[] | Json;
}

/**
 * The record each edit renames: the first company and the first event of their first files, whose
 * lists show them whatever their names; and the texture that the first page shows first, which its
 * new name keeps there: the marker sorts before any name of the catalogues.
 */
async function findEdits(dataDir: string, origin: string): Promise<Record<DevEdit, Edit>> {
  const first = async (resource: string, answer: string): Promise<Edit> => {
    const [file] = await jsonFiles(path.join(dataDir, resource));
    if (file === undefined) throw new Error(`no ${resource} file in ${dataDir}`);
    const records = await readRecords(file);
    return { file, records, index: Array.isArray(records) ? 0 : null, answer };
  };
  const page = await ask(`${origin}/virtualbooth-texture/`);
  const shown = (JSON.parse(page?.body ?? '{}') as { results?: Json[] }).results?.[0]?.id;
  let texture: Edit | undefined;
  for (const file of await jsonFiles(path.join(dataDir, 'virtualbooth-texture'))) {
    const records = await readRecords(file);
    const index = Array.isArray(records) ? records.findIndex((record) => record.id === shown) : null;
    if (index === -1 || (index === null && (records as Json).id !== shown)) continue;
    texture = { file, records, index, answer: `${origin}/virtualbooth-texture/` };
    break;
  }
  if (texture === undefined) throw new Error(`the texture ${String(shown)} of the first page is in no file`);
  return {
    company: await first('company', `${origin}/company/`),
    event: await first('event', `${origin}/event/`),
    texture,
  };
}

/** The edit's file with its record named `marker`. */
function edited(edit: Edit, marker: string): string {
  const rename = (record: Json): Json => ({ ...record, name: marker });
  const records = Array.isArray(edit.records)
    ? edit.records.map((record, index) => (index === edit.index ? rename(record) : record))
    : rename(edit.records);
  return JSON.stringify(records, null, 2);
}

/**
 * Asks `url` until its answer has `marker`. Each request revalidates the last answer seen
 * (If-None-Match), as a browser does, so that an unchanged 43 MB list costs a 304 and not its
 * transfer. Resolves with performance.now() when the server began the answer that has the
 * change (its headers came) and when its body had come whole: the second adds the client's
 * download, which on the 43 MB company list is most of a second of any server's.
 */
async function answerWith(url: string, marker: string, etag: string | null): Promise<{ begun: number; whole: number }> {
  let known = etag;
  return until(
    url,
    async () => {
      try {
        const answer = await fetch(url, { headers: known ? { 'If-None-Match': known } : {} });
        const begun = performance.now();
        const body = await answer.text();
        if (answer.status !== 200) return undefined;
        known = answer.headers.get('etag');
        return body.includes(marker) ? { begun, whole: performance.now() } : undefined;
      } catch {
        // A kept-alive connection that the server closed as it was reused fails the request: ask again.
        return undefined;
      }
    },
    DEV_TIMEOUT_MS,
  );
}

/** `npm run dev` in a project of its own holding `dataDir`'s data: rounds of each edit, one edit after another. */
async function timeEdits(projectDir: string, dataDir: string, rounds: number, label: string) {
  await rm(projectDir, { recursive: true, force: true });
  await cp(dataDir, path.join(projectDir, 'data'), { recursive: true });
  await cp(SAMPLE_HEADERS, path.join(projectDir, '_headers'));
  const serving = /^Serving \S+ at (http:\/\/\S+)$/m;
  const dev = await startCommand(process.execPath, [LAUNCHER, 'dev', '--port', '0'], {
    cwd: projectDir,
    ready: (stderr) => serving.test(stderr),
    echo: `dev ${label}`,
    timeoutMs: DEV_TIMEOUT_MS,
  });
  const origin = serving.exec(dev.stderr())?.[1] as string;
  const records = Number(/from (\d+) records$/m.exec(dev.stderr())?.[1] ?? 0);
  const files = (await jsonFiles(path.join(projectDir, 'data'))).length;
  const results = { company: [], event: [], texture: [] } as Record<DevEdit, DevRound[]>;
  let peakRssBytes: number | undefined;
  let companyFile: ChildResult | undefined;
  try {
    const edits = await findEdits(path.join(projectDir, 'data'), origin);
    companyFile = await runChild({ kind: 'reload', file: edits.company.file }, `dev ${label} company file`);
    for (const kind of DEV_EDITS) {
      const edit = edits[kind];
      for (let round = 1; round <= rounds; round++) {
        // At rest: the previous writes on disk (the first build's 100 MB and more on the benchmark
        // catalogue, whose write-back would otherwise slow this save's write), the server idle.
        settleDisk();
        await sleep(PAUSE_MS);
        const marker = `(saved in round ${round})`;
        const printedBefore = dev.stderr().length;
        const text = edited(edit, marker);
        // The answer as the polls get it (the same encoding), so that the first of them revalidates it.
        const current = await until(edit.answer, async () => {
          const answer = await fetch(edit.answer).catch(() => undefined);
          return (await answer?.arrayBuffer().catch(() => undefined)) && answer;
        });
        const before = current.headers.get('etag');
        const saved = performance.now();
        await writeFile(edit.file, text);
        const { begun, whole } = await answerWith(edit.answer, marker, before);
        // After the answer, the preview still compresses it and makes the targets' files: on a
        // loaded shared machine that alone has taken over a minute.
        const rebuilt = await until(
          'a `rebuilt in` line',
          () => /^rebuilt in (\d+) ms/m.exec(dev.stderr().slice(printedBefore)) ?? undefined,
          DEV_TIMEOUT_MS,
        );
        results[kind].push({ answerMs: begun - saved, bodyMs: whole - saved, rebuiltMs: Number(rebuilt[1]) });
        console.log(
          `dev ${label} ${kind.padEnd(7)} r${round}: save → new answer ${Math.round(begun - saved)} ms, its body whole ${Math.round(whole - saved)} ms`,
        );
      }
    }
  } finally {
    peakRssBytes = await peakRss(dev.pid);
    if (peakRssBytes !== undefined) console.log(`dev ${label}: the preview's peak RSS ${mb(peakRssBytes)}`);
    await dev.stop();
  }
  return { records, files, rounds: results, peakRssBytes, companyFile };
}

/** Full builds of `dataDir` with the preview's settings, each in a child of its own, the disk settled before each. */
async function fullBuilds(
  dataDir: string,
  dir: string,
  label: string,
): Promise<{ fullBuildMs: number[]; fullBuildRssBytes: number }> {
  // As the build case does: the outputs removed only at the end.
  const fullBuildMs: number[] = [];
  let fullBuildRssBytes = 0;
  const outDirs: string[] = [];
  for (let round = 1; round <= FULL_BUILD_ROUNDS; round++) {
    const outDir = path.join(dir, `full-${label}-r${round}`);
    outDirs.push(outDir);
    settleDisk();
    const result: ChildResult = await runChild(
      buildJob(dataDir, outDir, { targets: [] }),
      `dev full build ${label} r${round}`,
    );
    fullBuildMs.push(result.ms);
    fullBuildRssBytes = Math.max(fullBuildRssBytes, result.maxRssBytes);
  }
  for (const outDir of outDirs) await rm(outDir, { recursive: true, force: true });
  return { fullBuildMs, fullBuildRssBytes };
}

/**
 * The dev case on the sample data, and on the benchmark catalogue in `catalogueDir` (generated
 * into the case's folder when not given) in its own layout and in the one `npm run import`
 * writes; `only` one of the three when given.
 */
export async function runDevCase(
  benchDir: string,
  catalogueDir?: string,
  only?: DevCatalogueResult['catalogue'],
): Promise<DevCatalogueResult[]> {
  const dir = path.join(benchDir, 'dev');
  const results: DevCatalogueResult[] = [];
  if (only === undefined || only === 'sample') {
    const sample = await timeEdits(path.join(dir, 'sample'), SAMPLE_DATA, ROUNDS.sample, 'sample');
    results.push({ catalogue: 'sample', ...sample });
  }
  if (only === 'sample') return results;
  let benchmarkData = catalogueDir;
  if (benchmarkData === undefined) {
    benchmarkData = path.join(dir, 'catalogue');
    console.log(`dev: generating the benchmark catalogue into ${path.relative(ROOT, benchmarkData)}/ ...`);
    generate(benchmarkData);
  }
  if (only === undefined || only === 'benchmark') {
    const benchmark = await timeEdits(path.join(dir, 'benchmark'), benchmarkData, ROUNDS.benchmark, 'benchmark');
    results.push({ catalogue: 'benchmark', ...benchmark, ...(await fullBuilds(benchmarkData, dir, 'benchmark')) });
  }
  if (only === 'benchmark') return results;
  console.log('dev: the benchmark catalogue as `npm run import` writes it ...');
  const { dataDir: importedData, run } = await importedCatalogue(benchmarkData, path.join(dir, 'imported-source'));
  const imported = await timeEdits(path.join(dir, 'imported'), importedData, ROUNDS.benchmark, 'imported');
  const builds = await fullBuilds(importedData, dir, 'imported');
  await rm(path.join(dir, 'imported-source'), { recursive: true, force: true });
  results.push({ catalogue: 'imported', ...imported, ...builds, importRssBytes: run.maxRssBytes });
  return results;
}
