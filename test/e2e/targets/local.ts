// The project's own server (`npm run serve`), started as a child process like a user would.

import { SAMPLE_API_MODULE } from '../../fixtures/sample.ts';
import { spawnProcess, waitForPort } from './process.ts';
import type { Target } from './target.ts';

export const local: Target = {
  name: 'local',
  async start({ publicDir, port }) {
    // As `npm run serve` runs it, through the launcher of every npm script, with the declarations
    // the sample's output was built from.
    const child = spawnProcess(process.execPath, [
      'scripts/command.mjs',
      'serve',
      '--api-module',
      SAMPLE_API_MODULE,
      '--out',
      publicDir,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
    ]);
    await waitForPort(port, child);
    return { origin: `http://127.0.0.1:${port}`, stop: child.stop };
  },
};
