// The dev case: `npm run dev` on the sample data (data/), timed from saving a file to the first
// answer over HTTP that has the change. It runs in a project folder of its own under .bench/ (a
// copy of data/ and _headers, its working directory), as a user runs it.

import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { answerFrom, LAUNCHER, ROOT, sleep, startCommand, until } from './measure.ts';

const ROUNDS = 5;
const COMPANIES = 'data/company/companies.json';
/** Between rounds, so that each save meets a dev server at rest. */
const PAUSE_MS = 500;

export interface DevRound {
  /** From the start of the save to the first answer with the change, over HTTP. */
  answerMs: number;
  /** What `npm run dev` printed for the rebuild (`rebuilt in N ms`): from the change seen to the swap. */
  rebuiltMs: number;
}

/** Saves of the sample's company file, each renaming its first company. */
export async function runDevCase(benchDir: string): Promise<DevRound[]> {
  const dir = path.join(benchDir, 'dev');
  await rm(dir, { recursive: true, force: true });
  await cp(path.join(ROOT, 'data'), path.join(dir, 'data'), { recursive: true });
  await cp(path.join(ROOT, '_headers'), path.join(dir, '_headers'));
  const file = path.join(dir, COMPANIES);
  const companies = JSON.parse(await readFile(file, 'utf8')) as Array<{ name: string }>;
  const serving = /^Serving \S+ at (http:\/\/\S+)$/m;
  const dev = await startCommand(process.execPath, [LAUNCHER, 'dev', '--port', '0'], {
    cwd: dir,
    ready: (stderr) => serving.test(stderr),
    echo: 'dev',
  });
  const url = `${serving.exec(dev.stderr())?.[1]}/company/`;
  const results: DevRound[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      await sleep(PAUSE_MS);
      const marker = `(saved in round ${round})`;
      const printedBefore = dev.stderr().length;
      const saved = performance.now();
      await writeFile(file, JSON.stringify([{ ...companies[0], name: marker }, ...companies.slice(1)], null, 2));
      const answerMs = (await answerFrom(url, ({ body }) => body.includes(marker))) - saved;
      const rebuilt = await until(
        'a `rebuilt in` line',
        () => /^rebuilt in (\d+) ms/m.exec(dev.stderr().slice(printedBefore)) ?? undefined,
      );
      results.push({ answerMs, rebuiltMs: Number(rebuilt[1]) });
      console.log(`dev      r${round}: save → new answer ${Math.round(answerMs)} ms`);
    }
  } finally {
    await dev.stop();
  }
  return results;
}
