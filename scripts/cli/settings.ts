// The build's settings, from command-line flags, then environment variables, then defaults.

import { parseArgs } from 'node:util';
import { z } from 'zod';
import { REFUSED_TARGETS, TARGET_NAMES } from '../targets/names.ts';

export const DEFAULTS = {
  dataDir: 'data',
  outDir: 'public',
  headersPath: '_headers',
  targetsDir: 'targets',
  host: '127.0.0.1',
  port: 3000,
  /** The origin `npm start` serves on by default, so the committed public/ matches it. */
  baseUrl: 'http://localhost:3000',
  /** DRF's PAGE_SIZE for the texture list. */
  pageSize: 10,
} as const;

const baseUrlSchema = z
  .string()
  .refine((value) => {
    try {
      const url = new URL(value);
      return ['http:', 'https:'].includes(url.protocol) && !url.search && !url.hash && !url.username;
    } catch {
      return false;
    }
  }, 'expected an absolute http(s) URL without query or fragment, such as https://api.example.com')
  .transform((value) => value.replace(/\/+$/, ''));

const settingsSchema = z.object({
  dataDir: z.string().min(1),
  outDir: z.string().min(1),
  headersPath: z.string().min(1),
  targetsDir: z.string().min(1),
  targets: z
    .array(z.string())
    .optional()
    .superRefine((names, ctx) => {
      for (const name of names ?? []) {
        if ((TARGET_NAMES as readonly string[]).includes(name)) continue;
        const refused = REFUSED_TARGETS[name];
        ctx.addIssue({
          code: 'custom',
          message: refused
            ? `${name} is not a target: ${refused}. Use one of: ${TARGET_NAMES.join(', ')}`
            : `unknown deploy target "${name}"; expected some of: ${TARGET_NAMES.join(', ')}, or "all"`,
        });
      }
    }),
  baseUrl: baseUrlSchema,
  pageSize: z.coerce.number().int().min(1).max(10_000),
  host: z.string().min(1),
  port: z.coerce.number().int().min(0).max(65_535),
  check: z.boolean(),
});

export type Settings = z.infer<typeof settingsSchema>;

export const USAGE = `Options (flags win over environment variables):
  --data <dir>        source data folder             (default: data)
  --out <dir>         output folder                  (default: public)
  --headers <file>    the _headers file to apply     (default: _headers)
  --targets-dir <dir> deploy targets' files folder     (default: hosts)
  --target <names>    deploy targets, comma-separated (default: all)
  --base-url <url>    origin of the absolute links   BASE_URL  (default: ${DEFAULTS.baseUrl}; npm start: the served origin)
  --page-size <n>     textures per page              PAGE_SIZE (default: ${DEFAULTS.pageSize})
  --host <host>       address to listen on           HOST      (default: ${DEFAULTS.host})
  --port <n>          port to listen on              PORT      (default: ${DEFAULTS.port})
  --check             validate only, write nothing`;

/** Reads flags and environment; `baseUrl` is absent when neither sets it. */
export function readSettings(argv: string[], env: NodeJS.ProcessEnv): Settings & { baseUrlGiven: boolean } {
  const { values } = parseArgs({
    args: argv,
    options: {
      data: { type: 'string' },
      out: { type: 'string' },
      headers: { type: 'string' },
      'targets-dir': { type: 'string' },
      target: { type: 'string' },
      'base-url': { type: 'string' },
      'page-size': { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      check: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const baseUrl = values['base-url'] ?? env.BASE_URL;
  const parsed = settingsSchema.safeParse({
    dataDir: values.data ?? DEFAULTS.dataDir,
    outDir: values.out ?? DEFAULTS.outDir,
    headersPath: values.headers ?? DEFAULTS.headersPath,
    targetsDir: values['targets-dir'] ?? DEFAULTS.targetsDir,
    targets: values.target === undefined || values.target === 'all' ? undefined : values.target.split(','),
    baseUrl: baseUrl ?? DEFAULTS.baseUrl,
    pageSize: values['page-size'] ?? env.PAGE_SIZE ?? DEFAULTS.pageSize,
    host: values.host ?? env.HOST ?? DEFAULTS.host,
    port: values.port ?? env.PORT ?? DEFAULTS.port,
    check: values.check,
  });
  if (!parsed.success) {
    throw new Error(parsed.error.issues.map((i) => `setting ${i.path.join('.')}: ${i.message}`).join('\n'));
  }
  return { ...parsed.data, baseUrlGiven: baseUrl !== undefined };
}

/** The settings of this process's command line, or the usage and exit status 2. */
export function settingsOrExit(): ReturnType<typeof readSettings> {
  try {
    return readSettings(process.argv.slice(2), process.env);
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
}
