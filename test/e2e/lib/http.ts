// The two HTTP clients of the suite, both returning the same Answer: Playwright's
// APIRequestContext for ordinary requests, and raw node:http for URLs that must reach the
// server byte for byte (fetch-style clients resolve `..`, re-encode and normalise them).
// Redirects are never followed: a 301 is an answer under test.

import http from 'node:http';
import type { APIRequestContext } from '@playwright/test';

export interface RequestInit {
  method?: string;
  headers?: Record<string, string>;
}

export class Answer {
  constructor(
    readonly method: string,
    readonly url: string,
    readonly status: number,
    /** Every header line as received (names lower-cased), duplicates kept. */
    readonly headers: ReadonlyArray<readonly [name: string, value: string]>,
    readonly body: Buffer,
  ) {}

  /** All values of a header, so that a duplicated header is seen as such. */
  all(name: string): string[] {
    const key = name.toLowerCase();
    return this.headers.filter(([n]) => n === key).map(([, v]) => v);
  }

  header(name: string): string | undefined {
    return this.all(name)[0];
  }

  get text(): string {
    return this.body.toString('utf8');
  }

  json<T = unknown>(): T {
    return JSON.parse(this.text) as T;
  }

  toString(): string {
    return `${this.method} ${this.url} → ${this.status}`;
  }
}

export class Client {
  constructor(
    private readonly context: APIRequestContext,
    /** http://127.0.0.1:<port> of the running target. */
    readonly origin: string,
  ) {}

  /** An ordinary request through Playwright; `path` is relative to the origin. */
  async fetch(path: string, init: RequestInit = {}): Promise<Answer> {
    const method = init.method ?? 'GET';
    const response = await this.context.fetch(this.origin + path, {
      method,
      headers: init.headers ?? {},
      maxRedirects: 0,
      failOnStatusCode: false,
    });
    const headers = response.headersArray().map(({ name, value }) => [name.toLowerCase(), value] as const);
    return new Answer(method, path, response.status(), headers, await response.body());
  }

  get(path: string, headers?: Record<string, string>): Promise<Answer> {
    return this.fetch(path, { method: 'GET', headers: headers ?? {} });
  }

  /** Sends `target` as the request-target exactly as written (no resolving, no re-encoding). */
  raw(target: string, init: RequestInit = {}): Promise<Answer> {
    const method = init.method ?? 'GET';
    const { hostname, port } = new URL(this.origin);
    return new Promise((done, fail) => {
      const request = http.request(
        { host: hostname, port, method, path: target, headers: init.headers ?? {}, agent: false },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', fail);
          response.on('end', () => {
            const headers: Array<readonly [string, string]> = [];
            for (let i = 0; i < response.rawHeaders.length; i += 2) {
              headers.push([(response.rawHeaders[i] as string).toLowerCase(), response.rawHeaders[i + 1] as string]);
            }
            done(new Answer(method, target, response.statusCode ?? 0, headers, Buffer.concat(chunks)));
          });
        },
      );
      request.setTimeout(10_000, () => request.destroy(new Error(`${method} ${target}: no answer within 10 s`)));
      request.on('error', fail);
      request.end();
    });
  }
}
