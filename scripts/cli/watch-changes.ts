// What `npm run dev` watches, and when it acts: changes are gathered until the files have been quiet
// for a moment (an editor's save is several events), then handed over as one batch, one batch at
// a time. chokidar, not Node's own fs.watch: Node 20's recursive watch on Linux sets up each
// folder's watch after listing it, so it can miss files in a folder made just after
// (nodejs/node#48437), and it reports editors' atomic saves as several renames.

import path from 'node:path';
import { watch } from 'chokidar';
import { isJunk } from '../builder/pipeline/source-files.ts';

/**
 * How long the files must be quiet before the batch is handed over. An editor's save is several
 * events within a few ms; and chokidar passes on one change of a file per 50 ms, dropping the
 * others, so a batch handed over later than that is read after every change it dropped.
 */
const QUIET_MS = 60;

export interface Changes {
  /** What changed, named from the target it is in as the caller named it: files, and folders made or removed. */
  paths: string[];
  /** performance.now() when the first of them was seen. */
  firstSeenAt: number;
}

/**
 * Watches `targets` (folders with everything under them, and files, which need not exist yet) and
 * calls `onChanges` once they have been quiet for QUIET_MS; never while its previous call is under
 * way: what changes meanwhile makes the next batch. Resolves once every target is watched. A call
 * that fails is left to the process's handler of unhandled rejections, since it is a bug.
 */
export async function watchChanges(
  targets: readonly string[],
  onChanges: (changes: Changes) => Promise<void>,
): Promise<void> {
  const watched = targets.map((target) => path.resolve(target));
  const targetOf = (file: string) =>
    watched.findIndex((target) => file === target || file.startsWith(`${target}${path.sep}`));
  // Their folders are watched, not the targets themselves: chokidar does not see a target made
  // after it started (a settings file added later, a data folder removed and made again).
  const parents = new Set(watched.map((target) => path.dirname(target)));
  const watcher = watch([...parents], {
    ignoreInitial: true,
    ignored: (file: string) => !parents.has(file) && targetOf(file) === -1,
  });
  watcher.on('error', (error) => console.error(`watching for changes: ${(error as Error).message}`));

  let pending = new Set<string>();
  let firstSeenAt = 0;
  let quietTimer: NodeJS.Timeout | undefined;
  let running = false;
  const handOver = () => {
    quietTimer = undefined;
    if (running || pending.size === 0) return;
    const changes = { paths: [...pending], firstSeenAt };
    pending = new Set();
    running = true;
    onChanges(changes).finally(() => {
      running = false;
      // Unless changes are still arriving: then their quiet timer hands them over.
      if (quietTimer === undefined) handOver();
    });
  };
  watcher.on('all', (_event, file) => {
    const target = targetOf(file);
    // An editor's temporary file is no change: the build skips it, and its removal, which chokidar
    // reports up to 100 ms late, would otherwise make a batch of its own after the save's.
    if (target === -1 || isJunk(path.basename(file))) return;
    if (pending.size === 0) firstSeenAt = performance.now();
    pending.add(path.join(targets[target] as string, path.relative(watched[target] as string, file)));
    clearTimeout(quietTimer);
    quietTimer = setTimeout(handOver, QUIET_MS);
  });
  await new Promise<void>((ready) => watcher.once('ready', () => ready()));
}
