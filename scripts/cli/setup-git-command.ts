// `npm run setup-git`: sets up, in this clone only (its .git/config, never the global one), the
// JSON text-conversion diff driver that .gitattributes names for public/**/*.json, so that
// `git diff`, `git log -p` and `git show` print an answer one value per line.

import { execFile } from 'node:child_process';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { prettyJson } from '../review/pretty.ts';

const run = promisify(execFile);

/** The driver's name in .gitattributes (`diff=api-json`). */
const DRIVER = 'api-json';

const USAGE = `Usage: npm run setup-git [-- --repo <dir>]

Sets up the "${DRIVER}" diff driver that .gitattributes gives public/**/*.json, in this
clone's .git/config only, so that git diff, git log -p and git show print each answer
one value per line. Runs plain node (no TypeScript loader), so it stays fast.

Options:
  --repo <dir>   the clone to set up (default: .)
  -h, --help     show this help

Undo with: git config --remove-section diff.${DRIVER}`;

/** A POSIX shell word that is exactly `text`. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The driver's command: git runs it through the shell with the file to convert appended. */
function textconvCommand(): string {
  const script = `${prettyJson.toString()};process.stdout.write(prettyJson(require("fs").readFileSync(process.argv[1],"utf8")))`;
  return `node -e ${shellQuote(script)}`;
}

async function main(argv: string[]): Promise<number> {
  let repo: string;
  try {
    const { values } = parseArgs({
      args: argv,
      options: { repo: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    repo = path.resolve(values.repo ?? '.');
  } catch (error) {
    console.error(`setup-git: ${(error as Error).message} (see --help)`);
    return 2;
  }
  const git = (...args: string[]) => run('git', ['-C', repo, 'config', '--local', ...args]);
  try {
    await git(`diff.${DRIVER}.textconv`, textconvCommand());
    await git(`diff.${DRIVER}.cachetextconv`, 'true');
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    console.error(`setup-git: ${stderr || (error as Error).message.split('\n')[0]}`);
    return 2;
  }
  console.log(
    `Set diff.${DRIVER}.textconv in ${repo}/.git/config: git diff now shows public/**/*.json one value per line.`,
  );
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
