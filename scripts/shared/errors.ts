// The errors every layer shares: a base that names each error by its class and keeps what caused
// it, the kind a command says in one line, and the one wording of the file system's errno codes.

/** An error of this project: `name` is its class's, and `cause` keeps the error it wraps. */
export class ProjectError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * A problem of the user's input or environment that its message says whole, in one line (a
 * folder that cannot be written, a port in use, a service that does not answer): a command
 * prints the message and no stack (cli/fail.ts).
 */
export class UserFacingError extends ProjectError {}

/**
 * An input the command cannot take at all (a side of a diff that is no side, a git that refuses
 * the setting): its message after the command's name, and exit status 2 (cli/fail.ts).
 */
export class RefusedInput extends UserFacingError {}

const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'no such file or folder',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EISDIR: 'a folder is where a file was expected',
  EEXIST: 'a file is in the way of the folder',
  ELOOP: 'too many symbolic links',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
  EIO: 'an input/output error of the device',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exhausted',
  EROFS: 'the file system is read-only',
  ENAMETOOLONG: 'the file name is too long',
  EBUSY: 'the folder is in use',
  EXDEV: 'the output is on another file system than its staging folder',
};

/** What a file system error code means, in words; undefined for a code without words here. */
export function errnoText(code: string): string | undefined {
  return ERRNO_TEXT[code];
}
