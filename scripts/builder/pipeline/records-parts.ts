// The records a server with code answers a filter, a search or an ordering from, written by the
// build for each resource whose settings ask for them: the list's records in its default order,
// in parts small enough that an answer reads one part at a time (a Cloudflare worker has 128 MB
// for a list of any size), and a manifest with what the answer needs besides them.

import { encodePlain } from '../../contract/json.ts';
import {
  PART_BYTES,
  partText,
  RECORDS_PER_PART,
  type RecordsManifest,
  recordsManifestFile,
  recordsPartFile,
} from '../../contract/query.ts';
import { RESOURCES } from '../../contract/resources/index.ts';
import type { Resource } from '../../contract/resources/resource.ts';
import { type Prepared, type RenderSettings, recordEncoder, sortedOf } from './render.ts';
import { type Catalogue, recordsOf } from './validate.ts';

/** Texts in parts of at most RECORDS_PER_PART texts and PART_BYTES bytes (a longer text alone). */
export function splitParts(texts: readonly string[]): string[][] {
  const parts: string[][] = [];
  let part: string[] = [];
  let bytes = 0;
  for (const text of texts) {
    const size = Buffer.byteLength(text) + 2;
    if (part.length > 0 && (part.length === RECORDS_PER_PART || bytes + size > PART_BYTES)) {
      parts.push(part);
      part = [];
      bytes = 0;
    }
    part.push(text);
    bytes += size;
  }
  if (part.length > 0) parts.push(part);
  return parts;
}

/** `_records/<resource>/index.json` and its parts `1.json`..., for each resource with settings. */
export function recordsParts(
  catalogue: Catalogue,
  settings: RenderSettings,
  resources: readonly Resource[] = RESOURCES,
  prepared: Prepared = {},
): Map<string, string> {
  const files = new Map<string, string>();
  for (const resource of resources) {
    if (resource.query === undefined) continue;
    const records =
      prepared.sorted?.get(resource.name) ?? sortedOf(resource, recordsOf(catalogue, resource.name) as object[]);
    const encodeOne = recordEncoder(resource, catalogue, prepared);
    const parts = splitParts(records.map(encodeOne));
    for (const [index, part] of parts.entries()) files.set(recordsPartFile(resource.name, index + 1), partText(part));
    const manifest: RecordsManifest = {
      count: records.length,
      parts: parts.length,
      pageSize: settings.pageSize,
      baseUrl: settings.baseUrl,
      query: resource.query,
    };
    files.set(recordsManifestFile(resource.name), `${encodePlain(manifest as never)}\n`);
  }
  return files;
}
