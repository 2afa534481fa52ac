// A side of a diff: the built output of one version of the catalogue, as its files' bytes by
// path (`company/index.json`, `_headers`, …), decoded only where the comparison needs a file's text. It comes from a folder of built output, or from the
// `public/` committed at a git revision, read from git's objects without a checkout.

import { execFile, spawn } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { PlainJson } from '../contract/json.ts';
import { isSibling } from '../shared/compress.ts';
import { RefusedInput } from '../shared/errors.ts';
import { DEFAULT_OUTPUT_FOLDER } from '../shared/folders.ts';

const run = promisify(execFile);

export interface Side {
  /** How the user named it: the folder or the revision. */
  label: string;
  /** Each file's bytes (UTF-8, half the size of a string of text beyond Latin-1) by path. */
  files: Map<string, Buffer>;
  /**
   * The settings file the side was built with (`$schema` aside), `{}` when there was none;
   * undefined where it is not known (a folder of built output).
   */
  settings?: Record<string, PlainJson>;
}

/** The label of the side built from the working tree: a description, not a name to type. */
export const WORKING_TREE = 'the working tree';

/** A side that cannot be read: not a folder, not a revision, or a revision without `public/`. */
export class SideError extends RefusedInput {}

async function isFolder(where: string): Promise<boolean> {
  try {
    return (await stat(where)).isDirectory();
  } catch {
    return false;
  }
}

async function readFolder(root: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  // A built folder holds each answer's precompressed siblings, which the review leaves out (as
  // it does where a revision committed them).
  const names = entries
    .filter((entry) => entry.isFile() && !isSibling(entry.name))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
  await Promise.all(names.map(async (name) => files.set(name, await readFile(path.join(root, name)))));
  return files;
}

/** The full commit id of `revision` in the repository at `repo`, or undefined when it names none. */
async function commitOf(repo: string, revision: string): Promise<string | undefined> {
  if (revision.startsWith('-')) return undefined;
  try {
    const { stdout } = await run('git', ['rev-parse', '--verify', '--quiet', `${revision}^{commit}`], { cwd: repo });
    return stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Every blob under `folder/` at `commit`, read in one `git cat-file --batch`. */
async function readRevision(repo: string, commit: string, folder: string): Promise<Map<string, Buffer>> {
  const { stdout } = await run('git', ['ls-tree', '-r', '-z', commit, '--', `${folder}/`], {
    cwd: repo,
    maxBuffer: 1 << 30,
  });
  const blobs: Array<[name: string, id: string]> = [];
  for (const entry of stdout.split('\0')) {
    const match = /^\d+ blob ([0-9a-f]+)\t(.*)$/s.exec(entry);
    if (match && !isSibling(match[2] as string))
      blobs.push([(match[2] as string).slice(folder.length + 1), match[1] as string]);
  }
  const files = new Map<string, Buffer>();
  if (blobs.length === 0) return files;
  const child = spawn('git', ['cat-file', '--batch'], { cwd: repo, stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.end(blobs.map(([, id]) => `${id}\n`).join(''));
  const chunks: Buffer[] = [];
  for await (const chunk of child.stdout) chunks.push(chunk as Buffer);
  const output = Buffer.concat(chunks);
  let offset = 0;
  for (const [name] of blobs) {
    const headerEnd = output.indexOf(10, offset);
    const header = output.subarray(offset, headerEnd).toString('utf8');
    const size = Number(header.split(' ')[2]);
    const start = headerEnd + 1;
    files.set(name, output.subarray(start, start + size));
    offset = start + size + 1;
  }
  return files;
}

/** A settings file's text as the review compares it: its settings without `$schema`; `{}` for none. */
export function settingsOf(text: string | undefined, shown: string): Record<string, PlainJson> {
  if (text === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SideError(`${shown} is not JSON (${(error as Error).message})`, { cause: error });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new SideError(`${shown} is not an object of settings`);
  const { $schema: _, ...settings } = parsed as Record<string, PlainJson>;
  return settings;
}

/** The text of `file` committed at `commit`; undefined when it has none. */
async function committedText(repo: string, commit: string, file: string): Promise<string | undefined> {
  try {
    const { stdout } = await run('git', ['cat-file', 'blob', `${commit}:${file}`], { cwd: repo, maxBuffer: 1 << 26 });
    return stdout;
  } catch {
    return undefined;
  }
}

/**
 * Reads a side named `spec`: a folder (relative to `cwd`), else a git revision of the repository
 * at `repo`, whose committed `folder/` is read, and with `settingsFile` (a path in the
 * repository) the settings committed beside it.
 */
export async function readSide(
  spec: string,
  repo: string,
  cwd = process.cwd(),
  folder = DEFAULT_OUTPUT_FOLDER,
  settingsFile?: string,
): Promise<Side> {
  const where = path.resolve(cwd, spec);
  if (await isFolder(where)) return { label: spec, files: await readFolder(where) };
  const commit = await commitOf(repo, spec);
  if (commit === undefined) {
    throw new SideError(`${JSON.stringify(spec)} is neither a folder nor a git revision of ${repo}`);
  }
  const files = await readRevision(repo, commit, folder);
  if (files.size === 0) throw new SideError(`revision ${spec} has no committed ${folder}/`);
  if (settingsFile === undefined) return { label: spec, files };
  const shown = `${spec}:${settingsFile}`;
  return { label: spec, files, settings: settingsOf(await committedText(repo, commit, settingsFile), shown) };
}
