// What a file of a build holds before it is written: text (the answers and pages, as rendered),
// bytes (a file already encoded, such as one kept as parts for a store that limits each file's
// size), or pieces of bytes (a list the live preview copies together from its records' kept
// bytes), so that a file encoded once for one purpose is not encoded or copied again to be written.

/**
 * A file's bytes as the pieces it is written from, in order: a list of a record's bytes and the
 * commas between them. Written piece by piece (one writev), it is never copied into one buffer
 * on the way to the disk: for the benchmark catalogue's 43 MB company list, that copy and the
 * fresh memory it fills were most of the time from a save to the answer. Joined only when a
 * reader needs one buffer (the precompressed siblings, the Cloudflare parts), once.
 */
export class Pieces {
  readonly byteLength: number;
  private joined: Buffer | undefined;

  constructor(readonly pieces: readonly Uint8Array[]) {
    this.byteLength = pieces.reduce((size, piece) => size + piece.byteLength, 0);
  }

  /** The pieces copied into one buffer, the first time it is asked for. */
  bytes(): Buffer {
    this.joined ??= Buffer.concat(this.pieces, this.byteLength);
    return this.joined;
  }
}

export type FileBody = string | Uint8Array | Pieces;

/** The UTF-8 bytes of `body`: a view of them, not a copy, when it holds bytes already. */
export function bytesOf(body: FileBody): Buffer {
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Pieces) return body.bytes();
  return Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** The size of `body` in bytes; text is measured, not encoded. */
export function sizeOf(body: FileBody): number {
  return typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.byteLength;
}

/** `body` as pieces of bytes, without copying bytes that are held as such. */
function piecesOf(body: FileBody): readonly Uint8Array[] {
  return body instanceof Pieces ? body.pieces : [bytesOf(body)];
}

/**
 * Whether two series of pieces hold the same bytes, cut anywhere: a piece both hold (a record
 * unchanged, a comma) is passed over without reading it.
 */
function samePieces(a: readonly Uint8Array[], b: readonly Uint8Array[]): boolean {
  let [i, j, inA, inB] = [0, 0, 0, 0];
  while (i < a.length && j < b.length) {
    const [pieceA, pieceB] = [a[i] as Uint8Array, b[j] as Uint8Array];
    if (pieceA === pieceB && inA === 0 && inB === 0) {
      [i, j] = [i + 1, j + 1];
      continue;
    }
    const length = Math.min(pieceA.byteLength - inA, pieceB.byteLength - inB);
    if (Buffer.compare(pieceA.subarray(inA, inA + length), pieceB.subarray(inB, inB + length)) !== 0) return false;
    [inA, inB] = [inA + length, inB + length];
    if (inA === pieceA.byteLength) [i, inA] = [i + 1, 0];
    if (inB === pieceB.byteLength) [j, inB] = [j + 1, 0];
  }
  return true;
}

/** Whether two bodies are the same file: the same bytes, whether each is held as text, bytes or pieces. */
export function sameBody(a: FileBody | undefined, b: FileBody | undefined): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a === b;
  if (a === undefined || b === undefined) return a === b;
  // Sizes first: a text's UTF-8 size is counted without encoding it.
  return sizeOf(a) === sizeOf(b) && samePieces(piecesOf(a), piecesOf(b));
}
