// scripts/settings.ts: flags over environment over defaults, and the settings it refuses.

import { describe, expect, it } from 'vitest';
import { DEFAULTS, readSettings } from '../../scripts/cli/settings.ts';

describe('readSettings', () => {
  it('uses the defaults when nothing is given', () => {
    expect(readSettings([], {})).toMatchObject({
      dataDir: 'data',
      outDir: 'public',
      baseUrl: DEFAULTS.baseUrl,
      pageSize: 10,
      host: '127.0.0.1',
      port: 3000,
      targets: undefined,
      baseUrlGiven: false,
    });
  });

  it('takes the environment, and flags over it', () => {
    const env = { BASE_URL: 'https://api.example.com/', PAGE_SIZE: '25', PORT: '8080', HOST: '0.0.0.0' };
    expect(readSettings([], env)).toMatchObject({ baseUrl: 'https://api.example.com', pageSize: 25, port: 8080, host: '0.0.0.0', baseUrlGiven: true });
    expect(readSettings(['--page-size', '3', '--base-url', 'http://x.example:81/api'], env)).toMatchObject({
      pageSize: 3,
      baseUrl: 'http://x.example:81/api',
    });
  });

  it('reads --target as a comma-separated list, "all" as every target', () => {
    expect(readSettings(['--target', 'nginx,caddy'], {}).targets).toEqual(['nginx', 'caddy']);
    expect(readSettings(['--target', 'all'], {}).targets).toBeUndefined();
  });

  it.each([
    [['--base-url', 'ftp://example.com'], 'setting baseUrl: expected an absolute http(s) URL without query or fragment, such as https://api.example.com'],
    [['--base-url', 'https://example.com/?x=1'], 'setting baseUrl: expected an absolute http(s) URL without query or fragment, such as https://api.example.com'],
    [['--page-size', '0'], 'setting pageSize: Too small: expected number to be >=1'],
    [['--page-size', 'ten'], 'setting pageSize: Invalid input: expected number, received NaN'],
    [['--target', 'foo'], 'setting targets: unknown host target "foo"; expected some of: '],
    [['--target', 'github-pages'], 'setting targets: github-pages is not a target: GitHub Pages cannot route on the query string'],
    [['--target', 's3-website'], 'setting targets: s3-website is not a target: an S3 website endpoint cannot route on the query string'],
  ])('refuses %j', (argv, message) => {
    expect(() => readSettings(argv, {})).toThrow(message);
  });

  it('refuses an unknown flag', () => {
    expect(() => readSettings(['--nope'], {})).toThrow(/Unknown option '--nope'/);
  });
});
