// The line and column of the build's problems in a source file, found from their JSON pointers
// with the tokenizer of strict-json.ts. Run only when the build has failed, on the files the
// problems name: on valid data nothing here runs.

import { mapLimited } from '../../shared/map-limited.ts';
import { type DataError, pointerOf } from './errors.ts';
import { LineIndex, walkJson } from './strict-json.ts';

/** Offsets of a value's first character and, for an object's member, of its key. */
interface Found {
  value: number;
  key?: number;
}

/** The pointer of the object or array holding the value at `pointer` ("" holds nothing). */
const parentOf = (pointer: string) => pointer.slice(0, pointer.lastIndexOf('/'));

/** The offsets of the values at `pointers` and at their ancestors, in one walk that stops when all are found. */
function findValues(text: string, pointers: Iterable<string>): Map<string, Found> {
  const wanted = new Set<string>();
  for (const pointer of pointers) {
    for (let at = pointer; !wanted.has(at); at = parentOf(at)) {
      wanted.add(at);
      if (at === '') break;
    }
  }
  const found = new Map<string, Found>();
  // The pointer of the object or array open at each depth, so that a value's pointer costs one
  // segment, not its whole path.
  const containers: string[] = [];
  let keyOffset: number | undefined;
  walkJson(text, {
    key(_path, offset) {
      keyOffset = offset;
    },
    value(path, offset) {
      const last = path.length - 1;
      const pointer = last < 0 ? '' : `${containers[last]}${pointerOf([path[last] as string | number])}`;
      const char = text[offset];
      if (char === '{' || char === '[') containers[path.length] = pointer;
      if (wanted.has(pointer)) {
        // A member's value comes right after its key; an array's item has none.
        found.set(pointer, typeof path[last] === 'string' ? { value: offset, key: keyOffset } : { value: offset });
      }
      return found.size < wanted.size;
    },
  });
  return found;
}

/** Where a problem is: see DataError.position. */
function offsetOf(problem: DataError, found: ReadonlyMap<string, Found>): number | undefined {
  const exact = found.get(problem.pointer);
  if (exact) return problem.subject === 'key' ? (exact.key ?? exact.value) : exact.value;
  for (let at = parentOf(problem.pointer); ; at = parentOf(at)) {
    const ancestor = found.get(at);
    if (ancestor) return ancestor.value;
    if (at === '') return undefined;
  }
}

/**
 * The problems, each with its position in `text`, the text of the file they name (as
 * decodeUtf8 gives it). A problem about the whole file (pointer "") gets none: there is no
 * one place to show.
 */
export function withPositions(text: string, problems: readonly DataError[]): DataError[] {
  const pointers = problems.map((problem) => problem.pointer).filter((pointer) => pointer !== '');
  if (pointers.length === 0) return [...problems];
  const found = findValues(text, pointers);
  const lines = new LineIndex(text);
  return problems.map((problem) => {
    const offset = problem.pointer === '' ? undefined : offsetOf(problem, found);
    return offset === undefined ? problem : { ...problem, position: lines.position(offset) };
  });
}

const FILES_AT_ONCE = 64;

/**
 * The problems with their positions (and those of the places they name, DataError.seeAlso), each
 * file's looked up once in the text `textOf` gives for it; a file without text (gone, or no
 * longer JSON) leaves its problems as they are.
 */
export async function locateInFiles(
  problems: readonly DataError[],
  textOf: (file: string) => Promise<string | undefined>,
): Promise<DataError[]> {
  // Each problem's own place, then the place it names, as one list of places to look up.
  const places: DataError[] = [...problems];
  const seeAlsoIndex = problems.map((problem) =>
    problem.seeAlso ? places.push({ ...problem.seeAlso, message: '' }) - 1 : undefined,
  );
  const byFile = new Map<string, number[]>();
  places.forEach((place, index) => {
    const inFile = byFile.get(place.file);
    if (inFile) inFile.push(index);
    else byFile.set(place.file, [index]);
  });
  const located = [...places];
  await mapLimited([...byFile], FILES_AT_ONCE, async ([file, indexes]) => {
    const text = await textOf(file);
    if (text === undefined) return;
    const positioned = withPositions(
      text,
      indexes.map((index) => places[index] as DataError),
    );
    indexes.forEach((index, n) => {
      located[index] = positioned[n] as DataError;
    });
  });
  return problems.map((problem, index) => {
    const own = located[index] as DataError;
    const at = seeAlsoIndex[index];
    if (at === undefined || !problem.seeAlso) return own;
    return { ...own, seeAlso: { ...problem.seeAlso, position: located[at]?.position } };
  });
}
