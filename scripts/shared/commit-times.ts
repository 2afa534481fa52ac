// The modification time of a written file, when the output folder is committed: nginx, Caddy and
// Apache make ETag and Last-Modified of it. A fresh clone (CI) has no output of its own to carry
// over, only the committed one, checked out at the clone's moment; so that two deploys of two
// commits agree, the time is read from the history: a file whose bytes are those committed at
// HEAD gets the time of the last commit that changed its path (write.ts writes it anew when the
// current file has another time). One fixed time for every file would let an edit that keeps the
// size keep the ETag too.
//
// The commits are those of HEAD's first-parent chain, merges compared with their first parent:
// a change arrives there when it is merged, and a branch's own commit may be older than the
// deploy before the merge. Their times are made strictly increasing along that chain (each at
// least one second after the one before), so a clock set back or two commits in one second never
// give a changed answer a time that is not newer: Apache answers If-Modified-Since with 304 when
// the file is not newer. The adjustment depends only on the history, so every clone agrees.
//
// A file whose bytes differ from HEAD's (an uncommitted change), or that git does not track,
// keeps the time of its writing, newer than any commit. Outside a git work tree, without git, or
// with an untracked output folder, nothing changes. A shallow clone sees only part of the
// history: its oldest commit stands for all before it (a deploy should fetch the whole history).

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * git in the folder `cwd`, or undefined where git is missing or refuses. The variables that name
 * a repository are dropped (a git hook sets them): the history is that of the output's folder.
 */
async function git(cwd: string, args: string[]): Promise<string | undefined> {
  const env = { ...process.env };
  for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_PREFIX', 'GIT_COMMON_DIR']) delete env[name];
  try {
    const { stdout } = await run('git', args, { cwd, env, maxBuffer: 1 << 30, encoding: 'utf8' });
    return stdout;
  } catch {
    return undefined;
  }
}

/** Each path → the adjusted time (s) of the last first-parent commit that changed it. */
function lastChanges(log: string): Map<string, number> {
  // `git log -z --format=%x01%ct --name-only`: "\x01<time>\0\n<path>\0<path>\0…", newest first.
  const commits: Array<{ time: number; paths: string[] }> = [];
  for (const token of log.split('\0')) {
    if (token.startsWith('\x01')) commits.push({ time: Number(token.slice(1)), paths: [] });
    else if (token !== '') commits.at(-1)?.paths.push(token.replace(/^\n/, ''));
  }
  const changed = new Map<string, number>();
  let previous = Number.NEGATIVE_INFINITY;
  for (const commit of commits.reverse()) {
    previous = Math.max(commit.time, previous + 1);
    for (const file of commit.paths) changed.set(file, previous);
  }
  return changed;
}

/** The time (s) a file of the output is to have, when its bytes are those committed at HEAD. */
export type CommitTime = (file: string, bytes: Buffer) => number | undefined;

/** The times of a subfolder's files, from those read for the folder holding it. */
export function subfolderTimes(ofFolder: CommitTime, subfolder: string): CommitTime {
  return (file, bytes) => ofFolder(`${subfolder}/${file}`, bytes);
}

/**
 * The real path of `folder`, present or not: that of its nearest existing folder with the rest
 * appended (git names the work tree by its real path, and a temporary folder may be behind a
 * symlink), and that existing folder, where git runs; so the times read before a build writes
 * its first folder are those read after. Undefined when no part of it exists.
 */
async function realFolder(folder: string): Promise<{ real: string; existing: string } | undefined> {
  const missing: string[] = [];
  for (let at = folder; ; at = path.dirname(at)) {
    const real = await realpath(at).catch(() => undefined);
    if (real !== undefined) return { real: path.join(real, ...missing.reverse()), existing: real };
    if (path.dirname(at) === at) return undefined;
    missing.push(path.basename(at));
  }
}

/**
 * The commit times of the files of each of `outputs` (folders, present or not) as committed at
 * HEAD; for each, undefined outside a git work tree, without git, or when HEAD holds no file under
 * it (or no folder is given). Folders in one place share the look-up of their work tree: a build
 * reads its output's, its targets' and its schemas' together.
 */
export function readCommitTimesOf(outputs: ReadonlyArray<string | undefined>): Promise<CommitTime | undefined>[] {
  const tops = new Map<string, Promise<string | undefined>>();
  const topOf = (existing: string) => {
    let top = tops.get(existing);
    if (top === undefined) {
      top = git(existing, ['rev-parse', '--show-toplevel']).then((text) => text?.trim() || undefined);
      tops.set(existing, top);
    }
    return top;
  };
  return outputs.map(async (output) => {
    if (output === undefined) return undefined;
    const parent = await realFolder(path.dirname(output));
    if (parent === undefined) return undefined;
    const top = await topOf(parent.existing);
    return top === undefined ? undefined : readFolderTimes(top, path.join(parent.real, path.basename(output)));
  });
}

/** The commit times of the files of one output (readCommitTimesOf). */
export function readCommitTimes(output: string): Promise<CommitTime | undefined> {
  return readCommitTimesOf([output])[0] as Promise<CommitTime | undefined>;
}

/** The commit times of the files under the real path `output` of the work tree `top`. */
async function readFolderTimes(top: string, output: string): Promise<CommitTime | undefined> {
  const folder = path.relative(top, output).split(path.sep).join('/');
  if (folder === '' || folder.startsWith('..')) return undefined;
  const tree = await git(top, ['ls-tree', '-r', '-z', '--full-tree', 'HEAD', '--', `${folder}/`]);
  const committed = new Map<string, string>();
  for (const entry of tree?.split('\0') ?? []) {
    // Regular files only: a symlink's blob is its target, a submodule is no file.
    const match = /^100\d{3} blob ([0-9a-f]+)\t(.*)$/s.exec(entry);
    if (match) committed.set((match[2] as string).slice(folder.length + 1), match[1] as string);
  }
  if (committed.size === 0) return undefined;
  const log = await git(top, [
    'log',
    '-z',
    '--first-parent',
    '--diff-merges=first-parent',
    '--no-renames',
    '--format=%x01%ct',
    '--name-only',
    'HEAD',
    '--',
    `${folder}/`,
  ]);
  if (log === undefined) return undefined;
  const changed = lastChanges(log);
  const algorithm = (committed.values().next().value as string).length === 64 ? 'sha256' : 'sha1';
  return (file, bytes) => {
    const id = committed.get(file);
    if (id === undefined) return undefined;
    // The id git gives a blob of these bytes: equal to HEAD's without reading HEAD's.
    const same = createHash(algorithm).update(`blob ${bytes.length}\0`).update(bytes).digest('hex') === id;
    return same ? changed.get(`${folder}/${file}`) : undefined;
  };
}
