// Stage 4: write the rendered files. Everything goes to a fresh folder beside the output,
// which replaces the output only once complete: a failed build leaves the previous one as it was.

import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { mapLimited } from './map-limited.ts';

const WRITE_CONCURRENCY = 32;

export async function writeOutput(outDir: string, files: ReadonlyMap<string, string>): Promise<void> {
  const target = path.resolve(outDir);
  const stamp = `${process.pid}-${Date.now()}`;
  const staging = `${target}.tmp-${stamp}`;
  const previous = `${target}.old-${stamp}`;
  try {
    const dirs = new Set([...files.keys()].map((file) => path.dirname(path.join(staging, file))));
    for (const dir of [...dirs].sort()) await mkdir(dir, { recursive: true });
    await mapLimited([...files], WRITE_CONCURRENCY, ([file, text]) => writeFile(path.join(staging, file), text));
    const hadPrevious = await rename(target, previous).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return false;
        throw error;
      },
    );
    try {
      await rename(staging, target);
    } catch (error) {
      if (hadPrevious) await rename(previous, target);
      throw error;
    }
    if (hadPrevious) await rm(previous, { recursive: true, force: true });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
