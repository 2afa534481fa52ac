// The workflows of .github/workflows/ against GitHub's workflow schema (SchemaStore's, as
// action-validator ships it), offline: GitHub itself cannot be reached from here. Then what each
// promises, read from the file: the Node lines tested are those of `engines`, the API diff runs on
// a change of the settings, each deploy names its secrets; and the Cloudflare deploy's command
// run as `wrangler deploy --dry-run` on a build, which needs neither the network nor a login.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { validateWorkflow } from '@action-validator/core';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SAMPLE_DIR } from '../fixtures/sample.ts';
import { cleanEnv, commandLine, outputArgs, ROOT } from '../unit/helpers/cli.ts';

const FOLDER = path.join(ROOT, '.github/workflows');
const FILES = readdirSync(FOLDER).filter((file) => file.endsWith('.yml'));
const text = (file: string) => readFileSync(path.join(FOLDER, file), 'utf8');

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Workflow {
  on: Record<string, { branches?: string[]; paths?: string[] } | null>;
  jobs: Record<string, { strategy?: { matrix: { node: number[] } }; steps: Step[] }>;
}
const workflow = (file: string) => parse(text(file)) as Workflow;
const steps = (file: string) => Object.values(workflow(file).jobs).flatMap((job) => job.steps);
const runs = (file: string) => steps(file).flatMap((step) => (step.run ? [step.run] : []));

/** The majors `engines` names, as `^22.12.0 || ^24.0.0 || ^26.0.0` gives [22, 24, 26]. */
function engineLines(): number[] {
  const range = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } })
    .engines.node;
  return range.split('||').map((part) => Number(/^\s*\^(\d+)\.\d+\.\d+\s*$/.exec(part)?.[1]));
}

describe('the workflows', () => {
  it('are the six the README describes', () => {
    expect(FILES.toSorted()).toEqual([
      'api-diff.yml',
      'committed-output.yml',
      'deploy-cloudflare-workers.yml',
      'deploy-netlify.yml',
      'deploy-web-server.yml',
      'test.yml',
    ]);
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    for (const file of FILES) expect(readme.includes(`.github/workflows/${file}`), file).toBe(true);
  });

  it.each(FILES)('%s matches the workflow schema', (file) => {
    expect(validateWorkflow(text(file)).errors).toEqual([]);
  });

  it('the check is real: a misspelt key is refused', () => {
    const source = text('test.yml');
    const broken = source.replace('runs-on:', 'runz-on:');
    expect(broken).not.toBe(source);
    expect(validateWorkflow(broken).errors.length).toBeGreaterThan(0);
  });

  it.each(FILES)('%s runs on a supported Node line', (file) => {
    const lines = engineLines();
    for (const step of steps(file).filter((step) => step.uses?.startsWith('actions/setup-node@'))) {
      const version = step.with?.['node-version'];
      if (typeof version === 'number') expect(lines).toContain(version);
      else expect(version).toBe('${{ matrix.node }}');
    }
  });

  it('the tests run on every line of engines, with the servers installed', () => {
    expect(engineLines()).toEqual([22, 24, 26]);
    expect(workflow('test.yml').jobs.test?.strategy?.matrix.node).toEqual(engineLines());
    expect(runs('test.yml').slice(-3)).toEqual(['npm ci --no-audit --no-fund', 'npm run setup:targets', 'npm test']);
  });

  it('the committed output is compared with a fresh build, the ignored siblings aside', () => {
    const commands = runs('committed-output.yml');
    expect(commands.slice(0, 2)).toEqual(['npm ci --no-audit --no-fund', 'npm run build']);
    expect(commands[2]).toContain('git status --porcelain -- public targets schemas');
  });

  // Bounds only: git and bash run synchronously, 1–3 s here, and far longer on a machine under load.
  it('the comparison fails on a changed, removed or new output file, and not on a sibling git ignores', {
    timeout: 90_000,
  }, () => {
    const compare = steps('committed-output.yml').find((step) => step.name === 'Compare with the committed output');
    const script = compare?.run ?? '';
    const repo = mkdtempSync(path.join(os.tmpdir(), 'workflow-compare-'));
    scratch.push(repo);
    const sh = (command: string) => spawnSync('bash', ['-c', command], { cwd: repo, encoding: 'utf8' });
    const git = '-c user.name=t -c user.email=t@example.com';
    sh(`git init -q && cp ${JSON.stringify(path.join(ROOT, '.gitignore'))} .gitignore`);
    sh('mkdir -p public/company targets/nginx schemas && echo 1 > public/company/index.json');
    sh('echo c > targets/nginx/api.conf && echo s > schemas/s.json');
    sh(`git add -A && git ${git} commit -q -m output`);
    const status = () => sh(script).status;
    expect(status()).toBe(0);
    sh('echo sibling > public/company/index.json.br && echo sibling > public/company/index.json.gz');
    expect(status()).toBe(0);
    for (const change of [
      'echo 2 > public/company/index.json',
      'rm schemas/s.json',
      'echo new > targets/nginx/new.conf',
    ]) {
      sh(`git checkout -q -- . && git clean -fdq -e '*.br' -e '*.gz' && ${change}`);
      const failed = sh(script);
      expect(failed.stdout, change).toContain('differ from a fresh build');
      expect(failed.status, change).toBe(1);
    }
  });

  it('the API diff runs on a change of the data, the headers or the settings', () => {
    expect(workflow('api-diff.yml').on.pull_request?.paths).toEqual(
      expect.arrayContaining(['data/**', '_headers', 'static-api.config.json']),
    );
  });

  it.each([
    ['deploy-cloudflare-workers.yml', ['CLOUDFLARE_API_TOKEN', 'CLOUDFLARE_ACCOUNT_ID']],
    ['deploy-netlify.yml', ['NETLIFY_AUTH_TOKEN', 'NETLIFY_SITE_ID']],
    ['deploy-web-server.yml', ['SSH_PRIVATE_KEY', 'SSH_KNOWN_HOSTS', 'DEPLOY_SSH', 'DEPLOY_PATH', 'RELOAD_COMMAND']],
  ])('%s deploys on a push to main, with its secrets named', (file, secrets) => {
    expect(workflow(file).on).toEqual({ push: { branches: ['main'] } });
    const used = [...text(file).matchAll(/\$\{\{ secrets\.(\w+) \}\}/g)].map((match) => match[1]);
    expect(new Set(used)).toEqual(new Set(secrets));
    // Each is named in the file's opening comment, which is all a user reads to set them.
    const opening = text(file).split('\nname:')[0] ?? '';
    for (const secret of secrets) expect(opening).toContain(secret);
  });

  it.each(['deploy-cloudflare-workers.yml', 'deploy-netlify.yml', 'deploy-web-server.yml'])(
    '%s refuses the sample settings, whose links point at localhost',
    (file) => {
      const guard = steps(file).find((step) => step.name === 'Refuse a local origin')?.run ?? '';
      const refuses = (settings: string) =>
        spawnSync('bash', ['-c', guard], { cwd: folderWith(settings), encoding: 'utf8' }).status;
      expect(refuses('{\n  "baseUrl": "http://localhost:3000",\n  "pageSize": 10\n}\n')).toBe(1);
      expect(refuses('{ "baseUrl": "http://127.0.0.1:8000", "pageSize": 10 }')).toBe(1);
      expect(refuses('{\n  "baseUrl": "https://api.example.com",\n  "pageSize": 10\n}\n')).toBe(0);
      expect(refuses('{ "baseUrl": "https://localhost.example.com" }')).toBe(0);
    },
    90_000,
  );
});

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

