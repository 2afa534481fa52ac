// `npm run bench`: the cases of docs/performance.md, each against its baseline, then the report;
// exit status 1 when a target is missed. `--case startup|dev|import|delivery|peer|growth|filters|edge` runs one case alone
// (`--case dev --catalogue sample|benchmark|imported`: one of its catalogues);
// `--rounds <n>` is the number of the build's rounds to judge.

import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { ChildResult } from './child.ts';
import { deliveryReport, runDeliveryCase } from './delivery-case.ts';
import { type DevCatalogueResult, runDevCase } from './dev-case.ts';
import { edgeReport, runEdgeCase } from './edge-cpu-case.ts';
import { runFiltersCase } from './filters-case.ts';
import { COUNTS, generate } from './generate.ts';
import { GROWTH, runGrowthCase } from './growth-case.ts';
import { runImportCase } from './import-case.ts';
import {
  alternatingRounds,
  buildJob,
  differingFiles,
  ROOT,
  runChild,
  settleDisk,
  summariseTree,
  type TreeSummary,
} from './measure.ts';
import { runPeerCase } from './peer-case.ts';
import {
  devReport,
  filtersReport,
  growthReport,
  importReport,
  judged,
  peerReport,
  report,
  startupReport,
} from './report.ts';
import { runStartupCase } from './startup-case.ts';

const BENCH = path.join(ROOT, '.bench');
// The machine is shared and the median needs company, but once this much time has gone on the
// build's rounds, none past the third is started.
const ROUNDS_BUDGET_MS = 150_000;
const MIN_ROUNDS = 3;
const MAX_ROUNDS = 9;
const DIFF_ROUNDS = 3;

/**
 * A difference is reported, not fatal: on a shared work tree it is most often the build being
 * edited while the bench runs, and the timings are still worth having. A real nondeterminism
 * shows up as a warning in every run.
 */
function compareTree(label: string, actual: TreeSummary, expected: TreeSummary, warnings: string[]): void {
  if (actual.digest === expected.digest) return;
  const files = differingFiles(actual, expected);
  const named = files.slice(0, 3).join(', ') + (files.length > 3 ? `, and ${files.length - 3} more` : '');
  const message =
    `${label.replace(/\s+/g, ' ')} wrote ${actual.files} files / ${actual.bytes} bytes, not the first build's ` +
    `${expected.files} / ${expected.bytes}; differing: ${named}`;
  console.log(`WARNING: ${message}`);
  warnings.push(message);
}

/**
 * The diff case's second catalogue: the first with one company and one event changed, as one
 * reviewed edit would (the renamed event also moves in the name orderings).
 */
async function changeCatalogue(dataDir: string, changedDir: string): Promise<void> {
  await cp(dataDir, changedDir, { recursive: true });
  const edits: Array<[string, (record: Record<string, string>) => Record<string, string>]> = [
    ['company', (company) => ({ ...company, city: `${company.city} (moved)` })],
    ['event', (event) => ({ ...event, name: `${event.name} (renamed)` })],
  ];
  for (const [resource, edit] of edits) {
    const folder = path.join(changedDir, resource);
    const [first] = (await readdir(folder, { recursive: true })).filter((file) => file.endsWith('.json')).sort();
    if (first === undefined) throw new Error(`no ${resource} file in ${folder}`);
    const file = path.join(folder, first);
    const value = JSON.parse(await readFile(file, 'utf8')) as Record<string, string> | Array<Record<string, string>>;
    const changed = Array.isArray(value) ? [edit(value[0] as Record<string, string>), ...value.slice(1)] : edit(value);
    await writeFile(file, JSON.stringify(changed));
  }
}

