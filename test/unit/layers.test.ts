// scripts/ is layered: each layer imports only the layers the table of docs/architecture.md
// names for it; nothing under scripts/ imports test/ (the tests' code and the bench). And each
// command loads at its start only what it uses.
// The rules themselves are in ./helpers/layers.ts.

import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  importsOf,
  LAYERS,
  layerViolations,
  lazyImportsOf,
  type ModuleGraph,
  runtimeClosure,
  runtimeImportsOf,
} from './helpers/layers.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SERVE = 'scripts/cli/serve-command.ts';
const COMMANDS = ['build', 'start', 'dev', 'serve', 'diff', 'import', 'verify', 'setup-git'];
/** The one list of deploy targets, which the settings read. */
const TARGET_LIST = 'scripts/targets/index.ts';
/** What the targets' files() load when called: each target's generator, esbuild behind some. */
const GENERATORS = [
  'scripts/targets/cloudflare/pages-static.ts',
  'scripts/targets/cloudflare/pages.ts',
  'scripts/targets/cloudflare/workers.ts',
  'scripts/targets/netlify/netlify.ts',
  'scripts/targets/vercel/vercel.ts',
  'scripts/targets/web-servers/apache.ts',
  'scripts/targets/web-servers/caddy.ts',
  'scripts/targets/web-servers/nginx.ts',
];

async function scriptsGraph(): Promise<ModuleGraph> {
  const entries = await readdir(`${ROOT}scripts`, { recursive: true });
  const files = entries
    .map((entry) => `scripts/${entry.split('\\').join('/')}`)
    .filter((file) => file.endsWith('.ts'))
    .sort();
  const graph: ModuleGraph = new Map();
  for (const file of files) graph.set(file, importsOf(file, await readFile(`${ROOT}${file}`, 'utf8')));
  return graph;
}

/** The modules the list of targets loads only when a target is asked for its files. */
function targetGenerators(graph: ModuleGraph): string[] {
  return lazyImportsOf(graph, runtimeClosure(graph, TARGET_LIST, { atStart: true }));
}

const synthetic = (modules: Record<string, string>): ModuleGraph =>
  new Map(Object.entries(modules).map(([file, source]) => [file, importsOf(file, source)]));

describe('scripts/ layers', () => {
  it('no module imports a layer above its own, or test/', async () => {
    const graph = await scriptsGraph();
    expect(graph.size).toBeGreaterThan(10);
    expect(layerViolations(graph)).toEqual([]);
  });

  it('holds the table of docs/architecture.md: each layer and the layers it may import', async () => {
    const doc = await readFile(`${ROOT}docs/architecture.md`, 'utf8');
    const table = doc.slice(doc.indexOf('| layer |'), doc.indexOf('\n\n', doc.indexOf('| layer |')));
    const rows = table
      .split('\n')
      .filter((line) => /^\| `[a-z]+\/` \|/.test(line))
      .map((line) => {
        const cells = line.split(' | ');
        const layer = /`([a-z]+)\/`/.exec(cells[0] as string)?.[1];
        const imports = [...(cells.at(-1) as string).matchAll(/`([a-z]+)\/`/g)].map((match) => match[1]);
        return [layer, imports];
      });
    expect(rows).toEqual([...LAYERS].map(([layer, imports]) => [layer, [...imports]]));
  });

  it('each command loads at its start only what it uses', async () => {
    const graph = await scriptsGraph();
    const atStart = (command: string) => runtimeClosure(graph, `scripts/cli/${command}-command.ts`, { atStart: true });
    const loads = (command: string, pkg: string) =>
      runtimeImportsOf(graph, atStart(command), pkg, { atStart: true }).length > 0;
    const schemaWriters = (command: string) =>
      atStart(command).filter((file) => /builder\/documents\/(openapi|json-schemas)\.ts$/.test(file));
    for (const command of COMMANDS) {
      // esbuild only when a target's code is bundled; the schemas only when written.
      expect(loads(command, 'esbuild'), `${command} loads esbuild`).toBe(false);
      expect(schemaWriters(command), `${command} loads the schema writers`).toEqual([]);
      expect(loads(command, 'chokidar'), `${command} loads chokidar`).toBe(command === 'dev');
      expect(loads(command, 'ajv'), `${command} loads ajv`).toBe(false);
    }
    expect(loads('serve', 'zod'), 'serve loads zod').toBe(false);
  });

  it("no command loads a target's generator at its start: the list of targets is light", async () => {
    const graph = await scriptsGraph();
    expect(targetGenerators(graph)).toEqual(GENERATORS);
    for (const command of COMMANDS) {
      const loaded = runtimeClosure(graph, `scripts/cli/${command}-command.ts`, { atStart: true });
      expect(loaded, `${command} reads the list of targets`).toContain(TARGET_LIST);
      expect(
        loaded.filter((file) => GENERATORS.includes(file)),
        `${command} loads generators`,
      ).toEqual([]);
    }
  });

  it('npm run serve does not load esbuild: only a target asked for its files does', async () => {
    const graph = await scriptsGraph();
    const reached = runtimeClosure(graph, SERVE, { skip: new Set(targetGenerators(graph)) });
    expect(reached).toContain(SERVE);
    expect(reached).toContain('scripts/cli/settings.ts');
    expect(runtimeImportsOf(graph, reached, 'esbuild')).toEqual([]);
  });
});

