// One HTTP/1.1 exchange over a bare TCP socket (node:net): the request goes out byte for byte as
// given, malformed or not, so that what a parser in front of the server (Node's, nginx's, Go's,
// workerd's) makes of it is part of the answer under test. The request asks for
// `Connection: close`, but an answer ends where its own framing says (Content-Length, the last
// chunk, no body for HEAD, 204 and 304), as a client reads it: wrangler's dev proxy keeps
// some connections open for seconds after a complete answer. An answer without framing ends with
// the connection.

import net from 'node:net';
import { Answer } from './http.ts';

/** A request as the fuzzer builds it: the request-target may hold any byte (latin1 string). */
export interface RawRequest {
  method: string;
  target: string;
  /** Header lines besides Host and Connection, in order. */
  headers: ReadonlyArray<readonly [name: string, value: string]>;
}

/** The request line and headers, as they go on the wire (latin1: one char per byte). */
export function requestBytes(request: RawRequest, host: string): Buffer {
  const lines = [
    `${request.method} ${request.target} HTTP/1.1`,
    `Host: ${host}`,
    ...request.headers.map(([name, value]) => `${name}: ${value}`),
    'Connection: close',
  ];
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

/** How the request reads in a failure message: the request line and headers, escaped. */
export function describeRequest(request: RawRequest): string {
  const show = (text: string) => JSON.stringify(text).slice(1, -1);
  return [
    `${show(request.method)} ${show(request.target)}`,
    ...request.headers.map(([n, v]) => `${n}: ${show(v)}`),
  ].join('\n  ');
}

function dechunk(bytes: Buffer): Buffer | null {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const end = bytes.indexOf('\r\n', at);
    if (end < 0) return null;
    const size = Number.parseInt(bytes.subarray(at, end).toString('latin1').split(';')[0] ?? '', 16);
    if (Number.isNaN(size)) return null;
    if (size === 0) return Buffer.concat(parts);
    parts.push(bytes.subarray(end + 2, end + 2 + size));
    at = end + 2 + size + 2;
    if (at > bytes.length) return null;
  }
}

/** The answer, or a string saying why there is none (no bytes, a malformed head, a timeout). */
export function sendRaw(origin: string, request: RawRequest, timeoutMs = 10_000): Promise<Answer | string> {
  const { hostname, port } = new URL(origin);
  return new Promise((done) => {
    const chunks: Buffer[] = [];
    const socket = net.connect({ host: hostname, port: Number(port) });
    const timer = setTimeout(() => {
      socket.destroy();
      done(`no complete answer within ${timeoutMs} ms (${Buffer.concat(chunks).length} bytes)`);
    }, timeoutMs);
    socket.on('connect', () => socket.write(requestBytes(request, `${hostname}:${port}`)));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (isComplete(request.method, Buffer.concat(chunks))) socket.destroy();
    });
    // A reset after the answer (a server that closes with unread bytes) still leaves the answer.
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      clearTimeout(timer);
      const bytes = Buffer.concat(chunks);
      done(parseAnswer(request.method, request.target, bytes));
    });
  });
}

/** Whether the bytes hold a whole answer by its framing, so that nothing more belongs to it. */
function isComplete(method: string, bytes: Buffer): boolean {
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd < 0) return false;
  const head = bytes.subarray(0, headEnd).toString('latin1');
  const code = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]);
  if (Number.isNaN(code) || code < 200) return false;
  const body = bytes.subarray(headEnd + 4);
  if (method === 'HEAD' || code === 304 || code === 204) return true;
  if (/\r\ntransfer-encoding:[^\r]*chunked/i.test(head)) return dechunk(body) !== null;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1];
  return length !== undefined && body.length >= Number(length);
}

function parseAnswer(method: string, target: string, bytes: Buffer): Answer | string {
  if (bytes.length === 0) return 'the connection closed without an answer';
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd < 0) return `an answer without the end of its head: ${JSON.stringify(bytes.toString('latin1'))}`;
  const [statusLine = '', ...lines] = bytes.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
  if (status === undefined) return `not an HTTP status line: ${JSON.stringify(statusLine)}`;
  const headers = lines.map((line) => {
    const colon = line.indexOf(':');
    return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()] as const;
  });
  let body = bytes.subarray(headEnd + 4);
  const code = Number(status);
  const chunked = headers.some(([name, value]) => name === 'transfer-encoding' && /chunked/i.test(value));
  if (method === 'HEAD' || code === 304 || code === 204 || code < 200) {
    if (body.length > 0) return `${code} answer to ${method} with ${body.length} bytes after its head`;
  } else if (chunked) {
    const whole = dechunk(body);
    if (whole === null) return 'a chunked body cut short';
    body = whole;
  } else {
    const length = headers.find(([name]) => name === 'content-length')?.[1];
    if (length !== undefined) {
      if (body.length < Number(length)) return `a body of ${body.length} bytes, Content-Length ${length}`;
      body = body.subarray(0, Number(length));
    }
  }
  return new Answer(method, target, code, headers, body);
}
