// Finds the source files: `data/<resource>/**\/*.json` (fast-glob), read strictly. A symbolic link is
// followed only when it stays inside the data folder; a FIFO, socket or device is refused without
// being opened (opening a FIFO would wait forever); files the system or an editor leaves behind
// are skipped with a warning; any other file is an error, since it would silently be ignored.

import { Stats } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import fg, { type Entry } from 'fast-glob';
import { compareStrings } from '../../contract/ordering.ts';
import { errnoText } from '../../shared/errors.ts';
import type { DataError } from './errors.ts';

/** A source file and the resource its folder names. */
export interface Source {
  resource: string;
  file: string;
}

export interface FoundSources {
  sources: Source[];
  errors: DataError[];
  /** Files skipped because nobody means them as data (`.DS_Store`, editor backups). */
  warnings: DataError[];
  /** Resources with a file that cannot be read (a link out, a loop, a FIFO): their records are incomplete. */
  incomplete: Set<string>;
}

const foldersOf = (names: readonly string[]) => names.map((name) => `${name}/`).join(', ');

/**
 * Files the system or an editor makes next to the data: macOS, Windows, Emacs, Vim, backups; and
 * the temporary files of a save, there for an instant: GNU `sed -i`'s `sedXXXXXX`, Vim's `4913`
 * (made to test the folder), JetBrains' `___jb_tmp___` and `___jb_old___`, gedit's `.goutputstream-`.
 */
const JUNK = [
  /^\.DS_Store$/,
  /^\._/,
  /^Thumbs\.db$/i,
  /^desktop\.ini$/i,
  /~$/,
  /^\..*\.sw[a-p]$/,
  /^#.*#$/,
  /^\.#/,
  /^sed[A-Za-z0-9]{6}$/,
  /^4913$/,
  /___jb_(?:tmp|old)___$/,
  /^\.goutputstream-/,
];

/** Whether a file named `name` is one of those: never source data, whatever its folder. */
export function isJunk(name: string): boolean {
  return JUNK.some((pattern) => pattern.test(name));
}

/** What `stat()` and fast-glob's entries both tell of a file's kind. */
type FileKind = Pick<Stats, 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice'>;

function kindOf(stats: FileKind): string | null {
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return null;
}

