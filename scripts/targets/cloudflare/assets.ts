// What Cloudflare's static assets (Workers and Pages) upload from the output folder. They refuse
// any file over 25 MiB (wrangler stops with "Asset too large"), and a company list grows past that
// long before the other targets mind. So the output also holds every such file as parts that fit
// (shared/parts.ts), the worker joins them, and `.assetsignore` keeps the whole file out of the
// upload: wrangler reads it for Workers, the cloudflare-pages recipe removes what it lists. The
// big file stays in the output for every other target, which is why this is written whichever
// targets are selected.

import { createHash } from 'node:crypto';
import { manifestFile, PART_BYTES, PARTS_FOLDER, type PartsManifest, partFile } from '../../shared/parts.ts';

/** Cloudflare's largest asset: Workers and Pages alike (wrangler's MAX_ASSET_SIZE). */
export const MAX_ASSET_BYTES = 25 * 1024 * 1024;

/** Read by wrangler from the root of the assets folder, in .gitignore syntax. */
export const ASSETS_IGNORE_FILE = '.assetsignore';

/**
 * Left out of every Cloudflare upload besides the files in parts: the precompressed siblings
 * (the worker answers from the files themselves, and the edge compresses).
 */
const ALWAYS_IGNORED = ['*.br', '*.gz'];

/** Whether the units at `index - 1` and `index` are a surrogate pair, which no part may split. */
function splitsPair(text: string, index: number): boolean {
  return (text.charCodeAt(index - 1) & 0xfc00) === 0xd800 && (text.charCodeAt(index) & 0xfc00) === 0xdc00;
}

/**
 * Where the part that starts at `start` ends: as many whole characters as PART_BYTES holds. The
 * bytes are counted by Buffer.byteLength over spans that halve, not character by character: a
 * list is tens of millions of characters, and a loop over them cost a build half a second.
 */
function partEnd(text: string, start: number): [end: number, bytes: number] {
  let end = start;
  let bytes = 0;
  for (let step = PART_BYTES; step >= 1 && end < text.length; ) {
    let next = Math.min(text.length, end + step);
    // Never between the two units of a pair: one fewer, or both when the span is one unit.
    if (next < text.length && splitsPair(text, next)) next += next - end > 1 ? -1 : 1;
    // A lone surrogate counts 3 bytes, as U+FFFD, as Buffer and the writer write it.
    const more = Buffer.byteLength(text.slice(end, next));
    if (bytes + more <= PART_BYTES) {
      bytes += more;
      end = next;
    } else step >>= 1;
  }
  return [end, bytes];
}

/**
 * The manifest and parts of one file's text: parts of at most PART_BYTES that end between
 * characters, so each is a string of its own and the parts' bytes joined are the file's. They are
 * slices of the text, not copies of its bytes: V8 keeps a slice as a reference into the text it
 * was cut from, so the parts cost the build almost no memory.
 */
function split(file: string, text: string): [string, string][] {
  const parts: string[] = [];
  const sizes: number[] = [];
  const hash = createHash('sha256');
  for (let start = 0; start < text.length; ) {
    const [end, bytes] = partEnd(text, start);
    const part = text.slice(start, end);
    parts.push(part);
    sizes.push(bytes);
    hash.update(part, 'utf8');
    start = end;
  }
  const manifest: PartsManifest = {
    bytes: sizes.reduce((sum, size) => sum + size, 0),
    sha256: hash.digest('hex'),
    parts: sizes,
  };
  return [
    [manifestFile(file), `${JSON.stringify(manifest)}\n`],
    ...parts.map((part, index): [string, string] => [partFile(file, index + 1), part]),
  ];
}

function assetsIgnore(whole: readonly string[]): string {
  const lines = [
    '# Written by npm run build: the files of this folder that Cloudflare must not upload. wrangler',
    '# reads it for Workers; the cloudflare-pages recipe removes the same files from its copy.',
    `# Each over ${MAX_ASSET_BYTES / 1024 / 1024} MiB, the largest asset: the worker sends it from its parts in ${PARTS_FOLDER}/.`,
    ...whole.map((file) => `/${file}`),
    '# Precompressed copies: the worker answers from the files themselves.',
    ...ALWAYS_IGNORED,
  ];
  return `${lines.join('\n')}\n`;
}

/** The parts of every file over MAX_ASSET_BYTES, and the `.assetsignore` that leaves those files out. */
export function assetFiles(output: ReadonlyMap<string, string>): Map<string, string> {
  const files = new Map<string, string>();
  const whole: string[] = [];
  for (const [file, text] of [...output].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    // A string's UTF-8 size is at most 3 bytes per UTF-16 unit: most files need no count.
    if (text.length * 3 <= MAX_ASSET_BYTES || Buffer.byteLength(text) <= MAX_ASSET_BYTES) continue;
    whole.push(file);
    for (const [part, partText] of split(file, text)) files.set(part, partText);
  }
  files.set(ASSETS_IGNORE_FILE, assetsIgnore(whole));
  return files;
}

/**
 * The files of the output that a Cloudflare upload keeps, with their sizes. `code`: the targets
 * with the worker, which upload the parts and not the files they make up. `static`:
 * cloudflare-pages-static, whose recipe uploads the output as it is, less the parts, which it has
 * no code to join. Neither uploads `.assetsignore`, precompressed copies, or the `_redirects` and
 * `_headers` that wrangler reads as configuration (Pages counts neither as a file).
 */
export function uploadedFiles(sizes: ReadonlyMap<string, number>, kind: 'code' | 'static'): Map<string, number> {
  const inParts = (file: string) => kind === 'code' && sizes.has(manifestFile(file));
  const kept = ([file]: [string, number]) =>
    file !== ASSETS_IGNORE_FILE &&
    file !== '_redirects' &&
    file !== '_headers' &&
    !file.endsWith('.br') &&
    !file.endsWith('.gz') &&
    !(kind === 'static' && file.startsWith(`${PARTS_FOLDER}/`)) &&
    !inParts(file);
  return new Map([...sizes].filter(kept));
}
