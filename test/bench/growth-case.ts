// The growth case: `npm run build` (as the peer case runs it: every check and sibling kept) of the
// benchmark catalogue and of one 4 times its size, in alternating rounds, so that the cost of the
// next size is known before a user meets it. The larger catalogue is generated with every count
// multiplied; the benchmark catalogue itself is the one of every other case.

import { rm } from 'node:fs/promises';
import path from 'node:path';
import { COUNTS, type Counts, generate } from './generate.ts';
import { alternatingRounds, type CommandRun, LAUNCHER, ROOT, runCommand, settleDisk } from './measure.ts';
import { buildCommand } from './peer-case.ts';

const ROUNDS = 2;
export const GROWTH = 4;

/** The benchmark catalogue's counts, each `scale` times. */
export function scaledCounts(scale: number): Counts {
  const entries = Object.entries(COUNTS).map(([name, count]) => [name, count * scale]);
  return Object.fromEntries(entries) as unknown as Counts;
}

export interface GrowthResult {
  /** The larger catalogue's records and source bytes. */
  records: number;
  bytes: number;
  /** The build of the benchmark catalogue, and of the one GROWTH times as large, round by round. */
  single: CommandRun[];
  grown: CommandRun[];
}

const timedBuild = async (dataDir: string, outDir: string, label: string) => {
  settleDisk();
  const run = await runCommand(process.execPath, buildCommand(dataDir, outDir), { cwd: ROOT, label });
  await rm(outDir, { recursive: true, force: true });
  return run;
};

export async function runGrowthCase(benchDir: string, dataDir: string): Promise<GrowthResult> {
  const dir = path.join(benchDir, 'growth');
  await rm(dir, { recursive: true, force: true });
  const grownData = path.join(dir, `data-x${GROWTH}`);
  console.log(`growth: generating ${GROWTH} times the catalogue into ${path.relative(ROOT, grownData)}/ ...`);
  const generated = generate(grownData, scaledCounts(GROWTH));
  console.log(`  ${generated.files.length} files, ${generated.bytes} bytes, ${generated.records} records`);
  // The launcher's compilation is made before the first timed run if a source changed.
  await runCommand(process.execPath, [LAUNCHER, 'build', '--help'], { cwd: ROOT, label: 'growth: launcher ready' });
  const rounds = await alternatingRounds(
    (round) => timedBuild(grownData, path.join(dir, `x${GROWTH}-r${round}`), `build x${GROWTH} r${round}`),
    (round) => timedBuild(dataDir, path.join(dir, `x1-r${round}`), `build x1 r${round}`),
    ROUNDS,
  );
  await rm(dir, { recursive: true, force: true });
  return { records: generated.records, bytes: generated.bytes, single: rounds.baselines, grown: rounds.runs };
}
