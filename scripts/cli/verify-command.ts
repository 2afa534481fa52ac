// `npm run verify -- --against <url>`: builds the data into a temporary folder, serves it on the
// loopback with the local server, asks it and the running DRF service the same requests, and
// prints each difference; exit status 1 when anything differs or the service cannot be asked.

import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from '../builder/build.ts';
import { serviceClient } from '../migrate/client.ts';
import { summaryLine, verifyAgainst } from '../migrate/verify.ts';
import { queryRequests } from '../migrate/verify-queries.ts';
import { verifyRequests } from '../migrate/verify-requests.ts';
import { createApiServer, listen } from '../respond/node-server.ts';
import { EXIT_STATUS } from './exit-status.ts';
import { runCommand } from './fail.ts';
import { settingsOrExit } from './settings.ts';

await runCommand({ command: 'verify', left: 'nothing was verified' }, async () => {
  const settings = settingsOrExit('verify');
  const service = settings.against as string;
  const folder = await mkdtemp(path.join(tmpdir(), 'static-api-verify-'));
  // A run against a slow service may well be stopped with Ctrl-C: the build goes with it.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      rmSync(folder, { recursive: true, force: true });
      process.exit(EXIT_STATUS.failed);
    });
  }
  let server: http.Server | undefined;
  try {
    const outDir = path.join(folder, 'public');
    const { dataDir, headersPath, baseUrl, pageSize, resourceSettings, configPath, allowEmpty } = settings;
    // Output only: no deploy target's files, and no schemas.
    const targetsDir = path.join(folder, 'targets');
    // Its client asks for no Accept-Encoding: the answers' siblings would go unread.
    const { routes } = await build({
      resources: settings.resources,
      dataDir,
      headersPath,
      baseUrl,
      pageSize,
      resourceSettings,
      configPath,
      allowEmpty,
      outDir,
      targetsDir,
      targets: [],
      precompress: false,
    });
    server = createApiServer(outDir, settings.resources);
    const local = `${await listen(server, '127.0.0.1', 0)}/`;
    const requests = [
      ...verifyRequests(routes, settings.resources),
      ...(await queryRequests(outDir, settings.resources)),
    ];
    console.error(`verify: ${requests.length} requests, each to ${service} and to this build of ${settings.dataDir}/`);
    const report = await verifyAgainst(
      { client: serviceClient(service), base: service },
      { client: serviceClient(local), base: local },
      requests,
      settings.resources,
    );
    if (report.lines.length > 0) console.log('Each difference reads: as the service answers → as this build answers.');
    for (const line of [...report.lines, ...report.notes, summaryLine(report)]) console.log(line);
    process.exitCode = report.differ > 0 ? EXIT_STATUS.differs : EXIT_STATUS.done;
  } finally {
    server?.closeAllConnections();
    server?.close();
    await rm(folder, { recursive: true, force: true });
  }
});