function folderWith(settings: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'workflow-guard-'));
  scratch.push(dir);
  spawnSync('bash', ['-c', 'cat > static-api.config.json'], { cwd: dir, input: settings });
  return dir;
}

describe('the Cloudflare deploy, dry', () => {
  it('wrangler deploy --dry-run takes the build, offline and without a login', { timeout: 120_000 }, () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'wrangler-dry-'));
    scratch.push(dir);
    const built = spawnSync(
      process.execPath,
      commandLine('build', ['--target', 'cloudflare-workers', ...outputArgs(dir)]),
      { cwd: SAMPLE_DIR, env: cleanEnv(), encoding: 'utf8' },
    );
    expect(built.stderr).toContain('cloudflare-workers');
    expect(built.status).toBe(0);

    // The workflow's own command, with --dry-run and the test's folders.
    const deploy = runs('deploy-cloudflare-workers.yml').find((run) => run.includes('wrangler deploy'));
    expect(deploy).toBe('npx wrangler deploy -c targets/cloudflare-workers/wrangler.jsonc');
    const home = path.join(dir, 'home');
    const env = cleanEnv({ WRANGLER_SEND_METRICS: 'false', HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') });
    for (const name of ['CLOUDFLARE_API_TOKEN', 'CLOUDFLARE_ACCOUNT_ID', 'CF_API_TOKEN']) delete env[name];
    const dry = spawnSync(
      path.join(ROOT, 'node_modules/.bin/wrangler'),
      ['deploy', '--dry-run', '-c', 'targets/cloudflare-workers/wrangler.jsonc', '--outdir', path.join(dir, 'dist')],
      { cwd: dir, env, encoding: 'utf8', timeout: 100_000 },
    );
    const output = `${dry.stdout}${dry.stderr}`;
    expect(output).toContain('--dry-run: exiting now.');
    expect(output).toContain('env.ASSETS');
    expect(dry.status).toBe(0);
    // The worker it would upload is the build's bundle.
    expect(statSync(path.join(dir, 'dist/worker.js')).size).toBeGreaterThan(10_000);
  });
});
