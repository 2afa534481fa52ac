// The delivery case: what the precompressed siblings (shared/compress.ts) cost the build and buy
// on the wire, on the benchmark catalogue, each as a ratio against a baseline of the same run:
// - a first build with siblings against the same build without them (alternating rounds);
// - a rebuild after a one-record edit: the files it wrote (new inodes), answers and siblings,
//   against the answers whose bytes changed;
// - the bytes of the biggest list on the wire with br and with gzip against its raw bytes;
// - nginx's requests/s for that list with `Accept-Encoding: br` through the target's api.conf,
//   against a plain nginx sending the same .br file with no project config, and against nginx
//   compressing the list on the fly (gzip on). Where the brotli_static module is missing, the
//   target's gzip against the plain .gz, said in the report.
// The load is a bounded loop of Node HTTP requests to 127.0.0.1 on keep-alive connections.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { isSibling, MIN_COMPRESSED_BYTES, worthCompressing } from '../../scripts/shared/compress.ts';
import type { ChildResult } from './child.ts';
import { alternatingRounds, buildJob, freePort, runChild, settleDisk, sleep } from './measure.ts';

const BUILD_ROUNDS = 3;
/**
 * Short turns, alternating: the load is a race of copying megabytes, and a shared machine's
 * speed drifts by a third within seconds, which long turns would put on one side.
 */
const LOAD_ROUNDS = 12;
const LOAD_MS = 1_000;
const LOAD_CONNECTIONS = 4;
const LIST = 'company/index.json';
const LIST_PATH = '/company/';

const DELIVERY_LIMITS = {
  /** A first build writing siblings over the same build without: compressing ~90 MB on the thread pool. */
  maxBuildRatio: 2,
  /** The target's config over plain nginx sending the same precompressed file. */
  minNginxRatio: 0.95,
} as const;

export interface DeliveryResult {
  builds: ChildResult[];
  baselines: ChildResult[];
  rawBytes: number;
  wire: { br: number; gzip: number };
  rebuild: {
    changedAnswers: number;
    writtenAnswers: number;
    writtenSiblings: number;
    expectedSiblings: number;
    files: number;
  };
  /** The coding the nginx figures are for: br, or gzip where brotli_static is not installed. */
  coding: 'br' | 'gzip';
  nginx: { target: number[]; plain: number[]; onTheFly: number[] } | { skipped: string };
}

/** Each file under `dir` by relative path: its inode. */
async function inodes(dir: string): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (const file of await readdir(dir, { recursive: true })) {
    const stats = await stat(path.join(dir, file));
    if (stats.isFile()) found.set(file.split(path.sep).join('/'), stats.ino);
  }
  return found;
}

/** The first company of the catalogue, moved to another city: one record of the biggest list. */
async function editOneRecord(dataDir: string): Promise<void> {
  const folder = path.join(dataDir, 'company');
  const [first] = (await readdir(folder)).filter((file) => file.endsWith('.json')).sort();
  const file = path.join(folder, first as string);
  const records = JSON.parse(await readFile(file, 'utf8')) as Array<Record<string, string>>;
  records[0] = { ...records[0], city: `${records[0]?.city} (moved)` };
  await writeFile(file, JSON.stringify(records));
}

/** nginx on the PATH (Debian's is in /usr/sbin), and its brotli_static module if installed. */
function findNginx(): { binary: string; brotli: string | undefined } | undefined {
  for (const binary of ['nginx', '/usr/sbin/nginx']) {
    // nginx -V prints on stderr.
    const built = spawnSync(binary, ['-V'], { encoding: 'utf8' });
    if (built.error || built.status !== 0) continue;
    const modules = /--modules-path=(\S+)/.exec(`${built.stderr}${built.stdout}`)?.[1];
    const brotli = modules && path.join(modules, 'ngx_http_brotli_static_module.so');
    return { binary, brotli: brotli && existsSync(brotli) ? brotli : undefined };
  }
  return undefined;
}

