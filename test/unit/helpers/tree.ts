// Helpers shared by the unit tests that touch the file system: read a folder into a map of
// relative path → bytes, and make temp folders that are removed after each test.

import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/** Every file under `dir` (dotfiles included), by path relative to `dir` with `/`, sorted. */
export async function readTree(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  async function walk(rel: string): Promise<void> {
    const entries = await readdir(path.join(dir, rel), { withFileTypes: true });
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) await walk(child);
      else out.set(child, await readFile(path.join(dir, child)));
    }
  }
  await walk('');
  return out;
}

/** Writes `files` (path relative to `dir` with `/` → text or bytes) under `dir`, making its folders. */
export async function writeTree(dir: string, files: Readonly<Record<string, string | Buffer>>): Promise<string> {
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), content);
  }
  return dir;
}

/** The tree as text, for readable failure diffs. */
export async function readTreeText(dir: string): Promise<Record<string, string>> {
  return Object.fromEntries([...(await readTree(dir))].map(([file, bytes]) => [file, bytes.toString('utf8')]));
}

/** Registers cleanup for this test file and returns a maker of fresh temp folders. */
export function tempDirs(prefix: string): () => Promise<string> {
  const made: string[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async () => {
    const dir = await mkdtemp(path.join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}
