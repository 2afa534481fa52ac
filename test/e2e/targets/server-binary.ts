// Finds a web server binary installed from Debian's packages (nginx, caddy, apache2). apache2
// lives in /usr/sbin, which a non-root PATH may lack. A missing server is an error that says
// how to install it, not a skipped target.

import { access, constants } from 'node:fs/promises';
import path from 'node:path';

const SEARCH = [...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean), '/usr/sbin', '/usr/bin', '/sbin'];

export async function serverBinary(name: string): Promise<string> {
  for (const dir of SEARCH) {
    const candidate = path.join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error(`${name} is not installed: run .ci/install-servers.sh (as root)`);
}
