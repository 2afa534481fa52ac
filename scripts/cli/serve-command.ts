// `npm run serve`: serve an already built output folder (default public/) like the DRF service.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileFor, linkBase } from '../contract/routes.ts';
import { addressForPeople, closeOnSignals, createApiServer, listen } from '../respond/node-server.ts';
import { runCommand } from './fail.ts';
import { type Settings, settingsOrExit } from './settings.ts';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The `next` link of a list's first page, when the file is there and says one. */
async function nextLink(file: string): Promise<unknown> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  try {
    return text === undefined ? undefined : (JSON.parse(text) as { next?: unknown }).next;
  } catch {
    return undefined;
  }
}

/**
 * The base URL the output's page links name, when it differs from where it is served: serve
 * sends the files as built (that is what a static host does), so the user should know why a
 * `next` link leads elsewhere. Read from the first page of the first paginated list that links on.
 */
async function otherLinkBase(
  root: string,
  served: string,
  resources: Settings<'serve'>['resources'],
): Promise<string | undefined> {
  let base: string | undefined;
  for (const resource of resources.filter((declared) => declared.paginated)) {
    base = linkBase(await nextLink(path.join(root, fileFor(resource.path, {}))), resources);
    if (base !== undefined) break;
  }
  if (base === undefined || !URL.canParse(base)) return undefined;
  const [linked, here] = [new URL(base), new URL(served)];
  const sameHost = linked.hostname === here.hostname || (LOOPBACK.has(linked.hostname) && LOOPBACK.has(here.hostname));
  return sameHost && linked.port === here.port && linked.pathname === '/' ? undefined : base;
}

await runCommand({ command: 'serve' }, async () => {
  const settings = settingsOrExit('serve');
  const server = createApiServer(settings.outDir, settings.resources);
  const url = await listen(server, settings.host, settings.port);
  const base = await otherLinkBase(settings.outDir, url, settings.resources);
  // One write, so that the banner never arrives without its note.
  const note =
    base === undefined
      ? ''
      : `\nIts page links name ${base}, the base URL it was built with; npm start builds and serves one for this address.`;
  console.error(`Serving ${settings.outDir}/ at ${addressForPeople(url)}${note}`);
  closeOnSignals(server);
});
