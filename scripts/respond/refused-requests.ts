// What the local server answers to a request Node's HTTP parser refused (its `clientError`): the
// contract's answer when the request line is still one it covers, else 400 or 431. Node hands over
// only the socket there, so the answer is written on it as raw HTTP/1.1, apart from the server's
// one path that sends answers and files (node-server.ts).

import http from 'node:http';
import type { Duplex } from 'node:stream';
import { MALFORMED_BODY } from '../contract/bodies.ts';
import { type ApiRequest, bodyBytes, type FileStore, type Handler, logFailure } from './handler.ts';

/** The error of Node's `clientError` event: the parser's code and the bytes it refused. */
export type ParserError = Error & { code?: string; rawPacket?: Buffer };

/** The path and query of a request-target, also in absolute form (`GET http://host/company/`). */
export function originForm(url: string): string {
  if (url.startsWith('/')) return url;
  try {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
}

/** A request's line and header fields, as far as the bytes Node's parser refused hold them. */
interface RefusedHead {
  method: string;
  /** The request-target as sent, raw bytes above 0x7F included (one char per byte). */
  target: string;
  fields: [name: string, value: string][];
}

function readHead(packet: Buffer | undefined): RefusedHead | undefined {
  const head = packet?.toString('latin1') ?? '';
  const line = /^([\x21-\xff]+) ([\x21-\xff]+) HTTP\/1\.[01]\r?\n/.exec(head);
  if (!line) return undefined;
  const end = head.search(/\r?\n\r?\n/);
  const fields = head
    .slice(line[0].length, end === -1 ? undefined : end)
    .split(/\r?\n/)
    .flatMap((text): [string, string][] => {
      const colon = text.indexOf(':');
      return colon > 0 ? [[text.slice(0, colon), text.slice(colon + 1).replace(/^[ \t]+/, '')]] : [];
    });
  return { method: line[1] as string, target: line[2] as string, fields };
}

/**
 * Whether Node's parser would refuse this head as too large (431) had it read the method: it
 * counts the request-target and each field's name and value (without the white space before
 * the value) against its limit. An unknown method is refused before the fields are read, so
 * its head is measured here, that such a request gets the 431 a GET with the same fields gets.
 */
function overLimit(head: RefusedHead): boolean {
  const counted = head.fields.reduce((sum, [name, value]) => sum + name.length + value.length, head.target.length);
  return counted >= http.maxHeaderSize;
}

/**
 * A request Node's HTTP parser refuses whose request line is still one the contract covers: a
 * method llhttp does not know (`FOO`, `get`: methods are case-sensitive tokens) or raw bytes
 * above 0x7F in the url, sent as their percent-escapes. Undefined for anything else.
 */
function refusedRequest(code: string | undefined, head: RefusedHead | undefined): ApiRequest | undefined {
  if (code !== 'HPE_INVALID_METHOD' && code !== 'HPE_INVALID_URL') return undefined;
  if (head === undefined || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(head.method) || overLimit(head)) return undefined;
  const url = head.target.replace(/[\x80-\xff]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const field = (name: string) =>
    head.fields.find(([given]) => given.toLowerCase() === name.toLowerCase())?.[1]?.trim();
  return {
    method: head.method,
    url: originForm(url),
    ifNoneMatch: field('If-None-Match'),
    accept: field('Accept'),
  };
}

/**
 * The `clientError` listener of a server answering with the handler `handlerNow()` gives, from
 * `store` (no precompressed sibling: the refused head's Accept-Encoding is not read).
 */
export function refusalAnswerer(
  handlerNow: () => Promise<Handler>,
  store: FileStore<unknown>,
): (error: ParserError, socket: Duplex) => void {
  const answered = new WeakSet<Duplex>();

  async function answer(error: ParserError, socket: Duplex): Promise<void> {
    // The parser stays in its error and refuses each later packet of the socket again: the
    // first refusal is the one answered.
    if (answered.has(socket)) return;
    answered.add(socket);
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const handler = await handlerNow();
    const head = readHead(error.rawPacket);
    const request = refusedRequest(error.code, head);
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW' || (head !== undefined && overLimit(head));
    // Else 400 Malformed request (DRF's ParseError), with the headers of every answer.
    const reply = request
      ? await handler.answer(request, store)
      : { status: tooLarge ? 431 : 400, headers: handler.failure('/').headers, body: MALFORMED_BODY };
    // The head of a long request may come in several packets, the request line not in the one
    // refused: a refusal of a request whose method is unknown has no body, which frames an
    // answer to HEAD too.
    const body = bodyBytes('file' in reply ? await reply.file.text() : (reply.body ?? ''));
    const bytes = head === undefined || head.method === 'HEAD' || reply.status === 304 ? Buffer.alloc(0) : body;
    const length = head === undefined ? 0 : body.length;
    const lines = [
      `HTTP/1.1 ${reply.status} ${http.STATUS_CODES[reply.status] ?? ''}`,
      ...Object.entries(reply.headers).map(([name, value]) => `${name}: ${value}`),
      ...(reply.status === 304 ? [] : [`Content-Length: ${length}`]),
      'Connection: close',
    ];
    socket.end(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), bytes]));
  }

  return (error, socket) => {
    answer(error, socket).catch((failure: unknown) => {
      logFailure('answering a request the HTTP parser refused', failure);
      socket.destroy();
    });
  };
}
