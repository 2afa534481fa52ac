// Every record of the catalogue folder (CATALOGUE_DIR, `data` by default): each resource's
// `.json` files in path order, an array of records or one record each.

import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

const dataDir = process.env.CATALOGUE_DIR ?? 'data';

async function records(resource) {
  const folder = path.join(dataDir, resource);
  const files = (await readdir(folder, { recursive: true })).filter((file) => file.endsWith('.json')).sort();
  const parsed = await Promise.all(
    files.map(async (file) => JSON.parse(await readFile(path.join(folder, file), 'utf8'))),
  );
  return parsed.flat();
}

export default async function () {
  const [companies, events, fairs, textures] = await Promise.all(
    ['company', 'event', 'virtualfair', 'virtualbooth-texture'].map(records),
  );
  return { companies, events, fairs, textures };
}
