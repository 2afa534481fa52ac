// The import rules of scripts/, as pure functions over source text so that
// test/unit/layers.test.ts can run them on the real tree and on synthetic violations alike.
//
// scripts/ holds one folder per layer. LAYERS says which other layers each may import: the table
// of docs/architecture.md, which layers.test.ts holds against this one. Nothing under scripts/
// imports test/ (where the tests' own code and the bench live).

import path from 'node:path';
import ts from 'typescript';

/** Each layer, lowest first, with the layers it may import besides its own. */
export const LAYERS: ReadonlyMap<string, readonly string[]> = new Map([
  ['shared', []],
  ['contract', ['shared']],
  ['store', ['shared', 'contract']],
  ['respond', ['shared', 'contract', 'store']],
  ['targets', ['shared', 'contract', 'store', 'respond']],
  ['builder', ['shared', 'contract', 'store', 'targets']],
  ['review', ['shared', 'contract']],
  ['migrate', ['shared', 'contract', 'store', 'respond', 'builder', 'review']],
  ['cli', ['shared', 'contract', 'store', 'respond', 'targets', 'builder', 'review', 'migrate']],
]);

/**
 * The rooms of a layer kept apart inside it, lowest first, with the rooms each may import besides
 * its own: a subfolder (`pipeline/`) or a module at the layer's top (`build.ts`). builder/'s
 * orchestrator sits above the pipeline and the documents it runs, and the live preview above it.
 */
export const ROOMS: ReadonlyMap<string, ReadonlyMap<string, readonly string[]>> = new Map([
  [
    'builder',
    new Map([
      ['pipeline/', []],
      ['documents/', ['pipeline/']],
      ['site.ts', ['pipeline/', 'documents/']],
      ['build.ts', ['pipeline/', 'documents/', 'site.ts']],
      ['preview/', ['pipeline/', 'site.ts']],
    ]),
  ],
]);

type ImportKind = 'import' | 'export-from' | 'dynamic-import' | 'url';

export interface ImportRef {
  specifier: string;
  kind: ImportKind;
  /** `import type` / `export type`: erased when the module runs. */
  typeOnly: boolean;
  line: number;
}

/** Modules by repository-relative path with `/` (e.g. `scripts/cli/settings.ts`) → their imports. */
export type ModuleGraph = Map<string, ImportRef[]>;

/**
 * Every module reference in a TypeScript source with a literal specifier: `import … from`,
 * side-effect `import '…'`, `export … from`, `import('…')`, and `new URL('….ts', import.meta.url)`
 * (how a module names a worker or a bundler entry it does not import).
 */