describe('the layer checker itself', () => {
  it('finds every kind of module reference', () => {
    const refs = importsOf(
      'scripts/cli/x.ts',
      [
        "import a from './a.ts';",
        "import type { B } from './b.ts';",
        "import { type C, d } from './c.ts';",
        "import './side-effect.ts';",
        "export * from './e.ts';",
        "export type { F } from './f.ts';",
        'export {',
        '  g,',
        "} from './g.ts';",
        "const h = await import('./h.ts');",
        'const i = await import(`./i.ts`);',
        'const notLiteral = await import(h.name);',
        "const worker = new URL('./worker.ts', import.meta.url);",
        "const root = new URL('../..', import.meta.url);",
        "// import nothing from './comment.ts';",
        'const text = "import nothing from \'./string.ts\'";',
      ].join('\n'),
    );
    expect(refs.map(({ specifier, kind, typeOnly }) => [specifier, kind, typeOnly])).toEqual([
      ['./a.ts', 'import', false],
      ['./b.ts', 'import', true],
      ['./c.ts', 'import', false],
      ['./side-effect.ts', 'import', false],
      ['./e.ts', 'export-from', false],
      ['./f.ts', 'export-from', true],
      ['./g.ts', 'export-from', false],
      ['./h.ts', 'dynamic-import', false],
      ['./i.ts', 'dynamic-import', false],
      ['./worker.ts', 'url', false],
    ]);
    expect(refs.find((ref) => ref.specifier === './g.ts')?.line).toBe(7);
  });

  it('reports upward and test/ imports, and accepts downward ones', () => {
    const graph = synthetic({
      'scripts/contract/routes.ts': "import { x } from '../builder/pipeline/load.ts';\nimport { y } from './json.ts';",
      'scripts/builder/pipeline/load.ts':
        "export * from '../../contract/routes.ts';\nawait import('../../review/index.ts');",
      'scripts/builder/loose.ts': "import { l } from './pipeline/load.ts';",
      'scripts/builder/pipeline/render.ts': "import { b } from '../build.ts';\nimport { s } from './schemas.ts';",
      'scripts/builder/documents/openapi.ts':
        "import { r } from '../pipeline/render.ts';\nimport('../preview/live.ts');",
      'scripts/builder/preview/live.ts':
        "import { b } from '../build.ts';\nimport { o } from '../documents/openapi.ts';",
      'scripts/respond/handler.ts':
        "import type { T } from '../cli/settings.ts';\nimport '../builder/pipeline/load.ts';",
      'scripts/targets/vercel/vercel.ts':
        "import { r } from '../netlify/redirects.ts';\nimport { q } from '../query.ts';",
      'scripts/targets/index.ts': "const f = new URL('../cli/run.ts', import.meta.url);",
      'scripts/store/select.ts':
        "import type { FileStore } from '../respond/handler.ts';\nimport { q } from '../contract/query.ts';",
      'scripts/cli/settings.ts':
        "import { a } from '../../test/bench/report.ts';\nimport { b } from '../targets/index.ts';",
      'scripts/cli/other.ts': "import { t } from '../../test/unit/helpers/tree.ts';",
      'scripts/bench/main.ts': "import { c } from '../cli/run-build.ts';",
      'test/bench/main.ts': "import { c } from '../../scripts/cli/run-build.ts';",
      'scripts/loose.ts': "import { e } from './contract/json.ts';",
      'test/unit/x.test.ts': "import { f } from '../../scripts/cli/settings.ts';",
    });
    expect(layerViolations(graph)).toEqual([
      'scripts/bench/main.ts → (itself: not in a layer folder; expected scripts/{shared,contract,store,respond,targets,builder,review,migrate,cli}/)',
      'scripts/builder/documents/openapi.ts:2 → ../preview/live.ts (builder/documents/ may not import builder/preview/; it may import pipeline/)',
      'scripts/builder/loose.ts → (itself: in no room of builder/; expected one of pipeline/, documents/, site.ts, build.ts, preview/)',
      'scripts/builder/pipeline/load.ts:2 → ../../review/index.ts (builder may not import review; it may import shared, contract, store, targets)',
      'scripts/builder/pipeline/render.ts:1 → ../build.ts (builder/pipeline/ may not import builder/build.ts; it may import no other room)',
      'scripts/builder/preview/live.ts:1 → ../build.ts (builder/preview/ may not import builder/build.ts; it may import pipeline/, site.ts)',
      'scripts/builder/preview/live.ts:2 → ../documents/openapi.ts (builder/preview/ may not import builder/documents/; it may import pipeline/, site.ts)',
      'scripts/cli/other.ts:1 → ../../test/unit/helpers/tree.ts (scripts/ must not import test/)',
      'scripts/cli/settings.ts:1 → ../../test/bench/report.ts (scripts/ must not import test/)',
      'scripts/contract/routes.ts:1 → ../builder/pipeline/load.ts (contract may not import builder; it may import shared)',
      'scripts/loose.ts → (itself: not in a layer folder; expected scripts/{shared,contract,store,respond,targets,builder,review,migrate,cli}/)',
      'scripts/respond/handler.ts:1 → ../cli/settings.ts (respond may not import cli; it may import shared, contract, store)',
      'scripts/respond/handler.ts:2 → ../builder/pipeline/load.ts (respond may not import builder; it may import shared, contract, store)',
      'scripts/store/select.ts:1 → ../respond/handler.ts (store may not import respond; it may import shared, contract)',
      'scripts/targets/index.ts:1 → ../cli/run.ts (targets may not import cli; it may import shared, contract, store, respond)',
      'scripts/targets/vercel/vercel.ts:1 → ../netlify/redirects.ts (targets/vercel/ may not import the folder of another, targets/netlify/; share it at the top of targets/)',
    ]);
  });

  it('follows run-time imports only when looking for esbuild', () => {
    const graph = synthetic({
      'scripts/cli/serve-command.ts': "import { s } from './settings.ts';\nimport type { T } from './types.ts';",
      'scripts/cli/settings.ts': "export { names } from '../targets/names.ts';",
      'scripts/cli/types.ts': "import type { BuildOptions } from 'esbuild';\nimport { x } from './heavy.ts';",
      'scripts/cli/heavy.ts': "import { build } from 'esbuild';",
      'scripts/targets/names.ts': "const m = await import('./bundle.ts');",
      'scripts/targets/bundle.ts': "import * as esbuild from 'esbuild/lib/main.js';",
    });
    const reached = runtimeClosure(graph, 'scripts/cli/serve-command.ts');
    expect(reached).toEqual([
      'scripts/cli/serve-command.ts',
      'scripts/cli/settings.ts',
      'scripts/targets/bundle.ts',
      'scripts/targets/names.ts',
    ]);
    expect(runtimeImportsOf(graph, reached, 'esbuild')).toEqual(['scripts/targets/bundle.ts:1 → esbuild/lib/main.js']);
  });
});
