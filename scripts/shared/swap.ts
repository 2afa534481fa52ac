// How a finished folder replaces the output, and how the next build recovers from one that was
// killed. The files are written into <out>.tmp-<pid>-<time>-<n>; once complete it is exchanged
// with <out> in one atomic step where the system can (exchange.ts: Linux), and the previous
// output, now under the .tmp- name, is removed. <out> is then at every moment the complete
// previous output or the complete new one.
//
// Elsewhere the swap is three renames, each atomic:
//
//   <out>.tmp-…  being written, or a previous output being removed; never restored
//   <out>.new-…  renamed from .tmp- once complete: the complete new output
//   <out>.old-…  the previous output, moved aside just before .new- becomes <out>
//
// There <out> is missing for an instant between the last two renames, with both complete
// folders beside it. `recoverOutput` (run first by every build) puts the newest complete one
// back and removes the leftovers; the local server answers from them meanwhile.

import { readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';

export type LeftoverKind = 'tmp' | 'new' | 'old';

export interface Leftover {
  kind: LeftoverKind;
  path: string;
  pid: number;
  /** Order of creation: the time of the build's start (ms), then its count of writes. */
  time: number;
  count: number;
}

let counter = 0;

/** A name suffix unique to this process and call: `<pid>-<time>-<counter>`. */
export function swapStamp(): string {
  counter += 1;
  return `${process.pid}-${Date.now()}-${counter}`;
}

export function siblingPath(output: string, kind: LeftoverKind, stamp: string): string {
  return `${output}.${kind}-${stamp}`;
}

/** The `.tmp-`, `.new-` and `.old-` folders beside `output`, newest first. */
async function listLeftovers(output: string): Promise<Leftover[]> {
  const parent = path.dirname(output);
  const base = path.basename(output);
  const names = await readdir(parent).catch(() => [] as string[]);
  const found: Leftover[] = [];
  for (const name of names) {
    if (!name.startsWith(`${base}.`)) continue;
    const match = /^(tmp|new|old)-(\d+)-(\d+)(?:-(\d+))?$/.exec(name.slice(base.length + 1));
    if (!match) continue;
    found.push({
      kind: match[1] as LeftoverKind,
      path: path.join(parent, name),
      pid: Number(match[2]),
      time: Number(match[3]),
      count: Number(match[4] ?? 0),
    });
  }
  return found.sort((a, b) => b.time - a.time || b.count - a.count);
}

/** The newest complete output among `leftovers` (newest first): a `.new-` folder, else an `.old-` one. */
function newestComplete(leftovers: readonly Leftover[]): Leftover | undefined {
  return leftovers.find((leftover) => leftover.kind === 'new') ?? leftovers.find((leftover) => leftover.kind === 'old');
}

/**
 * A complete output beside `output`, for a reader to answer from while a swap has `output`
 * missing for an instant; undefined when there is none.
 */
export async function completeBeside(output: string): Promise<string | undefined> {
  return newestComplete(await listLeftovers(output))?.path;
}

/** Whether another running process made this leftover: its swap is still under way, leave it. */
function ownedByLiveProcess(leftover: Leftover): boolean {
  if (leftover.pid === process.pid) return false;
  try {
    process.kill(leftover.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function exists(file: string): Promise<boolean> {
  return readdir(file).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code !== 'ENOENT',
  );
}

/**
 * Repairs what a killed build left beside `output`: when `output` is missing, the newest complete
 * `.new-` folder becomes it (else the newest `.old-`); then every leftover of a process that is no
 * longer running is removed. Returns what it restored, if anything.
 */
export async function recoverOutput(output: string): Promise<string | undefined> {
  const leftovers = (await listLeftovers(output)).filter((leftover) => !ownedByLiveProcess(leftover));
  let restored: string | undefined;
  if (!(await exists(output))) {
    const complete = newestComplete(leftovers);
    if (complete) {
      await rename(complete.path, output);
      restored = complete.path;
    }
  }
  for (const leftover of leftovers) {
    if (leftover.path !== restored) await rm(leftover.path, { recursive: true, force: true });
  }
  return restored;
}
