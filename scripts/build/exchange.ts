// Exchanging two folders in one atomic step, so that a reader of the output never finds it
// missing: Linux's renameat2(2) with RENAME_EXCHANGE. Node has no binding for it (fs.rename is
// rename(2), which cannot replace a folder that holds files), no maintained package on npm offers
// one, and a native addon would need a compiler on every machine that installs the project. So
// it is called through perl's syscall(): perl is part of every Debian and Ubuntu system (the
// perl-base package is essential) and of the build images of the hosted CI and static hosts.
// Where that cannot work (another system, an architecture whose system call number is not
// listed, no perl, a file system without the flag), exchangeFolders() says so and swap.ts falls
// back to two renames.

import { execFile } from 'node:child_process';

// renameat2's number: x86-64 has its own table; arm64 and riscv64 share the generic one.
const RENAMEAT2: Partial<Record<NodeJS.Architecture, number>> = { x64: 316, arm64: 276, riscv64: 276 };
const AT_FDCWD = -100;
const RENAME_EXCHANGE = 2;

// The errno values meaning "not here": no such system call, a flag or file system that does not
// support it. Any other failure (permission, read-only file system) is the file system's answer
// and is reported as such.
const UNSUPPORTED = new Set([38 /* ENOSYS */, 22 /* EINVAL */, 95 /* EOPNOTSUPP */]);
const ERRNO_CODES: Record<number, string> = {
  1: 'EPERM',
  2: 'ENOENT',
  5: 'EIO',
  13: 'EACCES',
  16: 'EBUSY',
  18: 'EXDEV',
  20: 'ENOTDIR',
  28: 'ENOSPC',
  30: 'EROFS',
  36: 'ENAMETOOLONG',
};

// The paths are arguments, never part of the program: perl passes a string argument of syscall()
// as a pointer to its NUL-terminated bytes, and a number as an integer.
const PROGRAM = `my ($number, $from, $to) = @ARGV;
syscall($number + 0, ${AT_FDCWD}, $from, ${AT_FDCWD}, $to, ${RENAME_EXCHANGE}) == 0 or exit($! + 0 || 255);`;

/** Whether to try the exchange: STATIC_API_SWAP=renames forces the fallback, for its tests. */
function mayExchange(): boolean {
  return (
    process.platform === 'linux' && RENAMEAT2[process.arch] !== undefined && process.env.STATIC_API_SWAP !== 'renames'
  );
}

/**
 * Atomically exchanges the folders at the absolute paths `a` and `b`, which must both exist.
 * Resolves true when exchanged, false when this system cannot (then nothing changed); rejects
 * with a file system error (its `code` and `path` set) when the system refused.
 */
export function exchangeFolders(a: string, b: string): Promise<boolean> {
  const syscall = RENAMEAT2[process.arch];
  if (!mayExchange() || syscall === undefined) return Promise.resolve(false);
  const args = ['-e', PROGRAM, String(syscall), a, b];
  return new Promise((resolve, reject) => {
    execFile('perl', args, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } }, (error) => {
      if (!error) return resolve(true);
      const status = typeof error.code === 'number' ? error.code : undefined;
      // No perl (ENOENT from the spawn), or no exchange on this kernel or file system.
      if (status === undefined || UNSUPPORTED.has(status) || status === 255) return resolve(false);
      const code = ERRNO_CODES[status] ?? `errno ${status}`;
      reject(Object.assign(new Error(`${code}: cannot exchange ${a} and ${b}`), { code, path: b }));
    });
  });
}