async function main(): Promise<boolean> {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '5' },
      case: { type: 'string', default: 'all' },
      catalogue: { type: 'string' },
    },
  });
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > MAX_ROUNDS)
    throw new Error(`--rounds expects a whole number from 1 to ${MAX_ROUNDS}`);
  if (values.case === 'dev' || values.case === 'startup') {
    const only = values.catalogue as DevCatalogueResult['catalogue'] | undefined;
    if (only !== undefined && !['sample', 'benchmark', 'imported'].includes(only))
      throw new Error('--catalogue expects sample, benchmark or imported');
    const section =
      values.case === 'dev'
        ? devReport(await runDevCase(BENCH, undefined, only))
        : startupReport(await runStartupCase());
    console.log(section.lines.join('\n'));
    return section.passed;
  }
  // The cases that run alone on the generated catalogue, each with its report.
  const alone: Readonly<Record<string, (dataDir: string) => Promise<{ lines: string[]; passed: boolean }>>> = {
    import: async (dataDir) => importReport(await runImportCase(BENCH, dataDir, COUNTS.textures)),
    filters: async (dataDir) => filtersReport(await runFiltersCase(BENCH, dataDir)),
    growth: async (dataDir) => growthReport(await runGrowthCase(BENCH, dataDir)),
    peer: async (dataDir) => peerReport(await runPeerCase(BENCH, dataDir)),
    delivery: async (dataDir) => deliveryReport(await runDeliveryCase(BENCH, dataDir)),
    edge: async (dataDir) => edgeReport(await runEdgeCase(BENCH, dataDir)),
  };
  const runAlone = Object.hasOwn(alone, values.case) ? alone[values.case] : undefined;
  if (values.case !== 'all' && runAlone === undefined)
    throw new Error('--case expects all, startup, dev, import, delivery, peer, growth, filters or edge');

  await rm(BENCH, { recursive: true, force: true });
  await mkdir(path.join(BENCH, 'out'), { recursive: true });
  const dataDir = path.join(BENCH, 'data');
  const counts = Object.entries(COUNTS).map(([name, n]) => `${n.toLocaleString('en-US')} ${name}`);
  console.log(`Generating ${counts.join(', ')} into ${path.relative(ROOT, dataDir)}/ ...`);
  const genStarted = performance.now();
  const generated = generate(dataDir);
  const generatedMs = performance.now() - genStarted;
  console.log(
    `  ${generated.files.length} files, ${generated.bytes} bytes, sha256 ${generated.digest} (${Math.round(generatedMs)} ms)`,
  );
  for (const line of generated.layout) console.log(`  ${line}`);
  if (runAlone !== undefined) {
    const section = await runAlone(dataDir);
    console.log(section.lines.join('\n'));
    return section.passed;
  }

  // The first build's output is what every later run must reproduce, and what the baseline writes.
  // Deleting thousands of files between runs loads the disk while the next run writes, so the
  // other runs' outputs are removed only at the end.
  let reference: { dir: string; tree: TreeSummary } | undefined;
  const leftovers: string[] = [];
  const warnings: string[] = [];
  const checked = async (label: string, outDir: string, result: ChildResult) => {
    const tree = await summariseTree(outDir);
    if (reference) compareTree(label, tree, reference.tree, warnings);
    else reference = { dir: outDir, tree };
    if (reference.dir !== outDir) leftovers.push(outDir);
    return result;
  };
  // The same files the build reads, in the order it reads them (its glob is sorted by path).
  const sourceFiles = [...generated.files].sort();
  const runsStarted = performance.now();
  // Rounds run until `rounds` of them can be judged, up to MAX_ROUNDS in all.
  const { runs: builds, baselines } = await alternatingRounds(
    async (round) => {
      const outDir = path.join(BENCH, 'out', `build-r${round}`);
      settleDisk();
      // Without the precompressed siblings: what they add is the delivery case's to judge, against this build.
      const job = buildJob(dataDir, outDir, { precompress: false });
      return checked(`build r${round}`, outDir, await runChild(job, `build    r${round}`));
    },
    async (round) => {
      if (!reference) throw new Error('the baseline needs a finished build to copy');
      const outDir = path.join(BENCH, 'out', `baseline-r${round}`);
      const job = { kind: 'baseline', sourceFiles, referenceDir: reference.dir, outDir } as const;
      settleDisk();
      return checked(`baseline r${round}`, outDir, await runChild(job, `baseline r${round}`));
    },
    ({ runs, baselines }) => {
      const round = runs.length;
      if (round > 0 && !judged(runs[round - 1] as ChildResult, baselines[round - 1] as ChildResult))
        console.log(`round ${round} is not judged: the disk slowed its baseline (see the report)`);
      const enough = runs.filter((run, i) => judged(run, baselines[i] as ChildResult)).length >= rounds;
      if (enough || round >= MAX_ROUNDS) return false;
      if (round < MIN_ROUNDS || performance.now() - runsStarted <= ROUNDS_BUDGET_MS) return true;
      console.log(`Stopping after ${round} rounds: the runs have taken over ${ROUNDS_BUDGET_MS / 1000} s.`);
      return false;
    },
  );
  for (const dir of leftovers) await rm(dir, { recursive: true, force: true });
  if (!reference) throw new Error('no build ran');

  // The diff case: the first build's output against a build of the changed catalogue.
  const changedData = path.join(BENCH, 'data-changed');
  await changeCatalogue(dataDir, changedData);
  const changedOut = path.join(BENCH, 'out', 'changed');
  await runChild(buildJob(changedData, changedOut, { precompress: false }), 'build    changed');
  const sides = { before: path.join(reference.dir, 'public'), after: path.join(changedOut, 'public') };
  const diffs = await alternatingRounds(
    (round) => runChild({ kind: 'diff', ...sides }, `diff          r${round}`),
    (round) => runChild({ kind: 'diff-baseline', ...sides }, `diff-baseline r${round}`),
    DIFF_ROUNDS,
  );

  console.log('dev: npm run dev on the sample data and on the benchmark catalogue ...');
  const dev = await runDevCase(BENCH, dataDir);
  const imports = await runImportCase(BENCH, dataDir, COUNTS.textures);
  console.log('startup: the commands on the sample data ...');
  const startup = await runStartupCase();
  console.log('delivery: the precompressed siblings on the benchmark catalogue ...');
  const delivery = deliveryReport(await runDeliveryCase(BENCH, dataDir));
  console.log('peer: npm run build against the Eleventy project on the benchmark catalogue ...');
  const peer = peerReport(await runPeerCase(BENCH, dataDir));
  console.log(`growth: npm run build of the benchmark catalogue and of ${GROWTH} times it ...`);
  const growth = growthReport(await runGrowthCase(BENCH, dataDir));
  console.log('filters: filters, search and ordering on the benchmark catalogue ...');
  const filters = filtersReport(await runFiltersCase(BENCH, dataDir));
  console.log(
    `edge: the worker's CPU time per request on the sample, the benchmark catalogue and ${GROWTH} times it ...`,
  );
  const edge = edgeReport(await runEdgeCase(BENCH, dataDir));

  const { text, passed } = report({
    generatedMs,
    sourceDigest: generated.digest,
    source: { files: generated.files.length, bytes: generated.bytes, records: generated.records },
    counts: COUNTS,
    output: reference.tree,
    warnings,
    builds,
    baselines,
    diffs,
    dev,
    imports,
    startup,
  });
  console.log(
    [text, '', ...delivery.lines, ...peer.lines, ...growth.lines, ...filters.lines, ...edge.lines].join('\n'),
  );
  return passed && delivery.passed && peer.passed && growth.passed && filters.passed && edge.passed;
}

try {
  process.exitCode = (await main()) ? 0 : 1;
} catch (error) {
  console.error(`\nbench: ${(error as Error).message}`);
  process.exitCode = 1;
}
