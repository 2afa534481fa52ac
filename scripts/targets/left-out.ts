// What a target's folder holds when the build leaves the target out: a README saying why, in
// place of the files of an earlier build, which would deploy an API that is no longer this one
// (a list's filters answered with the whole list, say). A deploy recipe that copies the
// target's files then stops on the first one missing.

import { generatedMarkdownNote } from './generated-note.ts';

/** The files of a left-out target's folder, for `reasons` (each a line the build warned with). */
export function leftOutFiles(target: string, reasons: readonly string[]): Map<string, string> {
  const text = [
    generatedMarkdownNote(target),
    `# ${target}: left out of the last build`,
    '',
    '`npm run build` left this target out: it cannot serve this build. Its files from an earlier build are gone, so that nothing stale is deployed from here:',
    '',
    ...reasons.map((reason) => `- ${reason}`),
    '',
    `Deploy another target, or change what these lines name and build again. \`npm run build -- --target ${target}\` stops the build with these lines instead of leaving the target out.`,
    '',
  ].join('\n');
  return new Map([['README.md', text]]);
}