/** One nginx in the foreground, all its files in `workDir`, serving `server` (a server block's body). */
async function startNginx(
  binary: string,
  workDir: string,
  port: number,
  server: string,
  module: string | undefined,
): Promise<() => Promise<void>> {
  await mkdir(workDir, { recursive: true });
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((name) => `${name}_temp_path ${path.join(workDir, `${name}-temp`)};`)
    .join('\n    ');
  const conf = `${module ? `load_module ${module};` : ''}
worker_processes 1;
pid ${path.join(workDir, 'nginx.pid')};
error_log stderr warn;
${process.getuid?.() === 0 ? 'user root;' : ''}
events { worker_connections 256; }
http {
    access_log off;
    sendfile on;
    ${temp}
    server {
        listen 127.0.0.1:${port};
        ${server}
    }
}
`;
  const file = path.join(workDir, 'nginx.conf');
  await writeFile(file, conf);
  const child = spawn(binary, ['-e', 'stderr', '-p', workDir, '-c', file, '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  for (let tries = 0; ; tries++) {
    const up = await request(port, '/', {}).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null || tries > 100) throw new Error(`nginx did not start:\n${stderr}`);
    await sleep(50);
  }
  return async () => {
    child.kill('SIGTERM');
    await exited;
  };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: LOAD_CONNECTIONS });

/** One GET; resolves with its status, Content-Encoding and the bytes of its body. */
function request(
  port: number,
  target: string,
  headers: Record<string, string>,
  keepAlive = false,
): Promise<{ status: number; encoding: string | undefined; bytes: number }> {
  return new Promise((done, fail) => {
    const req = http.get(
      { host: '127.0.0.1', port, path: target, headers, agent: keepAlive ? agent : false },
      (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.once('end', () => done({ status: res.statusCode ?? 0, encoding: res.headers['content-encoding'], bytes }));
        res.once('error', fail);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`${target}: no answer within 30 s`)));
    req.once('error', fail);
  });
}

