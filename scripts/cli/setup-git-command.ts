// `npm run setup-git`: sets up, in this clone only (its .git/config, never the global one), the
// JSON text-conversion diff driver that .gitattributes names for public/**/*.json, so that
// `git diff`, `git log -p` and `git show` print an answer one value per line.

import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { prettyJson } from '../review/pretty.ts';
import { RefusedInput } from '../shared/errors.ts';
import { runCommand } from './fail.ts';
import { settingsOrExit } from './settings.ts';

const run = promisify(execFile);

/** The driver's name in .gitattributes (`diff=api-json`). */
const DRIVER = 'api-json';

/** A POSIX shell word that is exactly `text`. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The driver's command: git runs it through the shell with the file to convert appended. */
function textconvCommand(): string {
  const script = `${prettyJson.toString()};process.stdout.write(prettyJson(require("fs").readFileSync(process.argv[1],"utf8")))`;
  return `node -e ${shellQuote(script)}`;
}

await runCommand({ command: 'setup-git' }, async () => {
  const repo = path.resolve(settingsOrExit('setup-git').repo);
  const git = (...args: string[]) => run('git', ['-C', repo, 'config', '--local', ...args]);
  try {
    await git(`diff.${DRIVER}.textconv`, textconvCommand());
    await git(`diff.${DRIVER}.cachetextconv`, 'true');
  } catch (error) {
    // Not a git work tree, or a config git cannot write: git's own words.
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new RefusedInput(stderr || (error as Error).message.split('\n')[0] || 'git config failed', {
      cause: error,
    });
  }
  console.log(
    `Set diff.${DRIVER}.textconv in ${repo}/.git/config: git diff now shows public/**/*.json one value per line.`,
  );
});
