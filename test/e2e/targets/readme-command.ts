// Starts nginx, Caddy or Apache with the command its README gives for serving public/ on this
// machine (the sh block after LOCAL_HEADING), run by sh as written: from a folder laid out as
// the project (public/, targets/<server>/), as an unprivileged user. The folder is the test's
// own: public/ links to the build under test, targets/<server>/ is a copy of its files, in which
// `edits` put the test's port (and modules) where the README says a user would.

import { chmod, cp, lchown, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type LOCAL_COMMANDS, LOCAL_HEADING } from '../../../scripts/targets/web-servers/local-run.ts';
import { type Spawned, spawnProcess } from './process.ts';

export type LocalServer = keyof typeof LOCAL_COMMANDS;

/** nobody on Linux: whom a test run as root (CI) runs the command as. */
const NOBODY = 65534;

/** The command of the README's LOCAL_HEADING paragraph: the first line of the sh block after it. */
export function readmeCommand(readme: string): string {
  const at = readme.indexOf(LOCAL_HEADING);
  const block = at < 0 ? null : /```sh\n(.+)\n```/.exec(readme.slice(at));
  if (!block) throw new Error(`the README has no "${LOCAL_HEADING}" paragraph with a sh block`);
  return block[1] as string;
}

/** A text replaced in a copied file; it must be there, or the README no longer says so. */
export interface Edit {
  file: string;
  from: string;
  to: string;
}

export interface ReadmeRun {
  server: LocalServer;
  publicDir: string;
  targetsDir: string;
  /** An empty folder: the project-like folder the command runs in, and the server's HOME. */
  workDir: string;
  edits: readonly Edit[];
  /** The program as the README names it, and the one to run instead (another path, httpd). */
  program: { named: string; found: string };
  env?: Record<string, string>;
}

async function chownTree(dir: string, id: number): Promise<void> {
  await lchown(dir, id, id);
  for (const entry of await readdir(dir, { recursive: true })) await lchown(path.join(dir, entry), id, id);
}

export async function startFromReadme(run: ReadmeRun): Promise<Spawned> {
  const { server, workDir } = run;
  const line = readmeCommand(await readFile(path.join(run.targetsDir, server, 'README.md'), 'utf8'));
  if (!line.includes(run.program.named)) throw new Error(`${server}'s README runs no ${run.program.named}: ${line}`);
  const command = line.replace(run.program.named, run.program.found);

  await symlink(run.publicDir, path.join(workDir, 'public'));
  const copied = path.join(workDir, 'targets', server);
  await cp(path.join(run.targetsDir, server), copied, { recursive: true });
  for (const edit of run.edits) {
    const file = path.join(copied, edit.file);
    const text = await readFile(file, 'utf8');
    if (!text.includes(edit.from)) throw new Error(`${server}/${edit.file} no longer holds ${edit.from}`);
    await writeFile(file, text.replaceAll(edit.from, edit.to));
  }
  // Whatever the command leaves out goes to the test's folder, never the machine's home or trust
  // store; the settings the READMEs read from the environment come from the command or `run.env`.
  const home = path.join(workDir, 'home');
  await mkdir(home);
  const { API_ROOT, API_ADDRESS, ...inherited } = process.env;
  const env = {
    ...inherited,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, 'config'),
    XDG_DATA_HOME: path.join(home, 'data'),
    ...run.env,
  };
  if (process.getuid?.() !== 0) return spawnProcess('sh', ['-c', command], { env, cwd: workDir });
  // As root, the command runs as nobody, as the README's user would not be root: the folders
  // above the build and the work folder let nobody through (search only, no listing).
  for (const dir of new Set([path.dirname(run.publicDir), path.dirname(workDir)])) await chmod(dir, 0o711);
  await chownTree(workDir, NOBODY);
  return spawnProcess(
    'setpriv',
    [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--', 'sh', '-c', command],
    { env, cwd: workDir },
  );
}
