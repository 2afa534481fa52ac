// The peer case: `npm run build` against the Eleventy 3 project of test/bench/eleventy/, the
// generator a user would pick instead, on the same catalogue, judged on the same work. Each runs
// as its user runs it (its command, in a process of its own, into an empty folder), under GNU
// time for its CPU time and peak RSS, in two pairs: the build with `precompress` off against
// Eleventy, which writes no siblings; and the build as it comes, siblings on, against Eleventy
// with the step its user adds for them (siblings.js). Before any run is timed, each of the four
// writes once: every answer must be the same bytes, and every sibling must decompress to its
// answer, on the same answers on both sides.

import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { isSibling } from '../../scripts/shared/compress.ts';
import {
  type CommandRun,
  commandEnv,
  LAUNCHER,
  ROOT,
  runCommand,
  settleDisk,
  summariseTree,
  type TreeSummary,
} from './measure.ts';

const ROUNDS = 8;
const ELEVENTY = path.join(ROOT, 'node_modules/@11ty/eleventy/cmd.cjs');
const ELEVENTY_CONFIG = 'test/bench/eleventy/eleventy.config.js';

/** What only our build writes into public/, and why: the peer is not asked to write these. */
export const ONLY_OURS: ReadonlyArray<{ pattern: RegExp; what: string }> = [
  { pattern: /^\.assetsignore$/, what: '.assetsignore (the files Cloudflare must not upload)' },
  { pattern: /^_redirects$/, what: "_redirects (Netlify's query rules, made from the route table)" },
  { pattern: /^_parts\//, what: "_parts/ (a file over 25 MiB in parts, for Cloudflare's worker)" },
];

export interface AnswerComparison {
  /** Files both wrote, compared byte for byte. */
  compared: number;
  /** Of our files, how many each ONLY_OURS entry left out, by its `what`. */
  excluded: Map<string, number>;
  /** The first file, in path order, that only one side wrote or whose bytes differ. */
  firstDifference?: { file: string; problem: string };
}

/**
 * Our build's answers against the peer's, but for the files only we write (ONLY_OURS) and the
 * siblings on both sides, which siblingCheck() reads.
 */
export function compareAnswers(ours: TreeSummary, peer: TreeSummary): AnswerComparison {
  const excluded = new Map<string, number>();
  const kept = new Set<string>();
  for (const file of ours.fileDigests.keys()) {
    if (isSibling(file)) continue;
    const rule = ONLY_OURS.find(({ pattern }) => pattern.test(file));
    if (rule) excluded.set(rule.what, (excluded.get(rule.what) ?? 0) + 1);
    else kept.add(file);
  }
  const theirs = [...peer.fileDigests.keys()].filter((file) => !isSibling(file));
  const files = [...new Set([...kept, ...theirs])].sort();
  for (const file of files) {
    const [mine, peers] = [ours.fileDigests.get(file), peer.fileDigests.get(file)];
    if (mine === peers) continue;
    const problem =
      peers === undefined ? 'only our build wrote it' : mine === undefined ? 'only the peer wrote it' : 'bytes differ';
    return { compared: kept.size, excluded, firstDifference: { file, problem } };
  }
  return { compared: kept.size, excluded };
}

/**
 * The answers of the folder `dir` (summarised as `tree`) that have siblings, each of which must be
 * both a `.br` and a `.gz` decompressing to the answer's bytes; a problem names the first that is not.
 */
export async function siblingCheck(dir: string, tree: TreeSummary): Promise<{ answers: string[]; problem?: string }> {
  const siblings = [...tree.fileDigests.keys()].filter(isSibling).sort();
  const answers = [...new Set(siblings.map((file) => file.replace(/\.(br|gz)$/, '')))].sort();
  for (const answer of answers) {
    const bytes = await readFile(path.join(dir, answer)).catch(() => undefined);
    if (bytes === undefined) return { answers, problem: `${answer}: siblings without the answer` };
    for (const [extension, decompress] of [
      ['.br', brotliDecompressSync],
      ['.gz', gunzipSync],
    ] as const) {
      const sibling = await readFile(path.join(dir, `${answer}${extension}`)).catch(() => undefined);
      if (sibling === undefined) return { answers, problem: `${answer}${extension}: missing` };
      if (!decompress(sibling).equals(bytes)) return { answers, problem: `${answer}${extension}: not the answer` };
    }
  }
  return { answers };
}

/** The four runs of a round: the two pairs, each ours against the peer doing the same work. */
export interface PeerRounds {
  /** `npm run build --precompress off`, and Eleventy alone. */
  without: { builds: CommandRun[]; peers: CommandRun[] };
  /** `npm run build` (siblings on), and Eleventy with its siblings step. */
  with: { builds: CommandRun[]; peers: CommandRun[] };
}

export interface PeerResult extends PeerRounds {
  comparison: AnswerComparison;
  /** How many answers have siblings, on each side alike. */
  compressed: number;
}

/** `npm run build` of `dataDir` into `outDir`, every check and target kept, as the CLI runs it. */
export function buildCommand(dataDir: string, outDir: string, extra: readonly string[] = []): string[] {
  const out = (name: string) => path.join(outDir, name);
  return [
    LAUNCHER,
    'build',
    ...['--data', dataDir, '--out', out('public'), '--targets-dir', out('targets'), '--schemas-dir', out('schemas')],
    ...extra,
  ];
}

type Side = 'build' | 'peer';
type Pair = keyof PeerRounds;

/** One run: `npm run build` (siblings as `pair` says), or `npx @11ty/eleventy` of the peer project reading `dataDir`. */
function run(side: Side, pair: Pair, dataDir: string, outDir: string, label: string): Promise<CommandRun> {
  if (side === 'build') {
    const flags = pair === 'without' ? ['--precompress', 'off'] : [];
    return runCommand(process.execPath, buildCommand(dataDir, outDir, flags), { cwd: ROOT, label });
  }
  const siblings = pair === 'without' ? { PRECOMPRESS: 'off' } : {};
  return runCommand(process.execPath, [ELEVENTY, `--config=${ELEVENTY_CONFIG}`, `--output=${outDir}`, '--quiet'], {
    cwd: ROOT,
    env: { ...commandEnv(), CATALOGUE_DIR: dataDir, ...siblings },
    label,
  });
}

/** Where a side writes its answers in `outDir`: our build into its public/. */
const answersDir = (side: Side, outDir: string) => (side === 'build' ? path.join(outDir, 'public') : outDir);

/** The four runs once, untimed: the answers and the siblings checked as the module's header says. */
async function checkSameWork(dir: string, dataDir: string): Promise<Pick<PeerResult, 'comparison' | 'compressed'>> {
  const trees = new Map<string, { dir: string; tree: TreeSummary }>();
  for (const pair of ['without', 'with'] as const)
    for (const side of ['build', 'peer'] as const) {
      const outDir = path.join(dir, `check-${side}-${pair}`);
      await run(side, pair, dataDir, outDir, `peer check: ${side} ${pair} siblings`);
      const answers = answersDir(side, outDir);
      trees.set(`${side} ${pair}`, { dir: answers, tree: await summariseTree(answers) });
    }
  const at = (key: string) => trees.get(key) as { dir: string; tree: TreeSummary };
  let comparison: AnswerComparison | undefined;
  let compressed: string[] | undefined;
  for (const pair of ['without', 'with'] as const) {
    const [ours, peer] = [at(`build ${pair}`), at(`peer ${pair}`)];
    comparison = compareAnswers(ours.tree, peer.tree);
    if (comparison.firstDifference) {
      const { file, problem } = comparison.firstDifference;
      throw new Error(`the peer's answers are not ours (${pair} siblings): ${file}: ${problem}`);
    }
    const [mine, theirs] = [await siblingCheck(ours.dir, ours.tree), await siblingCheck(peer.dir, peer.tree)];
    for (const [who, check] of [
      ['our build', mine],
      ['the peer', theirs],
    ] as const) {
      if (check.problem) throw new Error(`${who}'s siblings (${pair} siblings): ${check.problem}`);
      if (pair === 'without' && check.answers.length > 0)
        throw new Error(`${who} wrote siblings with them off: ${check.answers[0]}`);
    }
    const onOneSide = [...new Set([...mine.answers, ...theirs.answers])]
      .sort()
      .find((answer) => mine.answers.includes(answer) !== theirs.answers.includes(answer));
    if (onOneSide !== undefined) throw new Error(`only one side compressed ${onOneSide}`);
    compressed = mine.answers;
  }
  if (!comparison || !compressed?.length) throw new Error('the peer check compressed nothing');
  return { comparison, compressed: compressed.length };
}

/**
 * Eight rounds of the four runs, each pair's two runs adjacent, in the order reversed every
 * other round. Nothing is removed until the last round ends: files created just after thousands
 * were removed make both sides wait on ext4's allocator (docs/performance.md).
 */
export async function runPeerCase(benchDir: string, dataDir: string): Promise<PeerResult> {
  const dir = path.join(benchDir, 'peer');
  await rm(dir, { recursive: true, force: true });
  try {
    const checked = await checkSameWork(dir, dataDir);
    console.log(
      `peer: ${checked.comparison.compared} answers byte-identical, ${checked.compressed} with siblings that decompress to them on both sides; timing ${ROUNDS} alternating rounds ...`,
    );
    const rounds: PeerRounds = { without: { builds: [], peers: [] }, with: { builds: [], peers: [] } };
    const order: Array<[Pair, Side]> = [
      ['without', 'build'],
      ['without', 'peer'],
      ['with', 'build'],
      ['with', 'peer'],
    ];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [pair, side] of round % 2 === 1 ? order : order.toReversed()) {
        const outDir = path.join(dir, `${side}-${pair}-r${round}`);
        settleDisk();
        const label = `${side === 'build' ? 'npm run build' : 'eleventy'} ${pair} siblings r${round}`;
        rounds[pair][side === 'build' ? 'builds' : 'peers'].push(await run(side, pair, dataDir, outDir, label));
      }
    }
    return { ...rounds, ...checked };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