function isInside(root: string, target: string): boolean {
  return target === root || target.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/** A file found by the walk: its path relative to the data folder. */
interface Found {
  entry: string;
  /** An error about it instead of reading it. */
  error?: string;
}

/**
 * Walks the data folder with fast-glob, which follows no link: each link is checked here, and a
 * folder it leads to inside the data folder is walked in turn, unless it is one of the folders
 * the link sits in (a loop, reported once, at the link).
 */
async function walk(
  dataDir: string,
  root: string,
): Promise<{ files: Found[]; warnings: DataError[]; errors: DataError[] }> {
  const files: Found[] = [];
  const warnings: DataError[] = [];
  const errors: DataError[] = [];
  // Each folder to walk, with the real paths of the folders it was reached through (for loops).
  const queue: { entry: string; real: string; above: readonly string[] }[] = [{ entry: '', real: root, above: [] }];
  while (queue.length > 0) {
    const folder = queue.pop() as (typeof queue)[number];
    let entries: Entry[];
    try {
      entries = await fg('**', {
        cwd: path.join(dataDir, folder.entry),
        dot: true,
        onlyFiles: false,
        followSymbolicLinks: false,
        objectMode: true,
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      const where = (error as NodeJS.ErrnoException).path ?? path.join(dataDir, folder.entry);
      errors.push({ file: where, pointer: '', message: `expected a readable folder, got ${code}` });
      continue;
    }
    for (const { path: relative, name, dirent } of entries) {
      // fast-glob walks into folders itself; only what they hold is looked at.
      if (dirent.isDirectory()) continue;
      const entry = folder.entry === '' ? relative : `${folder.entry}/${relative}`;
      const file = path.join(dataDir, entry);
      if (isJunk(name)) {
        warnings.push({ file, pointer: '', message: 'skipped: a file the system or an editor makes, not source data' });
        continue;
      }
      if (dirent.isFile()) {
        files.push({ entry });
        continue;
      }
      if (!dirent.isSymbolicLink()) {
        files.push({ entry, error: `${kindOf(dirent) ?? 'not a regular file'} is not source data: remove it` });
        continue;
      }
      // A symbolic link: only to a file or folder inside the data folder.
      let target: string;
      let stats: Stats;
      try {
        target = await realpath(file);
        stats = await stat(target);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ELOOP') {
          files.push({ entry, error: 'a symbolic link loop (the link leads back to itself): remove or fix the link' });
        } else if (code === 'ENOENT') {
          // As before: a broken link is a file that cannot be read.
          files.push({ entry, error: 'expected a readable file, got ENOENT' });
        } else {
          files.push({
            entry,
            error: `a symbolic link that cannot be followed (${code ?? (error as Error).message}): fix the link`,
          });
        }
        continue;
      }
      // No link was followed within this walk, so the link's folder is really where it seems.
      const linkFolder = path.join(folder.real, path.dirname(relative));
      if (!isInside(root, target)) {
        files.push({
          entry,
          error: `a symbolic link to ${target}, outside the data folder: copy the file into the data folder instead`,
        });
      } else if (stats.isDirectory()) {
        if (isInside(target, linkFolder) || folder.above.some((above) => isInside(target, above))) {
          files.push({ entry, error: 'a symbolic link loop (the link leads to a folder above it): remove the link' });
        } else queue.push({ entry, real: target, above: [...folder.above, linkFolder] });
      } else if (stats.isFile()) {
        files.push({ entry });
      } else {
        files.push({
          entry,
          error: `a symbolic link to ${kindOf(stats) ?? 'something'}, which is not source data: remove it`,
        });
      }
    }
  }
  return { files, warnings, errors };
}

/**
 * The problem of a data folder that holds no record at all, and no file that failed to load:
 * its build would replace the API with empty lists, which a mistyped or emptied folder must not
 * do unless the user says so. One list without a record among others is fine, as DRF answers it.
 */
export function noRecordProblem(
  dataDir: string,
  names: readonly string[],
  records: number,
  loadErrors: readonly DataError[],
  allowEmpty = false,
): DataError[] {
  if (records > 0 || loadErrors.length > 0 || allowEmpty) return [];
  const message =
    `no record in any of the folders ${foldersOf(names)}, which would build an API of empty lists; ` +
    'add records, or give --allow-empty (or "allowEmpty": true in the settings file) if that is what is meant';
  return [{ file: dataDir, pointer: '', message }];
}

/** When the folder holds no resource folder but its `data/` does, that is the folder meant. */
async function meantInstead(dataDir: string, known: ReadonlySet<string>): Promise<string | null> {
  const here = await readdir(dataDir).catch(() => [] as string[]);
  if (here.some((name) => known.has(name))) return null;
  const inner = path.join(dataDir, 'data');
  const below = await readdir(inner).catch(() => [] as string[]);
  return below.some((name) => known.has(name)) ? inner : null;
}

/**
 * Lists `data/<resource>/**\/*.json` in path order (so a catalogue split over many files has a
 * stable order), with an error for every other file and a warning for every skipped one.
 */
export async function findSources(dataDir: string, names: readonly string[]): Promise<FoundSources> {
  const folders = foldersOf(names);
  const known = new Set(names);
  const stray = `expected only .json files in the folders ${folders}`;
  const errors: DataError[] = [];
  const folder = await stat(dataDir).catch((error: NodeJS.ErrnoException) => error);
  if (!(folder instanceof Stats && folder.isDirectory())) {
    // Building nothing would replace the API with empty lists: a mistyped --data must fail.
    const message =
      folder instanceof Stats
        ? 'a file, expected a folder holding the source data'
        : folder.code === 'ENOENT'
          ? 'the data folder does not exist'
          : `cannot read the data folder: ${errnoText(folder.code ?? '') ?? folder.message}`;
    errors.push({ file: dataDir, pointer: '', message });
    return { sources: [], errors, warnings: [], incomplete: new Set() };
  }
  const meant = await meantInstead(dataDir, known);
  if (meant) {
    const message = `expected the folders ${folders} here, but they are in ${meant}: use --data ${meant}`;
    return { sources: [], errors: [{ file: dataDir, pointer: '', message }], warnings: [], incomplete: new Set() };
  }
  const root = await realpath(dataDir);
  const found = await walk(dataDir, root);
  found.files.sort((a, b) => compareStrings(a.entry, b.entry));
  found.warnings.sort((a, b) => compareStrings(a.file, b.file));
  errors.push(...found.errors);
  const sources: Source[] = [];
  const incomplete = new Set<string>();
  for (const { entry, error } of found.files) {
    const file = path.join(dataDir, entry);
    const topFolder = entry.split('/')[0] ?? '';
    if (error) {
      errors.push({ file, pointer: '', message: error });
      if (entry.includes('/') && known.has(topFolder)) incomplete.add(topFolder);
    } else if (entry.endsWith('.json') && entry.includes('/') && known.has(topFolder)) {
      sources.push({ resource: topFolder, file });
    } else errors.push({ file, pointer: '', message: stray });
  }
  return { sources, errors, warnings: found.warnings, incomplete };
}
