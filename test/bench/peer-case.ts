// The peer case: `npm run build` against the Eleventy 3 project of test/bench/eleventy/, the
// generator a user would pick instead, on the same catalogue. Each runs as its user runs it (its
// command, in a process of its own, into an empty folder), under GNU time for its CPU time and
// peak RSS. Before any run is timed, both write once and every answer must be the same bytes.

import { rm } from 'node:fs/promises';
import path from 'node:path';
import {
  alternatingRounds,
  type CommandRun,
  commandEnv,
  LAUNCHER,
  ROOT,
  runCommand,
  settleDisk,
  summariseTree,
  type TreeSummary,
} from './measure.ts';

const ROUNDS = 5;
const ELEVENTY = path.join(ROOT, 'node_modules/@11ty/eleventy/cmd.cjs');
const ELEVENTY_CONFIG = 'test/bench/eleventy/eleventy.config.js';

/** What only our build writes into public/, and why: the peer is not asked to write these. */
export const ONLY_OURS: ReadonlyArray<{ pattern: RegExp; what: string }> = [
  { pattern: /^\.assetsignore$/, what: '.assetsignore (the files Cloudflare must not upload)' },
  { pattern: /^_redirects$/, what: "_redirects (Netlify's query rules, made from the route table)" },
  { pattern: /^_parts\//, what: "_parts/ (a file over 25 MiB in parts, for Cloudflare's worker)" },
  { pattern: /\.(br|gz)$/, what: '.br and .gz (the precompressed siblings)' },
];

export interface AnswerComparison {
  /** Files both wrote, compared byte for byte. */
  compared: number;
  /** Of our files, how many each ONLY_OURS entry left out, by its `what`. */
  excluded: Map<string, number>;
  /** The first file, in path order, that only one side wrote or whose bytes differ. */
  firstDifference?: { file: string; problem: string };
}

/** Our build's answers against the peer's, but for the files only we write (ONLY_OURS). */
export function compareAnswers(ours: TreeSummary, peer: TreeSummary): AnswerComparison {
  const excluded = new Map<string, number>();
  const kept = new Set<string>();
  for (const file of ours.fileDigests.keys()) {
    const rule = ONLY_OURS.find(({ pattern }) => pattern.test(file));
    if (rule) excluded.set(rule.what, (excluded.get(rule.what) ?? 0) + 1);
    else kept.add(file);
  }
  const files = [...new Set([...kept, ...peer.fileDigests.keys()])].sort();
  for (const file of files) {
    const [mine, theirs] = [ours.fileDigests.get(file), peer.fileDigests.get(file)];
    if (mine === theirs) continue;
    const problem =
      theirs === undefined ? 'only our build wrote it' : mine === undefined ? 'only the peer wrote it' : 'bytes differ';
    return { compared: kept.size, excluded, firstDifference: { file, problem } };
  }
  return { compared: kept.size, excluded };
}

export interface PeerResult extends Record<'builds' | 'peers', CommandRun[]> {
  comparison: AnswerComparison;
}

/** `npm run build` of `dataDir` into `outDir`, every check and target kept, as the CLI runs it. */
export function buildCommand(dataDir: string, outDir: string): string[] {
  const out = (name: string) => path.join(outDir, name);
  return [
    LAUNCHER,
    'build',
    ...['--data', dataDir, '--out', out('public'), '--targets-dir', out('targets'), '--schemas-dir', out('schemas')],
  ];
}

const runBuild = (dataDir: string, outDir: string, label: string) =>
  runCommand(process.execPath, buildCommand(dataDir, outDir), { cwd: ROOT, label });

/** `npx @11ty/eleventy` of the peer project, reading `dataDir`. */
const runEleventy = (dataDir: string, outDir: string, label: string) =>
  runCommand(process.execPath, [ELEVENTY, `--config=${ELEVENTY_CONFIG}`, `--output=${outDir}`, '--quiet'], {
    cwd: ROOT,
    env: { ...commandEnv(), CATALOGUE_DIR: dataDir },
    label,
  });

export async function runPeerCase(benchDir: string, dataDir: string): Promise<PeerResult> {
  const dir = path.join(benchDir, 'peer');
  await rm(dir, { recursive: true, force: true });
  // Once untimed each: the answers compared, and the launcher's compilation made if a source changed.
  const [oursDir, peerDir] = [path.join(dir, 'check-ours'), path.join(dir, 'check-eleventy')];
  await runBuild(dataDir, oursDir, 'peer check: npm run build');
  await runEleventy(dataDir, peerDir, 'peer check: eleventy');
  const comparison = compareAnswers(await summariseTree(path.join(oursDir, 'public')), await summariseTree(peerDir));
  await rm(dir, { recursive: true, force: true });
  if (comparison.firstDifference) {
    const { file, problem } = comparison.firstDifference;
    throw new Error(`the peer's answers are not ours: ${file}: ${problem}`);
  }
  console.log(`peer: ${comparison.compared} answers byte-identical; timing ${ROUNDS} alternating rounds ...`);
  const rounds = await alternatingRounds(
    async (round) => {
      const outDir = path.join(dir, `ours-r${round}`);
      settleDisk();
      const run = await runBuild(dataDir, outDir, `npm run build r${round}`);
      await rm(outDir, { recursive: true, force: true });
      return run;
    },
    async (round) => {
      const outDir = path.join(dir, `eleventy-r${round}`);
      settleDisk();
      const run = await runEleventy(dataDir, outDir, `eleventy      r${round}`);
      await rm(outDir, { recursive: true, force: true });
      return run;
    },
    ROUNDS,
  );
  return { builds: rounds.runs, peers: rounds.baselines, comparison };
}
