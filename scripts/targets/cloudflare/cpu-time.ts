// The CPU time the worker spends answering a list's filter, search or ordering, estimated from what
// the build knows, against Cloudflare's limit per request: Workers Free 10 ms, Paid 30 s by
// default and up to 5 minutes with `limits.cpu_ms`. Past it Cloudflare fails the request (error
// 1102), and `wrangler dev` does not enforce it, so only the build can say so before a deploy.
//
// What an answer costs (store/select.ts): the columns it reads, decoded and searched, then every
// part that holds one of its records, scanned for their lines. A filter's or a search's matches
// may lie in every part and the answer may be most of the list, so the estimate counts every part
// and the worst rate measured: what a value or a term that matches most of the list costs. An
// ordering by several fields of a list whose declaration has ordering fields (the events) is
// sorted in memory by the handler, at a rate of its own. The bench's edge case (`npm run bench --
// --case edge`, docs/performance.md) measures the worker's own CPU time per request.

import { fileFor, type Routed } from '../../contract/routes.ts';
import { rankColumn, recordsColumnFile, recordsPartFile, upperColumn, valueColumn } from '../../store/format.ts';

/**
 * The worker's CPU time per MiB of columns and parts an answer reads: a search matching most of
 * the 4× benchmark catalogue's companies took 1.0 s for 170 MiB, 5.9 ms a MiB (a narrow filter or
 * search 0.3 to 0.9).
 */
export const MS_PER_MIB = 6;
/** Per MiB of the list an ordering by several fields parses and sorts: 605 ms for the 4× catalogue's 8.2 MiB of events. */
export const SORT_MS_PER_MIB = 75;
/** What any request costs besides: routing, the headers, the manifest. */
export const FIXED_MS = 1;

const MIB = 1024 * 1024;

/** Each list's filter, search and ordering estimate: the request kind, as the user writes it, and its CPU time. */
export interface CpuEstimate {
  list: string;
  request: string;
  ms: number;
}

/** The bytes of the files under `prefix` whose name ends with `suffix`. */
function bytesUnder(sizes: ReadonlyMap<string, number>, prefix: string, suffix: string): number {
  let bytes = 0;
  for (const [file, size] of sizes) if (file.startsWith(prefix) && file.endsWith(suffix)) bytes += size;
  return bytes;
}

/** The CPU time (ms) of each kind of request each list with settings answers at request time. */
export function cpuEstimates(sizes: ReadonlyMap<string, number>, resources: readonly Routed[]): CpuEstimate[] {
  const estimates: CpuEstimate[] = [];
  for (const resource of resources) {
    const listBytes = sizes.get(fileFor(resource.path, {})) ?? 0;
    if (resource.orderingFields.length > 0)
      estimates.push({
        list: resource.path,
        request: '?ordering=<several fields> (ordering sorted in memory)',
        ms: FIXED_MS + (listBytes / MIB) * SORT_MS_PER_MIB,
      });
    const { query } = resource;
    if (!query) continue;
    const partsPrefix = recordsPartFile(resource.name, 1).replace(/1\.json$/, '');
    const parts = [...sizes].reduce(
      (sum, [file, size]) =>
        file.startsWith(partsPrefix) && /^\d+\.json$/.test(file.slice(partsPrefix.length)) ? sum + size : sum,
      0,
    );
    const column = (name: string) =>
      bytesUnder(sizes, recordsColumnFile(resource.name, name, 1).replace(/1\.txt$/, ''), '.txt');
    const estimate = (request: string, columnBytes: number) =>
      estimates.push({ list: resource.path, request, ms: FIXED_MS + ((columnBytes + parts) / MIB) * MS_PER_MIB });
    // A filter of prerendered_filters alone, on a list without pages, is sent from its file
    // (contract/routes.ts prerenderedFilterFile()): any other filter, or two together, is computed.
    const fromFiles = !resource.paginated && query.filters.length === 1 ? query.prerendered : [];
    const computed = query.filters.filter(({ field }) => !fromFiles.includes(field));
    if (computed.length > 0)
      estimate(
        `?${computed.map(({ field }) => field).join('=, ?')}= (filter)`,
        Math.max(...computed.map(({ field }) => column(valueColumn(field)))),
      );
    if (query.search.length > 0)
      estimate(
        '?search= (search)',
        query.search.reduce((sum, { field }) => sum + column(upperColumn(field)), 0),
      );
    const ordered = resource.orderingFields.length > 0 ? resource.orderingFields : query.ordering;
    if (query.ordering.length > 0 || (ordered.length > 0 && (query.filters.length > 0 || query.search.length > 0)))
      estimate(
        '?ordering= (ordering)',
        Math.max(0, ...ordered.map((field) => column(rankColumn(field)))) + column(rankColumn('id')),
      );
  }
  return estimates;
}
