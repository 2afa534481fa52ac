// Debian's nginx, started in the foreground from a config in the work folder that includes the
// api.conf the build wrote (targets/nginx/api.conf) exactly as a user's server block would: only
// `listen` and `root` are ours, with brotli.conf and its module where the module is installed.
// Every path nginx writes (pid, logs, temp files) is in workDir.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { spawnProcess, waitForPort } from './process.ts';
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

function nginxConf(workDir: string, publicDir: string, port: number, brotli: string | undefined): string {
  const temp = (name: string) => `${name}_temp_path ${path.join(workDir, `${name}-temp`)};`;
  return `# Written by test/e2e/targets/nginx.ts for one test run.
${brotli ? `load_module ${brotli};` : ''}
worker_processes 1;
pid ${path.join(workDir, 'nginx.pid')};
error_log stderr warn;
# Run as root (CI), the worker would be nobody and could not read a private temp folder.
${process.getuid?.() === 0 ? 'user root;' : ''}
events {
    worker_connections 256;
}
http {
    access_log off;
    ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n    ')}
    server {
        listen 127.0.0.1:${port};
        root ${publicDir};
        include ${path.join(workDir, 'api.conf')};
        ${brotli ? `include ${path.join(workDir, 'brotli.conf')};` : ''}
    }
}
`;
}

/** nginx as the build's README says, with the brotli_static module where `withBrotli` and it is installed. */
function nginxTarget(withBrotli: boolean): Target {
  return {
    name: 'nginx',
    needs: NEEDS,
    async start({ publicDir, targetsDir, port, workDir }) {
      const binary = serverBinary(NEEDS.names);
      for (const file of ['api.conf', 'brotli.conf'])
        await copyFile(path.join(targetsDir, 'nginx', file), path.join(workDir, file));
      const conf = path.join(workDir, 'nginx.conf');
      await writeFile(conf, nginxConf(workDir, publicDir, port, withBrotli ? brotliModule(binary) : undefined));
      const child = spawnProcess(binary, ['-e', 'stderr', '-p', workDir, '-c', conf, '-g', 'daemon off;']);
      await waitForPort(port, child);
      return { origin: `http://127.0.0.1:${port}`, stop: child.stop };
    },
  };
}

export const nginx = nginxTarget(true);
/** Where the brotli_static module is missing: api.conf alone, whose br clients get gzip. */
export const nginxWithoutBrotli = nginxTarget(false);
