// Every error of the project is named after its class and keeps the error it wraps, so a stack
// (DEBUG=1) and a log say what failed and why, through the compiled commands too.

import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../scripts/cli/settings.ts';
import { SettingsFileError } from '../../scripts/cli/settings-file.ts';
import { HeadersFileError } from '../../scripts/contract/headers.ts';
import { ProjectError, UserFacingError } from '../../scripts/shared/errors.ts';
import { OutputError } from '../../scripts/shared/write.ts';
import { cleanEnv, commandLine, readSampleSettings as readSettings } from '../unit/helpers/cli.ts';

describe('the project errors', () => {
  it('are named after their class', () => {
    expect(new UserFacingError('x').name).toBe('UserFacingError');
    expect(new OutputError('public', 'public/a.json', 'ENOSPC').name).toBe('OutputError');
    expect(new HeadersFileError(3, 'no path').name).toBe('HeadersFileError');
    expect(new OutputError('public', 'public/a.json', 'ENOSPC')).toBeInstanceOf(ProjectError);
  });

  it('keep the error they wrap as the cause', () => {
    // A settings file that cannot be read: a folder.
    const file = mkdtempSync(path.join(os.tmpdir(), 'errors-'));
    let thrown: unknown;
    try {
      readSettings(['--config', file], {}, 'build');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    const cause = (thrown as Error).cause;
    expect(cause).toBeInstanceOf(SettingsFileError);
    expect(((cause as Error).cause as NodeJS.ErrnoException).code).toBe('EISDIR');
  });

  it('keep their names in the compiled commands', () => {
    const args = ['--out', '/nonexistent', '--port', '0', '--debug'];
    const result = spawnSync(process.execPath, commandLine('serve', args), { encoding: 'utf8', env: cleanEnv() });
    expect(result.status).toBe(1);
    // The message, then under --debug the stack, which starts with the error's name.
    expect(result.stderr).toMatch(/^\/nonexistent\/ does not exist: build it first with `npm run build`\nServeError: /);
  });
});
