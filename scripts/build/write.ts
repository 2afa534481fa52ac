// Stage 4: write the rendered files. Everything goes to a fresh folder beside the output,
// which replaces the output only once complete: a failed build leaves the previous one as it was.

import { writeFile as writeFileWithCallback } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { mapLimited } from './map-limited.ts';

const WRITE_CONCURRENCY = 32;
// The callback API, promisified: fs/promises' writeFile opens a FileHandle for each file, which
// costs about twice the CPU time per file.
const writeFile = promisify(writeFileWithCallback);

/** Writes `files` (path → text) as the new content of `outDir`. */
export async function writeOutput(outDir: string, files: ReadonlyMap<string, string>): Promise<void> {
  const output = path.resolve(outDir);
  const stamp = `${process.pid}-${Date.now()}`;
  const staging = `${output}.tmp-${stamp}`;
  const previous = `${output}.old-${stamp}`;
  try {
    await mkdir(staging, { recursive: true });
    const dirs = new Map<string, Promise<unknown>>();
    await mapLimited([...files], WRITE_CONCURRENCY, async ([file, text]) => {
      const destination = path.join(staging, file);
      const dir = path.dirname(destination);
      if (!dirs.has(dir)) dirs.set(dir, mkdir(dir, { recursive: true }));
      await dirs.get(dir);
      await writeFile(destination, text);
    });
    const hadPrevious = await rename(output, previous).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return false;
        throw error;
      },
    );
    try {
      await rename(staging, output);
    } catch (error) {
      if (hadPrevious) await rename(previous, output);
      throw error;
    }
    if (hadPrevious) await rm(previous, { recursive: true, force: true });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
