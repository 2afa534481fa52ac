// The `_headers` file (Netlify and Cloudflare Pages format) is where the response headers are
// written down once; the build checks it, copies it into the output, and the local server
// and the targets' configs apply the same rules.

import { ProjectError } from '../shared/errors.ts';

/** The headers every list must carry for the API to answer as DRF does (docs/contract.md, section 2). */
export const REQUIRED_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'application/json',
  Vary: 'Accept',
  Allow: 'GET, HEAD, OPTIONS',
};

export interface HeaderRule {
  pattern: string;
  headers: Array<[name: string, value: string]>;
}

/** A line of `_headers` that is not a path, an indented `Name: value`, a comment or blank. */
export class HeadersFileError extends ProjectError {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
  }
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Parses the rules; every malformed line is reported, not just the first. */
export function parseHeadersFile(text: string): { rules: HeaderRule[]; errors: HeadersFileError[] } {
  const rules: HeaderRule[] = [];
  const errors: HeadersFileError[] = [];
  const withoutBom = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  withoutBom.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    if (!/^\s/.test(raw)) {
      if (trimmed.startsWith('/')) rules.push({ pattern: trimmed, headers: [] });
      else errors.push(new HeadersFileError(line, `expected a path starting with "/", got "${trimmed}"`));
      return;
    }
    const rule = rules.at(-1);
    const colon = trimmed.indexOf(':');
    const name = trimmed.slice(0, colon).trim();
    if (!rule) errors.push(new HeadersFileError(line, 'a header line must follow a path line'));
    else if (colon < 1 || !HEADER_NAME.test(name)) {
      errors.push(new HeadersFileError(line, `expected "Name: value", got "${trimmed}"`));
    } else rule.headers.push([name, trimmed.slice(colon + 1).trim()]);
  });
  return { rules, errors };
}

// Servers ask for every request; a file has a handful of patterns, each compiled once.
const compiled = new Map<string, RegExp>();

function patternToRegExp(pattern: string): RegExp {
  let regex = compiled.get(pattern);
  if (!regex) {
    const source = pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    regex = new RegExp(`^${source}$`);
    compiled.set(pattern, regex);
  }
  return regex;
}

/**
 * The headers a request path gets: every matching rule applies, in file order. A later rule
 * that sets a name again joins the values with ", ", as Cloudflare documents for its `_headers`
 * (Netlify's own parser keeps the later value instead: the netlify target writes the joined ones).
 */
export function headersFor(rules: readonly HeaderRule[], path: string): Record<string, string> {
  const result: Record<string, string> = {};
  const canonical = new Map<string, string>();
  for (const rule of rules) {
    if (!patternToRegExp(rule.pattern).test(path)) continue;
    for (const [name, value] of rule.headers) {
      const key = canonical.get(name.toLowerCase());
      if (key === undefined) {
        canonical.set(name.toLowerCase(), name);
        result[name] = value;
      } else result[key] = `${result[key]}, ${value}`;
    }
  }
  return result;
}
