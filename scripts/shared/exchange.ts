// Exchanging two folders in one atomic step, so that a reader of the output never finds it
// missing: Linux's renameat2(2) with RENAME_EXCHANGE. Node has no binding for it (fs.rename is
// rename(2), which cannot replace a folder that holds files), no maintained package on npm offers
// one, and a native addon would need a compiler on every machine that installs the project. So
// it is called through perl's syscall(): perl is part of every Debian and Ubuntu system (the
// perl-base package is essential) and of the build images of the hosted CI and static hosts.
// Where that cannot work (another system, an architecture whose system call number is not
// listed, no perl, a file system without the flag), exchangeFolders() says so and writeOutput
// falls back to the renames of swap.ts.

import { execFile } from 'node:child_process';
import { constants } from 'node:os';

// renameat2's number: x86-64 has its own table; arm64 and riscv64 share the generic one.
const RENAMEAT2: Partial<Record<NodeJS.Architecture, number>> = { x64: 316, arm64: 276, riscv64: 276 };
const AT_FDCWD = -100;
const RENAME_EXCHANGE = 2;

// The errno values meaning "not here": no such system call, a flag or file system that does not
// support it. Any other failure (permission, read-only file system) is the file system's answer
// and is reported as such, by the name Node gives that errno.
const { ENOSYS, EINVAL, EOPNOTSUPP } = constants.errno;
const UNSUPPORTED = new Set([ENOSYS, EINVAL, EOPNOTSUPP]);
const ERRNO_NAMES = new Map(Object.entries(constants.errno).map(([name, number]) => [number, name]));

// The paths are arguments, never part of the program: perl passes a string argument of syscall()
// as a pointer to its NUL-terminated bytes, and a number as an integer.
const PROGRAM = `my ($number, $from, $to) = @ARGV;
syscall($number + 0, ${AT_FDCWD}, $from, ${AT_FDCWD}, $to, ${RENAME_EXCHANGE}) == 0 or exit($! + 0 || 255);`;

/**
 * renameat2's number on this system, or undefined where the exchange is not tried
 * (STATIC_API_SWAP=renames forces that, for the fallback's tests).
 */
function renameat2Number(): number | undefined {
  if (process.platform !== 'linux' || process.env.STATIC_API_SWAP === 'renames') return undefined;
  return RENAMEAT2[process.arch];
}

/**
 * Atomically exchanges the folders at the absolute paths `a` and `b`, which must both exist.
 * Resolves true when exchanged, false when this system cannot (then nothing changed); rejects
 * with a file system error (its `code` and `path` set) when the system refused.
 */
export function exchangeFolders(a: string, b: string): Promise<boolean> {
  const syscall = renameat2Number();
  if (syscall === undefined) return Promise.resolve(false);
  const args = ['-e', PROGRAM, String(syscall), a, b];
  return new Promise((resolve, reject) => {
    execFile('perl', args, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } }, (error) => {
      if (!error) return resolve(true);
      const status = typeof error.code === 'number' ? error.code : undefined;
      // No perl (ENOENT from the spawn), or no exchange on this kernel or file system.
      if (status === undefined || UNSUPPORTED.has(status) || status === 255) return resolve(false);
      const code = ERRNO_NAMES.get(status) ?? `errno ${status}`;
      reject(Object.assign(new Error(`${code}: cannot exchange ${a} and ${b}`), { code, path: b }));
    });
  });
}
