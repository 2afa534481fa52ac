// `npm run lint` (Biome, through biome.jsonc) judges the project's code, not the user's content:
// the data and the settings file are written by hand or by other tools (`npm run import`, an
// editor), and their line breaks are theirs.

import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS_FILE } from '../../scripts/shared/folders.ts';
import { ROOT } from '../unit/helpers/cli.ts';
import { tempDirs } from '../unit/helpers/tree.ts';

const tempDir = tempDirs('lint-scope-');

const BIOME = path.join(ROOT, 'node_modules', '.bin', 'biome');

describe('npm run lint', () => {
  it("leaves the settings file and data/ to their authors' formatting, and still judges the code", async () => {
    const dir = await tempDir();
    await copyFile(path.join(ROOT, 'biome.jsonc'), path.join(dir, 'biome.jsonc'));
    // biome.jsonc reads git's ignore file.
    expect(spawnSync('git', ['init', '-q'], { cwd: dir }).status).toBe(0);
    await mkdir(path.join(dir, 'data', 'company'), { recursive: true });
    // The same JSON as a formatted file, on one line: as another tool writes it.
    await writeFile(path.join(dir, SETTINGS_FILE), '{"baseUrl":"https://api.example.com","pageSize":10}\n');
    await writeFile(path.join(dir, 'data', 'company', 'companies.json'), '[{"id":1}]\n');
    const lint = () =>
      spawnSync(BIOME, ['ci', '--error-on-warnings', '--colors=off', '.'], { cwd: dir, encoding: 'utf8' });
    const user = lint();
    expect(user.status, user.stdout + user.stderr).toBe(0);
    // What biome.jsonc includes is still formatted: a code file written the same way fails.
    await mkdir(path.join(dir, 'scripts'));
    await writeFile(path.join(dir, 'scripts', 'code.ts'), 'export const a = {b:1};\n');
    const code = lint();
    expect(code.status).toBe(1);
    expect(code.stdout + code.stderr).toContain('scripts/code.ts');
  });
});
