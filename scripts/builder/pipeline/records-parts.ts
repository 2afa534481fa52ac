// The stage that writes the records a server with code answers a filter, a search or an ordering
// from (store/writer.ts), for each resource whose settings ask for them: the list's records in its
// default order, each as the list writes it.

import type { Resource } from '../../contract/resources/resource.ts';
import { writeRecords } from '../../store/writer.ts';
import { type Prepared, type RenderSettings, recordEncoder, sortedOf } from './render.ts';
import { type Catalogue, recordsOf } from './validate.ts';

/** `_records/<resource>/` (store/format.ts) for each resource with settings. */
export function recordsParts(
  catalogue: Catalogue,
  settings: RenderSettings,
  resources: readonly Resource[],
  prepared: Prepared = {},
): Map<string, string> {
  const files = new Map<string, string>();
  for (const resource of resources) {
    const query = resource.query;
    if (query === undefined) continue;
    const records =
      prepared.sorted?.get(resource.name) ?? sortedOf(resource, recordsOf(catalogue, resource.name) as object[]);
    const encodeOne = recordEncoder(resource, catalogue, prepared);
    const texts = records.map(encodeOne);
    // The values as an answer reads them: the list's own JSON where it shows a record otherwise
    // (embedded records, numbers with decimals), else the record's.
    const shown =
      resource.embeds || resource.floats?.length ? texts.map((text) => JSON.parse(text) as object) : records;
    const list = { name: resource.name, orderingFields: resource.orderingFields, query };
    for (const [file, text] of writeRecords(list, texts, shown, settings)) files.set(file, text);
  }
  return files;
}
