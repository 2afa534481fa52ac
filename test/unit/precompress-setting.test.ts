// The `precompress` setting (cli/settings.ts): whether `npm run build` writes the answers' `.br`
// and `.gz` siblings. On unless the flag, its variable or the settings file turns it off, in
// that order; only the build takes it, since the previews' local server sends the siblings.

import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSettings } from '../../scripts/cli/settings.ts';
import { SETTINGS_FILE } from '../../scripts/shared/folders.ts';
import { tempDirs } from './helpers/tree.ts';

const tempDir = tempDirs('precompress-setting-');

/** The build's settings in a project folder holding `file` as its settings file (none when undefined). */
async function buildSettings(argv: string[], env: NodeJS.ProcessEnv, file?: unknown) {
  const project = await tempDir();
  if (file !== undefined) await writeFile(path.join(project, SETTINGS_FILE), JSON.stringify(file));
  return readSettings(argv, env, 'build', project);
}

describe('the precompress setting', () => {
  it('is on when nothing sets it', async () => {
    expect((await buildSettings([], {})).precompress).toBe(true);
    expect((await buildSettings([], {}, { pageSize: 5 })).precompress).toBe(true);
  });

  it('is turned off by the flag, the variable or the settings file', async () => {
    expect((await buildSettings(['--precompress', 'off'], {})).precompress).toBe(false);
    expect((await buildSettings([], { PRECOMPRESS: 'off' })).precompress).toBe(false);
    expect((await buildSettings([], {}, { precompress: false })).precompress).toBe(false);
  });

  it('takes the flag over the variable, and the variable over the settings file', async () => {
    expect((await buildSettings(['--precompress', 'on'], { PRECOMPRESS: 'off' })).precompress).toBe(true);
    expect((await buildSettings([], { PRECOMPRESS: 'on' }, { precompress: false })).precompress).toBe(true);
    expect((await buildSettings([], { PRECOMPRESS: 'off' }, { precompress: true })).precompress).toBe(false);
  });

  it('says what is wrong with a value', async () => {
    await expect(buildSettings(['--precompress', 'no'], {})).rejects.toThrow(
      '--precompress must be on or off, got "no"',
    );
    await expect(buildSettings([], { PRECOMPRESS: 'false' })).rejects.toThrow(
      'PRECOMPRESS must be on or off, got "false"',
    );
    await expect(buildSettings([], {}, { precompress: 'off' })).rejects.toThrow(
      `precompress in ${SETTINGS_FILE} must be true or false, got "off"`,
    );
  });

  it('is the build’s alone: the check and the previews refuse the flag and leave the file’s key alone', async () => {
    const project = await tempDir();
    await writeFile(path.join(project, SETTINGS_FILE), JSON.stringify({ precompress: 'not read' }));
    for (const command of ['check', 'start', 'dev'] as const) {
      expect(() => readSettings(['--precompress', 'off'], {}, command, project)).toThrow(
        `--precompress does not apply to`,
      );
      expect(() => readSettings([], {}, command, project)).not.toThrow();
    }
  });
});
