// `--format text`: the sections for a terminal, coloured when asked (the command asks on a
// terminal without NO_COLOR).

import type { Report } from './compare.ts';
import { describeReport, type LineKind, type Nouns, noChange } from './describe.ts';

const MARKS: Record<LineKind, string> = { added: '+', removed: '-', changed: '~', note: '·' };
const COLOURS: Record<LineKind, string> = { added: '32', removed: '31', changed: '33', note: '36' };

export function formatText(report: Report, colour: boolean, nouns: Nouns): string {
  const paint = (code: string, text: string) => (colour ? `\x1b[${code}m${text}\x1b[0m` : text);
  const sections = describeReport(report, nouns);
  if (sections.length === 0) return `${noChange(report)}\n`;
  const out = [`API changes from ${report.before} to ${report.after}`];
  for (const section of sections) {
    out.push('', paint('1', `${section.title}: ${section.summary}`));
    for (const line of section.lines) {
      out.push(paint(COLOURS[line.kind], `${'  '.repeat(line.depth + 1)}${MARKS[line.kind]} ${line.text}`));
    }
  }
  return `${out.join('\n')}\n`;
}
