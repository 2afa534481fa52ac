// Debian's nginx, started in the foreground from a config in the work folder that includes the
// api.conf the build wrote (targets/nginx/api.conf) exactly as a user's server block would: only
// `listen` and `root` are ours. Every path nginx writes (pid, logs, temp files) is in workDir.

import { copyFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { spawnProcess, waitForPort } from './process.ts';
import { serverBinary } from './server-binary.ts';
import type { ProgramNeed, Target } from './target.ts';

const NEEDS: ProgramNeed = { what: 'nginx', names: ['nginx'] };

function nginxConf(workDir: string, publicDir: string, port: number): string {
  const temp = (name: string) => `${name}_temp_path ${path.join(workDir, `${name}-temp`)};`;
  return `# Written by test/e2e/targets/nginx.ts for one test run.
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
    }
}
`;
}

export const nginx: Target = {
  name: 'nginx',
  needs: NEEDS,
  async start({ publicDir, targetsDir, port, workDir }) {
    const binary = serverBinary(NEEDS.names);
    await copyFile(path.join(targetsDir, 'nginx', 'api.conf'), path.join(workDir, 'api.conf'));
    const conf = path.join(workDir, 'nginx.conf');
    await writeFile(conf, nginxConf(workDir, publicDir, port));
    const child = spawnProcess(binary, ['-e', 'stderr', '-p', workDir, '-c', conf, '-g', 'daemon off;']);
    await waitForPort(port, child);
    return { origin: `http://127.0.0.1:${port}`, stop: child.stop };
  },
};
