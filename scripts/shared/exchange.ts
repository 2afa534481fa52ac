// Exchanging two folders in one atomic step, so that a reader of the output never finds it
// missing: Linux's renameat2(2) with RENAME_EXCHANGE. Node has no binding for it (fs.rename is
// rename(2), which cannot replace a folder that holds files), no maintained package on npm offers
// one, and a native addon would need a compiler on every machine that installs the project. So
// it is called through perl's syscall(): perl is part of every Debian and Ubuntu system (the
// perl-base package is essential) and of the build images of the hosted CI and static hosts.
// Where that cannot work (another system, an architecture whose system call number is not
// listed, no perl, a file system without the flag), exchangeFolders() says so and writeOutput
// falls back to the renames of swap.ts.
//
// One perl serves every exchange of a process: it is started at the first and then reads pairs of
// paths on its standard input and answers each with a status line. A build exchanges ten folders
// (public/, schemas/, each target's), and Node's spawn() forks on the main thread, which holds it
// the longer the larger the heap and the busier the machine: a spawn per folder cost a loaded
// machine seconds. When this process ends, however it ends, perl reads the end of its input and
// exits.

import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Socket } from 'node:net';
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

// The paths are data, never part of the program: each arrives NUL-terminated (no path holds a
// NUL), and perl passes a string argument of syscall() as a pointer to its NUL-terminated bytes,
// a number as an integer. The answer is 0, or the errno (255 when there is none).
const PROGRAM = `my $number = $ARGV[0] + 0;
$/ = "\\0";
$| = 1;
while (defined(my $from = <STDIN>)) {
  my $to = <STDIN>;
  last unless defined $to;
  chomp $from;
  chomp $to;
  my $done = syscall($number, ${AT_FDCWD}, $from, ${AT_FDCWD}, $to, ${RENAME_EXCHANGE}) == 0;
  print $done ? "0\\n" : (($! + 0) || 255) . "\\n";
}`;

interface Request {
  a: string;
  b: string;
  resolve: (exchanged: boolean) => void;
  reject: (error: Error) => void;
}

/** The perl that exchanges folders for this process, and the requests it has not answered, oldest first. */
interface Exchanger {
  // Pipes to a child are sockets, which can stop holding the process open.
  child: ChildProcessByStdio<Socket, Socket, null>;
  waiting: Request[];
}

let exchanger: Exchanger | undefined;
// Set when perl could not be started: the renames then serve every later swap of this process.
let noPerl = false;

/**
 * renameat2's number on this system, or undefined where the exchange is not tried
 * (STATIC_API_SWAP=renames forces that, for the fallback's tests).
 */
function renameat2Number(): number | undefined {
  if (process.platform !== 'linux' || process.env.STATIC_API_SWAP === 'renames') return undefined;
  return RENAMEAT2[process.arch];
}

/** Whether the exchanger keeps this process alive: only while an exchange is awaited. */
function holdProcess(current: Exchanger, hold: boolean): void {
  for (const handle of [current.child, current.child.stdout, current.child.stdin]) {
    if (hold) handle.ref();
    else handle.unref();
  }
}

function answer(current: Exchanger, line: string): void {
  const request = current.waiting.shift();
  if (!request) return;
  if (current.waiting.length === 0) holdProcess(current, false);
  const status = Number(line);
  // Not 0: no exchange on this kernel or file system, or the file system's refusal.
  if (status === 0) request.resolve(true);
  else if (!Number.isInteger(status) || UNSUPPORTED.has(status) || status === 255) request.resolve(false);
  else {
    const code = ERRNO_NAMES.get(status) ?? `errno ${status}`;
    request.reject(
      Object.assign(new Error(`${code}: cannot exchange ${request.a} and ${request.b}`), { code, path: request.b }),
    );
  }
}

/** Starts the perl that exchanges folders; it answers the requests in the order they were written. */
function startExchanger(syscall: number): Exchanger {
  const child = spawn('perl', ['-e', PROGRAM, String(syscall)], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    stdio: ['pipe', 'pipe', 'ignore'],
  }) as ChildProcessByStdio<Socket, Socket, null>;
  const current: Exchanger = { child, waiting: [] };
  let pending = '';
  child.stdout.setEncoding('latin1');
  child.stdout.on('data', (chunk: string) => {
    pending += chunk;
    for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n')) {
      answer(current, pending.slice(0, end));
      pending = pending.slice(end + 1);
    }
  });
  // Reported by the requests: no perl (ENOENT), or a perl that ended.
  child.stdin.on('error', () => {});
  const stop = () => {
    if (exchanger === current) exchanger = undefined;
    // No perl, or a perl that ended before answering: as before a spawn per exchange, "cannot
    // here", and the caller falls back to the renames.
    for (const request of current.waiting.splice(0)) request.resolve(false);
  };
  child.on('error', () => {
    noPerl = true;
    stop();
  });
  child.on('close', stop);
  holdProcess(current, false);
  return current;
}

/**
 * Atomically exchanges the folders at the absolute paths `a` and `b`, which must both exist.
 * Resolves true when exchanged, false when this system cannot (then nothing changed); rejects
 * with a file system error (its `code` and `path` set) when the system refused.
 */
export function exchangeFolders(a: string, b: string): Promise<boolean> {
  const syscall = renameat2Number();
  if (syscall === undefined || noPerl) return Promise.resolve(false);
  exchanger ??= startExchanger(syscall);
  const current = exchanger;
  return new Promise((resolve, reject) => {
    current.waiting.push({ a, b, resolve, reject });
    if (current.waiting.length === 1) holdProcess(current, true);
    current.child.stdin.write(`${a}\0${b}\0`);
  });
}
