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

/** Whether two bodies are the same file: the same bytes, whether each is held as text or bytes. */
export function sameBody(a: FileBody | undefined, b: FileBody | undefined): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a === b;
  if (a === undefined || b === undefined) return a === b;
  // Sizes first: a text's UTF-8 size is counted without encoding it.
  return sizeOf(a) === sizeOf(b) && bytesOf(a).equals(bytesOf(b));
}
