// Debian's nginx, started with the command of targets/nginx/README.md on the nginx.conf the build
// wrote around api.conf: the test's port in its `listen`, and brotli.conf with its module where
// the module is installed. Every path nginx writes (pid, temp files) is in workDir.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { LOCAL_PORT } from '../../../scripts/targets/web-servers/local-run.ts';
import { waitForPort } from './process.ts';
import { startFromReadme } from './readme-command.ts';
import { serverBinary } from './server-binary.ts';
import type { ProgramNeed, Target } from './target.ts';

const NEEDS: ProgramNeed = { what: 'nginx', names: ['nginx'] };

/**
 * The brotli_static module of this nginx (Debian's libnginx-mod-http-brotli-static), in the
 * modules folder nginx was built with; undefined when it is not installed. The started nginx
 * reads no /etc/nginx/modules-enabled/, so it is loaded here, as a user's nginx.conf would.
 */
export function brotliModule(binary: string): string | undefined {
  const built = spawnSync(binary, ['-V'], { encoding: 'utf8' });
  const modules = /--modules-path=(\S+)/.exec(`${built.stderr}${built.stdout}`)?.[1];
  const file = modules && path.join(modules, 'ngx_http_brotli_static_module.so');
  return file && existsSync(file) ? file : undefined;
}

/** nginx as its README runs it, with the brotli_static module where `withBrotli` and it is installed. */
function nginxTarget(withBrotli: boolean): Target {
  return {
    name: 'nginx',
    needs: NEEDS,
    async start({ publicDir, targetsDir, port, workDir }) {
      const binary = serverBinary(NEEDS.names);
      const brotli = withBrotli ? brotliModule(binary) : undefined;
      const conf = (from: string, to: string) => ({ file: 'nginx.conf', from, to });
      const child = await startFromReadme({
        server: 'nginx',
        publicDir,
        targetsDir,
        workDir,
        program: { named: '/usr/sbin/nginx', found: binary },
        edits: [
          conf(`127.0.0.1:${LOCAL_PORT};`, `127.0.0.1:${port};`),
          // The two lines the README says to uncomment once the module is installed.
          ...(brotli
            ? [
                conf(
                  '# load_module /usr/lib/nginx/modules/ngx_http_brotli_static_module.so;',
                  `load_module ${brotli};`,
                ),
                conf('# include brotli.conf;', 'include brotli.conf;'),
              ]
            : []),
        ],
      });
      await waitForPort(port, child);
      return { origin: `http://127.0.0.1:${port}`, stop: child.stop };
    },
  };
}

export const nginx = nginxTarget(true);
/** Where the brotli_static module is missing: api.conf alone, whose br clients get gzip. */
export const nginxWithoutBrotli = nginxTarget(false);
