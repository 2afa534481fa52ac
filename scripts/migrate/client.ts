// The client that `npm run import` and `npm run verify` ask a running DRF service with. It is
// built on node:http(s) rather than fetch: fetch refuses TRACE and decompresses bodies, and
// verify compares what the service sends, raw. It never follows a redirect (verify compares the
// 301 itself) and never leaves the service's origin, so a `next` link cannot send it elsewhere.

import http from 'node:http';
import https from 'node:https';
import { ProjectError, UserFacingError } from '../shared/errors.ts';
import { concurrencyLimit } from '../shared/map-limited.ts';

export interface ServiceAnswer {
  /** The absolute URL asked. */
  url: string;
  status: number;
  /** Lower-case names; a header the service sent more than once is a list. */
  headers: Record<string, string | string[]>;
  /** As sent: no Accept-Encoding is asked for, and nothing is decoded. Empty for HEAD. */
  body: Buffer;
  /** The service sent a body after its answer to HEAD, which HTTP forbids (gunicorn does). */
  bodyOnHead?: boolean;
}

export interface ClientOptions {
  /** Requests in flight at most; default 4. */
  concurrency?: number;
  /** Per request, from the connection to the last byte of the body; default 15_000. */
  timeoutMs?: number;
  /** Extra attempts after a connection error, a timeout or a 5xx; default 3. */
  retries?: number;
  /** The first backoff, doubled at each retry; default 250. */
  retryDelayMs?: number;
  /** Called with each answer, for progress. */
  onAnswer?: (answer: ServiceAnswer) => void;
}

/** The service could not be asked: one line naming the request and the cause. */
export class ServiceError extends UserFacingError {}

/** A failed attempt that is worth another: the cause, said for the final message. */
class AttemptError extends ProjectError {}

const CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'the connection was closed before the answer was complete',
  EPIPE: 'the connection was closed while sending the request',
  ENOTFOUND: 'unknown host name',
  EAI_AGAIN: 'the host name could not be looked up',
  EHOSTUNREACH: 'the host cannot be reached',
  ENETUNREACH: 'the network cannot be reached',
};

function causeOf(error: unknown): string {
  if (error instanceof AttemptError) return error.message;
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code !== undefined && CAUSES[code] !== undefined) return CAUSES[code];
  const message = error instanceof Error ? error.message : String(error);
  return message === 'socket hang up' ? (CAUSES.ECONNRESET as string) : message;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * One attempt: the whole answer, or an error; the timeout covers the connection and the body.
 * Whatever framing the answer has (Content-Length, chunked, or none until the connection
 * closes), node:http reads it.
 *
 * HEAD is asked on a connection of its own, with `Connection: close`, and its answer is read as
 * a GET's: node:http skips the body of an answer to HEAD by the request's method, read when the
 * answer comes, so a service that sends a body on HEAD (gunicorn does) would make its parser
 * fail on the body's first byte, or not see it at all when it comes a moment later. Read as a
 * GET's, such a body is read whole and reported, and an answer without one ends when the service
 * closes the connection.
 */
function attempt(url: URL, method: string, headers: Record<string, string>, timeoutMs: number): Promise<ServiceAnswer> {
  const transport = url.protocol === 'https:' ? https : http;
  const head = method === 'HEAD';
  return new Promise((done, fail) => {
    const request = transport.request(
      url,
      head ? { method, headers: { ...headers, Connection: 'close' }, agent: false } : { method, headers },
    );
    let settled = false;
    // The first outcome wins: a timeout destroys the request, whose own error must not replace it.
    const finish = (error: unknown, answer?: ServiceAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (answer) done(answer);
      else fail(error);
    };
    const timer = setTimeout(() => {
      finish(new AttemptError(`no answer within ${timeoutMs / 1000} s`));
      request.destroy();
    }, timeoutMs);
    /** The answer as far as it came, once its head is read. */
    let received: (() => ServiceAnswer) | undefined;
    // An answer to HEAD without a body ends when the connection closes, even where its
    // Content-Length announces the body a GET would get: that close is its end, not an error.
    const failed = (error: unknown) => (head && received ? finish(undefined, received()) : finish(error));
    request.once('error', failed);
    request.once('response', (response) => {
      const chunks: Buffer[] = [];
      const headersOf: Record<string, string | string[]> = {};
      for (const [name, values] of Object.entries(response.headersDistinct)) {
        if (values) headersOf[name] = values.length === 1 ? (values[0] as string) : values;
      }
      const answer = (): ServiceAnswer => {
        const body = Buffer.concat(chunks);
        const common = { url: url.href, status: response.statusCode ?? 0, headers: headersOf };
        return head ? { ...common, body: Buffer.alloc(0), bodyOnHead: body.length > 0 } : { ...common, body };
      };
      received = answer;
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('error', failed);
      response.once('end', () => finish(undefined, answer()));
      // Closed without `end`: the answer was cut short, but for HEAD, which has no body to cut.
      // (After `end`, no error is made: an Error records a stack trace, and every answer closes.)
      response.once('close', () => {
        if (!settled) failed(new AttemptError(CAUSES.ECONNRESET as string));
      });
    });
    request.end();
    // After end(), which wrote the request line: this changes only how the answer is read.
    if (head) request.method = 'GET';
  });
}

/**
 * A client of the service at `base` (its base URL, with a trailing slash; it may hold a path
 * prefix such as `https://example.com/api/`).
 */
export function serviceClient(base: string, options: ClientOptions = {}) {
  const baseUrl = new URL(base);
  const { timeoutMs = 15_000, retries = 3, retryDelayMs = 250, onAnswer } = options;
  const inSlot = concurrencyLimit(options.concurrency ?? 4);

  return {
    /** `url` is a path relative to base ("event/?ordering=-id") or an absolute URL (a `next` link). */
    request(url: string, init: { method?: string; headers?: Record<string, string> } = {}): Promise<ServiceAnswer> {
      const method = init.method ?? 'GET';
      const absolute = new URL(url, baseUrl);
      if (absolute.origin !== baseUrl.origin) {
        const refused = new ServiceError(
          `${method} ${absolute.href}: ${absolute.origin} is on another origin than the service's base URL ${base}`,
        );
        return Promise.reject(refused);
      }
      return inSlot(async () => {
        for (let tried = 1; ; tried += 1) {
          const last = tried > retries;
          try {
            const answer = await attempt(absolute, method, init.headers ?? {}, timeoutMs);
            // A 5xx may pass: after the last retry the caller sees it and decides.
            if (answer.status < 500 || last) {
              onAnswer?.(answer);
              return answer;
            }
          } catch (error) {
            if (last) {
              const times = tried === 1 ? 'tried once' : `tried ${tried} times`;
              throw new ServiceError(`${method} ${absolute.href}: ${causeOf(error)} (${times})`);
            }
          }
          // The backoff keeps its slot: a service in trouble gets fewer requests meanwhile, not more.
          await sleep(retryDelayMs * 2 ** (tried - 1));
        }
      });
    },
  };
}
