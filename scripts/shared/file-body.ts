// What a file of a build holds before it is written: text (the answers and pages, as rendered) or
// bytes (a file already encoded, such as the parts of a file too large for one store: parts.ts),
// so that a file encoded once for one purpose is not encoded again to be written.

export type FileBody = string | Uint8Array;

/** The UTF-8 bytes of `body`: a view of them, not a copy, when it holds bytes already. */
export function bytesOf(body: FileBody): Buffer {
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  return Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** The size of `body` in bytes; text is measured, not encoded. */
export function sizeOf(body: FileBody): number {
  return typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.byteLength;
}

/** Whether two bodies are the same file: the same text, or the same bytes. */
export function sameBody(a: FileBody | undefined, b: FileBody | undefined): boolean {
  if (typeof a === 'string' || typeof b === 'string' || a === undefined || b === undefined) return a === b;
  return a.byteLength === b.byteLength && bytesOf(a).equals(b);
}