export function importsOf(fileName: string, source: string): ImportRef[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: ImportRef[] = [];
  const add = (node: ts.Node, literal: ts.Node | undefined, kind: ImportKind, typeOnly: boolean): void => {
    if (literal === undefined || !ts.isStringLiteralLike(literal)) return;
    const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
    found.push({ specifier: literal.text, kind, typeOnly, line });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      add(node, node.moduleSpecifier, 'import', node.importClause?.isTypeOnly ?? false);
    } else if (ts.isExportDeclaration(node)) {
      add(node, node.moduleSpecifier, 'export-from', node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node, node.arguments[0], 'dynamic-import', false);
    } else if (ts.isNewExpression(node) && isImportMetaUrl(node)) {
      const first = node.arguments?.[0];
      if (first !== undefined && ts.isStringLiteralLike(first) && /\.[cm]?[jt]s$/.test(first.text)) {
        add(node, first, 'url', false);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function isImportMetaUrl(node: ts.NewExpression): boolean {
  if (!ts.isIdentifier(node.expression) || node.expression.text !== 'URL') return false;
  const base = node.arguments?.[1];
  return (
    base !== undefined &&
    ts.isPropertyAccessExpression(base) &&
    base.name.text === 'url' &&
    ts.isMetaProperty(base.expression) &&
    base.expression.keywordToken === ts.SyntaxKind.ImportKeyword
  );
}

/** Where a relative specifier points, as a repository-relative path; undefined for a package. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  return path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
}

/** `shared`, …, `cli` for a module under scripts/, else undefined. */
function folderOf(file: string): string | undefined {
  const parts = file.split('/');
  return parts[0] === 'scripts' && parts.length > 2 ? parts[1] : undefined;
}

/**
 * Layers whose subfolders are peers: each (a deploy target's own files) imports its own folder and
 * the modules at the layer's top (what they share), never another's folder.
 */
const PEER_FOLDERS: ReadonlySet<string> = new Set(['targets']);

/** `pipeline/` for `scripts/builder/pipeline/load.ts`, `build.ts` for `scripts/builder/build.ts`. */
function roomOf(file: string): string {
  const parts = file.split('/');
  return parts.length > 3 ? `${parts[2]}/` : (parts[2] as string);
}

/** Every broken rule, as `file:line → specifier (why)`, sorted. */
export function layerViolations(graph: ModuleGraph): string[] {
  const out: string[] = [];
  for (const [file, refs] of graph) {
    if (!file.startsWith('scripts/')) continue;
    const own = folderOf(file);
    const allowed = own === undefined ? undefined : LAYERS.get(own);
    const rooms = own === undefined ? undefined : ROOMS.get(own);
    if (rooms !== undefined && !rooms.has(roomOf(file))) {
      out.push(`${file} → (itself: in no room of ${own}/; expected one of ${[...rooms.keys()].join(', ')})`);
      continue;
    }
    if (allowed === undefined) {
      out.push(`${file} → (itself: not in a layer folder; expected scripts/{${[...LAYERS.keys()].join(',')}}/)`);
      continue;
    }
    for (const ref of refs) {
      const target = resolveSpecifier(file, ref.specifier);
      if (target === undefined) continue;
      const where = `${file}:${ref.line} → ${ref.specifier}`;
      if (target === 'test' || target.startsWith('test/')) {
        out.push(`${where} (scripts/ must not import test/)`);
        continue;
      }
      if (!target.startsWith('scripts/')) continue;
      const theirs = folderOf(target);
      if (theirs === own && own !== undefined) {
        const rooms = ROOMS.get(own);
        const [mine, other] = [roomOf(file), roomOf(target)];
        if (PEER_FOLDERS.has(own) && mine.endsWith('/') && other.endsWith('/') && mine !== other) {
          out.push(
            `${where} (${own}/${mine} may not import the folder of another, ${own}/${other}; share it at the top of ${own}/)`,
          );
          continue;
        }
        const may = rooms?.get(mine);
        if (rooms === undefined || may === undefined || mine === other) continue;
        if (!may.includes(other)) {
          out.push(
            `${where} (${own}/${mine} may not import ${own}/${other}; it may import ${may.join(', ') || 'no other room'})`,
          );
        }
        continue;
      }
      if (theirs === own) continue;
      if (theirs === undefined || !LAYERS.has(theirs)) {
        out.push(`${where} (${target} is not in a layer folder)`);
      } else if (!allowed?.includes(theirs)) {
        out.push(
          `${where} (${own} may not import ${theirs}; it may import ${allowed?.join(', ') || 'no other layer'})`,
        );
      }
    }
  }
  return out.sort();
}

/**
 * The modules `entry` loads when it runs: relative imports followed, type-only ones skipped;
 * with `atStart`, a dynamic import() is not followed either (it loads only when called); the
 * modules of `skip` are not followed (code the entry never calls).
 */
export function runtimeClosure(
  graph: ModuleGraph,
  entry: string,
  { atStart = false, skip = new Set<string>() }: { atStart?: boolean; skip?: ReadonlySet<string> } = {},
): string[] {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file) || !graph.has(file) || skip.has(file)) continue;
    seen.add(file);
    for (const ref of graph.get(file) ?? []) {
      if (ref.typeOnly || ref.kind === 'url' || (atStart && ref.kind === 'dynamic-import')) continue;
      const target = resolveSpecifier(file, ref.specifier);
      if (target !== undefined) queue.push(target);
    }
  }
  return [...seen].sort();
}

/** The modules that `files` import with an import(), sorted: each loaded only when its import() runs. */
export function lazyImportsOf(graph: ModuleGraph, files: readonly string[]): string[] {
  const lazy = files.flatMap((file) =>
    (graph.get(file) ?? [])
      .filter((ref) => ref.kind === 'dynamic-import')
      .map((ref) => resolveSpecifier(file, ref.specifier))
      .filter((target) => target !== undefined),
  );
  return [...new Set(lazy)].sort();
}

/** `file:line → package` for each module in `files` that loads `pkg` (or a subpath of it) at run time, or `atStart`. */
export function runtimeImportsOf(
  graph: ModuleGraph,
  files: readonly string[],
  pkg: string,
  { atStart = false } = {},
): string[] {
  return files.flatMap((file) =>
    (graph.get(file) ?? [])
      .filter((ref) => !ref.typeOnly && !(atStart && ref.kind === 'dynamic-import'))
      .filter((ref) => ref.specifier === pkg || ref.specifier.startsWith(`${pkg}/`))
      .map((ref) => `${file}:${ref.line} → ${ref.specifier}`),
  );
}
