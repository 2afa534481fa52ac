// A file too large for a store that limits the size of each file (Cloudflare's static assets: 25
// MiB) is also kept as parts that each fit, plus a small manifest; a reader that finds the file
// missing joins the parts in order. The layout is shared by the writer (targets/cloudflare/) and
// the reader (respond/cloudflare-worker.ts), and lives under a folder no route of the API reaches.

/** Where the parts and manifests go, inside the output folder. */
export const PARTS_FOLDER = '_parts';

/** The size of every part but the last: under 20 MiB, where the build starts warning of Cloudflare's 25 MiB. */
export const PART_BYTES = 16 * 1024 * 1024;

/** What a reader needs to send the whole file without holding it. */
export interface PartsManifest {
  /** The whole file's size in bytes: the sum of `parts`. */
  bytes: number;
  /** The whole file's sha256 in hex: its entity tag, the same in every answer. */
  sha256: string;
  /** Each part's size in bytes, in order; part n (from 1) is partFile(file, n). */
  parts: number[];
}

/** The manifest of `file` (a path of the output folder): `_parts/company/index.json`. */
export function manifestFile(file: string): string {
  return `${PARTS_FOLDER}/${file}`;
}

/** Part `n` (from 1) of `file`: `_parts/company/index.json.1`. */
export function partFile(file: string, n: number): string {
  return `${PARTS_FOLDER}/${file}.${n}`;
}

/** Reads a manifest's text, refusing one that does not add up (a part missing from the build). */
export function parseManifest(text: string): PartsManifest {
  const value = JSON.parse(text) as Partial<PartsManifest>;
  const { bytes, sha256, parts } = value;
  const valid =
    typeof bytes === 'number' &&
    typeof sha256 === 'string' &&
    /^[0-9a-f]{64}$/.test(sha256) &&
    Array.isArray(parts) &&
    parts.length > 0 &&
    parts.every((size) => Number.isSafeInteger(size) && size > 0) &&
    parts.reduce((sum, size) => sum + size, 0) === bytes;
  if (!valid) throw new Error('a parts manifest that does not add up');
  return { bytes, sha256, parts };
}