/** Requests/s over LOAD_MS with LOAD_CONNECTIONS in flight; every answer must be 200 with `encoding`. */
async function load(port: number, target: string, headers: Record<string, string>, encoding: string): Promise<number> {
  const deadline = performance.now() + LOAD_MS;
  const started = performance.now();
  let done = 0;
  await Promise.all(
    Array.from({ length: LOAD_CONNECTIONS }, async () => {
      while (performance.now() < deadline) {
        const answer = await request(port, target, headers, true);
        if (answer.status !== 200 || answer.encoding !== encoding)
          throw new Error(`${target}: ${answer.status} ${answer.encoding}, not 200 ${encoding}`);
        done += 1;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

/** Rounds of the three nginx servers, in turn, on the same list. */
async function measureNginx(
  caseDir: string,
  publicDir: string,
  targetsDir: string,
  found: { binary: string; brotli: string | undefined },
) {
  const coding = found.brotli ? 'br' : 'gzip';
  const extension = coding === 'br' ? '.br' : '.gz';
  const work = path.join(caseDir, 'nginx');
  const apiConf = path.join(targetsDir, 'nginx', 'api.conf');
  const brotliConf = path.join(targetsDir, 'nginx', 'brotli.conf');
  const ports = { target: await freePort(), plain: await freePort(), onTheFly: await freePort() };
  const stops = [
    await startNginx(
      found.binary,
      path.join(work, 'target'),
      ports.target,
      `root ${publicDir};\n        include ${apiConf};\n        ${found.brotli ? `include ${brotliConf};` : ''}`,
      found.brotli,
    ),
    // The same file as the target sends, with nothing but a root and its type.
    await startNginx(
      found.binary,
      path.join(work, 'plain'),
      ports.plain,
      `root ${publicDir};\n        types { }\n        default_type application/json;\n        location = /${LIST}${extension} { add_header Content-Encoding ${coding}; }`,
      undefined,
    ),
    await startNginx(
      found.binary,
      path.join(work, 'on-the-fly'),
      ports.onTheFly,
      `root ${publicDir};\n        types { }\n        default_type application/json;\n        gzip on;\n        gzip_types application/json;`,
      undefined,
    ),
  ];
  const results = { target: [] as number[], plain: [] as number[], onTheFly: [] as number[] };
  try {
    for (let round = 1; round <= LOAD_ROUNDS; round++) {
      const runs = [
        async () => results.target.push(await load(ports.target, LIST_PATH, { 'Accept-Encoding': coding }, coding)),
        async () => results.plain.push(await load(ports.plain, `/${LIST}${extension}`, {}, coding)),
      ];
      // Each first in turn, so that neither always meets the machine after the other.
      for (const run of round % 2 === 1 ? runs : runs.reverse()) await run();
      // Some 30 times slower: a few turns are enough.
      if (round % 4 === 0)
        results.onTheFly.push(await load(ports.onTheFly, `/${LIST}`, { 'Accept-Encoding': 'gzip' }, 'gzip'));
    }
    const rates = (values: number[]) => values.map((value) => Math.round(value)).join(' ');
    console.log(`delivery nginx target/s: ${rates(results.target)}`);
    console.log(`delivery nginx plain/s:  ${rates(results.plain)}`);
    console.log(`delivery nginx on the fly/s: ${rates(results.onTheFly)}`);
  } finally {
    agent.destroy();
    for (const stop of stops) await stop();
  }
  return { coding, results } as const;
}

export async function runDeliveryCase(benchDir: string, dataDir: string): Promise<DeliveryResult> {
  const caseDir = path.join(benchDir, 'delivery');
  await rm(caseDir, { recursive: true, force: true });
  await mkdir(caseDir, { recursive: true });
  const out = (name: string, round: number) => path.join(caseDir, `${name}-r${round}`);
  const { runs: builds, baselines } = await alternatingRounds(
    (round) => {
      settleDisk();
      return runChild(buildJob(dataDir, out('siblings', round), { targets: ['nginx'] }), `siblings    r${round}`);
    },
    (round) => {
      settleDisk();
      const job = buildJob(dataDir, out('no-siblings', round), { targets: ['nginx'], precompress: false });
      return runChild(job, `no-siblings r${round}`);
    },
    BUILD_ROUNDS,
  );
  for (let round = 2; round <= BUILD_ROUNDS; round++) {
    await rm(out('siblings', round), { recursive: true, force: true });
  }
  for (let round = 1; round <= BUILD_ROUNDS; round++)
    await rm(out('no-siblings', round), { recursive: true, force: true });

  const site = out('siblings', 1);
  const publicDir = path.join(site, 'public');
  const raw = await readFile(path.join(publicDir, LIST));
  const wire = {
    br: (await stat(path.join(publicDir, `${LIST}.br`))).size,
    gzip: (await stat(path.join(publicDir, `${LIST}.gz`))).size,
  };

  const found = findNginx();
  let nginx: DeliveryResult['nginx'] = { skipped: 'nginx is not installed (npm run setup:targets installs it)' };
  let coding: 'br' | 'gzip' = 'br';
  if (found) {
    const measured = await measureNginx(caseDir, publicDir, path.join(site, 'targets'), found);
    nginx = measured.results;
    coding = measured.coding;
    // The bytes nginx really sent for the list, which the figures above are about.
    const port = await freePort();
    const stop = await startNginx(
      found.binary,
      path.join(caseDir, 'nginx', 'wire'),
      port,
      `root ${publicDir};\n        include ${path.join(site, 'targets/nginx/api.conf')};\n        ${found.brotli ? `include ${path.join(site, 'targets/nginx/brotli.conf')};` : ''}`,
      found.brotli,
    );
    try {
      for (const sent of ['br', 'gzip'] as const) {
        if (sent === 'br' && !found.brotli) continue;
        const answer = await request(port, LIST_PATH, { 'Accept-Encoding': sent });
        if (answer.encoding !== sent || answer.bytes !== wire[sent])
          throw new Error(
            `nginx sent ${answer.bytes} bytes of ${answer.encoding}, not the ${wire[sent]} of the ${sent} sibling`,
          );
      }
    } finally {
      await stop();
    }
  }

  // The rebuild: one record of the biggest list changed, built again into the same folders.
  const before = await inodes(publicDir);
  const oldBytes = new Map<string, Buffer>();
  for (const file of before.keys())
    if (!isSibling(file)) oldBytes.set(file, await readFile(path.join(publicDir, file)));
  const editedData = path.join(caseDir, 'data-edited');
  await cp(dataDir, editedData, { recursive: true });
  await editOneRecord(editedData);
  settleDisk();
  await runChild(buildJob(editedData, site, { targets: ['nginx'] }), 'rebuild    ');
  const after = await inodes(publicDir);
  const written = [...after].filter(([file, inode]) => before.get(file) !== inode).map(([file]) => file);
  const changed: string[] = [];
  let expectedSiblings = 0;
  for (const [file] of after) {
    if (isSibling(file)) continue;
    const bytes = await readFile(path.join(publicDir, file));
    if (oldBytes.get(file)?.equals(bytes)) continue;
    changed.push(file);
    if (worthCompressing(file, bytes.length)) expectedSiblings += 2;
  }
  console.log(`delivery rebuild: changed ${changed.join(', ')}; written ${written.join(', ')}`);
  const rebuild = {
    changedAnswers: changed.length,
    writtenAnswers: written.filter((file) => !isSibling(file)).length,
    writtenSiblings: written.filter(isSibling).length,
    expectedSiblings,
    files: after.size,
  };
  await rm(caseDir, { recursive: true, force: true });
  return { builds, baselines, rawBytes: raw.length, wire, rebuild, coding, nginx };
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/** The case's lines and whether its targets were met. */
export function deliveryReport(result: DeliveryResult): { lines: string[]; passed: boolean } {
  const ratios = result.builds.map((run, i) => run.ms / (result.baselines[i] as ChildResult).ms);
  const buildRatio = median(ratios);
  const buildOk = buildRatio <= DELIVERY_LIMITS.maxBuildRatio;
  const { rebuild } = result;
  const rebuildOk =
    rebuild.writtenAnswers === rebuild.changedAnswers && rebuild.writtenSiblings === rebuild.expectedSiblings;
  const pct = (bytes: number) => `${((100 * bytes) / result.rawBytes).toFixed(1)}%`;
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const pass = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
  const lines = [
    '',
    `Delivery case: precompressed siblings on the benchmark catalogue (${BUILD_ROUNDS} build rounds, alternating).`,
    '',
    `first build with siblings     ${result.builds.map((run) => seconds(run.ms)).join(' / ')}`,
    `first build without siblings  ${result.baselines.map((run) => seconds(run.ms)).join(' / ')}`,
    `${pass(buildOk)} build time: with/without ${buildRatio.toFixed(2)}x, median of ${ratios.length} rounds (${ratios.map((r) => r.toFixed(2)).join(' / ')}; target <= ${DELIVERY_LIMITS.maxBuildRatio}x)`,
    `wire bytes of ${LIST_PATH} (${result.rawBytes.toLocaleString('en-US')} raw): br ${result.wire.br.toLocaleString('en-US')} (${pct(result.wire.br)}), gzip ${result.wire.gzip.toLocaleString('en-US')} (${pct(result.wire.gzip)})`,
    `${pass(rebuildOk)} rebuild after a one-record edit: ${rebuild.writtenAnswers} files written for ${rebuild.changedAnswers} changed, ${rebuild.writtenSiblings} siblings compressed for ${rebuild.expectedSiblings} expected (2 per changed answer of ${MIN_COMPRESSED_BYTES / 1024} KiB or more); ${rebuild.files - rebuild.writtenAnswers - rebuild.writtenSiblings} of ${rebuild.files} files kept`,
  ];
  let nginxOk = true;
  if ('skipped' in result.nginx) lines.push(`SKIP nginx requests/s: ${result.nginx.skipped}`);
  else {
    const { target, plain, onTheFly } = result.nginx;
    const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    // Turns of equal length: the ratio of the mean rates is that of all requests answered.
    const ratio = mean(target) / mean(plain);
    nginxOk = ratio >= DELIVERY_LIMITS.minNginxRatio;
    const fly = mean(target) / mean(onTheFly);
    const missing = result.coding === 'gzip' ? ' (gzip: the brotli_static module is not installed)' : '';
    lines.push(
      `nginx ${LIST_PATH}, Accept-Encoding: ${result.coding}${missing}: target ${Math.round(mean(target))}/s, plain .${result.coding === 'br' ? 'br' : 'gz'} ${Math.round(mean(plain))}/s, gzip on the fly ${Math.round(mean(onTheFly))}/s`,
      `${pass(nginxOk)} nginx: target/plain ${ratio.toFixed(2)}x over ${target.length} alternating turns of ${LOAD_MS / 1000} s each, ${LOAD_CONNECTIONS} connections (target >= ${DELIVERY_LIMITS.minNginxRatio}x); target/on the fly ${fly.toFixed(1)}x`,
    );
  }
  return { lines, passed: buildOk && rebuildOk && nginxOk };
}
