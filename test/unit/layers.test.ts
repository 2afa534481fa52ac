// scripts/ is layered (issue 13, part 3): contract < build < respond < targets < review < migrate < cli, each importing
// only its own layer and those below; bench/ apart (it may import any layer, none may import it);
// nothing under scripts/ imports test/. And `npm run serve` must not load esbuild.
// The rules themselves are in ./helpers/layers.ts.

import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importsOf, layerViolations, type ModuleGraph, runtimeClosure, runtimeImportsOf } from './helpers/layers.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SERVE = 'scripts/cli/serve-command.ts';

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

const synthetic = (modules: Record<string, string>): ModuleGraph =>
  new Map(Object.entries(modules).map(([file, source]) => [file, importsOf(file, source)]));

describe('scripts/ layers', () => {
  it('no module imports a layer above its own, bench/, or test/', async () => {
    const graph = await scriptsGraph();
    expect(graph.size).toBeGreaterThan(10);
    expect(layerViolations(graph)).toEqual([]);
  });

  it('npm run serve does not load esbuild', async () => {
    const graph = await scriptsGraph();
    const reached = runtimeClosure(graph, SERVE);
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

  it('reports upward, bench/ and test/ imports, and accepts downward ones', () => {
    const graph = synthetic({
      'scripts/contract/routes.ts': "import { x } from '../build/load.ts';\nimport { y } from './json.ts';",
      'scripts/build/load.ts': "export * from '../contract/routes.ts';\nawait import('../targets/index.ts');",
      'scripts/respond/handler.ts': "import type { T } from '../cli/settings.ts';\nimport '../build/load.ts';",
      'scripts/targets/index.ts': "const f = new URL('../cli/run.ts', import.meta.url);",
      'scripts/cli/settings.ts': "import { a } from '../bench/report.ts';\nimport { b } from '../targets/index.ts';",
      'scripts/cli/other.ts': "import { t } from '../../test/unit/helpers/tree.ts';",
      'scripts/bench/main.ts': "import { c } from '../cli/run-build.ts';\nimport { d } from '../contract/json.ts';",
      'scripts/loose.ts': "import { e } from './contract/json.ts';",
      'test/unit/x.test.ts': "import { f } from '../../scripts/cli/settings.ts';",
    });
    expect(layerViolations(graph)).toEqual([
      'scripts/build/load.ts:2 → ../targets/index.ts (build may not import targets, a layer above it)',
      'scripts/cli/other.ts:1 → ../../test/unit/helpers/tree.ts (scripts/ must not import test/)',
      'scripts/cli/settings.ts:1 → ../bench/report.ts (the product must not import bench/)',
      'scripts/contract/routes.ts:1 → ../build/load.ts (contract may not import build, a layer above it)',
      'scripts/loose.ts → (itself: not in a layer folder; expected scripts/{contract,build,respond,targets,review,migrate,cli,bench}/)',
      'scripts/respond/handler.ts:1 → ../cli/settings.ts (respond may not import cli, a layer above it)',
      'scripts/targets/index.ts:1 → ../cli/run.ts (targets may not import cli, a layer above it)',
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
