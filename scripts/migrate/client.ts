// The client that `npm run import` and `npm run verify` ask a running DRF service with. It is
// built on node:http(s) rather than fetch: fetch refuses TRACE and decompresses bodies, and
// verify compares what the service sends, raw. It never follows a redirect (verify compares the
// 301 itself) and never leaves the service's origin, so a `next` link cannot send it elsewhere.

import http from 'node:http';
import https from 'node:https';
import { UserFacingError } from '../build/errors.ts';

export interface ServiceAnswer {
  /** The absolute URL asked. */
  url: string;
  status: number;
  /** Lower-case names; a header the service sent more than once is a list. */
  headers: Record<string, string | string[]>;
  /** As sent: no Accept-Encoding is asked for, and nothing is decoded. */
  body: Buffer;
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
class AttemptError extends Error {}

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

/** A bounded queue: each task waits for one of `limit` slots, so no more than `limit` are in flight. */
function slots(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    if (active >= limit) await new Promise<void>((resume) => waiting.push(resume));
    else active += 1;
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiting task, so `active` never dips and rises again.
      const next = waiting.shift();
      if (next) next();
      else active -= 1;
    }
  };
}

/** One attempt: the whole answer, or an error; the timeout covers the connection and the body. */
function attempt(url: URL, method: string, headers: Record<string, string>, timeoutMs: number): Promise<ServiceAnswer> {
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((done, fail) => {
    const request = transport.request(url, { method, headers });
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
    request.once('error', (error) => finish(error));
    request.once('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('error', (error) => finish(error));
      response.once('end', () => {
        const headersOf: Record<string, string | string[]> = {};
        for (const [name, values] of Object.entries(response.headersDistinct)) {
          if (values) headersOf[name] = values.length === 1 ? (values[0] as string) : values;
        }
        finish(undefined, {
          url: url.href,
          status: response.statusCode ?? 0,
          headers: headersOf,
          body: Buffer.concat(chunks),
        });
      });
      // Closed without `end`: the answer was cut short. (After `end`, no error is made: an Error
      // records a stack trace, and every answer closes.)
      response.once('close', () => {
        if (!settled) finish(new AttemptError(CAUSES.ECONNRESET));
      });
    });
    request.end();
  });
}

/**
 * A client of the service at `base` (its base URL, with a trailing slash; it may hold a path
 * prefix such as `https://example.com/api/`).
 */
export function serviceClient(base: string, options: ClientOptions = {}) {
  const baseUrl = new URL(base);
  const { timeoutMs = 15_000, retries = 3, retryDelayMs = 250, onAnswer } = options;
  const inSlot = slots(options.concurrency ?? 4);

  return {
    /** `target` is a path relative to base ("event/?ordering=-id") or an absolute URL (a `next` link). */
    request(target: string, init: { method?: string; headers?: Record<string, string> } = {}): Promise<ServiceAnswer> {
      const method = init.method ?? 'GET';
      const url = new URL(target, baseUrl);
      if (url.origin !== baseUrl.origin) {
        const refused = new ServiceError(
          `${method} ${url.href}: ${url.origin} is on another origin than the service's base URL ${base}`,
        );
        return Promise.reject(refused);
      }
      return inSlot(async () => {
        for (let tried = 1; ; tried += 1) {
          const last = tried > retries;
          try {
            const answer = await attempt(url, method, init.headers ?? {}, timeoutMs);
            // A 5xx may pass: after the last retry the caller sees it and decides.
            if (answer.status < 500 || last) {
              onAnswer?.(answer);
              return answer;
            }
          } catch (error) {
            if (last) {
              const times = tried === 1 ? 'tried once' : `tried ${tried} times`;
              throw new ServiceError(`${method} ${url.href}: ${causeOf(error)} (${times})`);
            }
          }
          // The backoff keeps its slot: a service in trouble gets fewer requests meanwhile, not more.
          await sleep(retryDelayMs * 2 ** (tried - 1));
        }
      });
    },
  };
}
