// What Cloudflare's static assets (Workers and Pages) upload from the output folder. They refuse
// any file over 25 MiB (wrangler stops with "Asset too large"), and a company list grows past that
// long before the other targets mind. So the output also holds every such file as parts that fit
// (respond/cloudflare-parts.ts), the worker joins them, and `.assetsignore` keeps the whole file out of the
// upload: wrangler reads it for Workers, the cloudflare-pages recipe removes what it lists. The
// big file stays in the output for every other target, which is why this is written whichever
// targets are selected.

import { createHash } from 'node:crypto';
import {
  manifestFile,
  PART_BYTES,
  PARTS_FOLDER,
  type PartsManifest,
  partFile,
} from '../../respond/cloudflare-parts.ts';
import { bytesOf, type FileBody, sizeOf } from '../../shared/file-body.ts';

/** Cloudflare's largest asset: Workers and Pages alike (wrangler's MAX_ASSET_SIZE). */
export const MAX_ASSET_BYTES = 25 * 1024 * 1024;

/** Read by wrangler from the root of the assets folder, in .gitignore syntax. */
export const ASSETS_IGNORE_FILE = '.assetsignore';

/**
 * Left out of every Cloudflare upload besides the files in parts: the precompressed siblings
 * (the worker answers from the files themselves, and the edge compresses).
 */
const ALWAYS_IGNORED = ['*.br', '*.gz'];

/** Whether `byte` continues a UTF-8 character rather than starting one (10xxxxxx). */
const continues = (byte: number) => (byte & 0xc0) === 0x80;

/**
 * The manifest and parts of one file's bytes (its text encoded once, a lone surrogate as U+FFFD,
 * as the writer writes it), cut into parts of at most PART_BYTES that end between characters. Each part
 * is a view of those bytes, not a copy.
 */
function split(file: string, bytes: Buffer): [string, FileBody][] {
  const parts: Buffer[] = [];
  for (let start = 0; start < bytes.length; ) {
    let end = Math.min(bytes.length, start + PART_BYTES);
    while (end < bytes.length && continues(bytes[end] as number)) end--;
    parts.push(bytes.subarray(start, end));
    start = end;
  }
  const manifest: PartsManifest = {
    bytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    parts: parts.map((part) => part.length),
  };
  return [
    [manifestFile(file), `${JSON.stringify(manifest)}\n`],
    ...parts.map((part, index): [string, FileBody] => [partFile(file, index + 1), part]),
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

/**
 * The parts of every file over MAX_ASSET_BYTES, and the `.assetsignore` that leaves those files
 * out. Each such file comes back as the bytes its parts are views of, in place of its text: a
 * file in parts is encoded once for its hash, its parts and itself (each encoding of a 43 MB list
 * cost a build a quarter of a second).
 */
export function assetFiles(output: ReadonlyMap<string, FileBody>): Map<string, FileBody> {
  const files = new Map<string, FileBody>();
  const whole: string[] = [];
  for (const [file, body] of [...output].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    // A string's UTF-8 size is at most 3 bytes per UTF-16 unit: most files need no count.
    const small = typeof body === 'string' && body.length * 3 <= MAX_ASSET_BYTES;
    if (small || sizeOf(body) <= MAX_ASSET_BYTES) continue;
    whole.push(file);
    const bytes = bytesOf(body);
    files.set(file, bytes);
    for (const [part, partBody] of split(file, bytes)) files.set(part, partBody);
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
