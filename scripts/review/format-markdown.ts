// `--format markdown`, for a pull-request comment: a summary table, then a collapsible section
// per resource and one for the answers, cut to stay under GitHub's comment limit (65,536
// characters) with a last line saying how much was left out.

import type { Report } from './compare.ts';
import { describeReport, type LineKind, type Nouns, noChange } from './describe.ts';
import { WORKING_TREE } from './side.ts';

/** The most characters the comment may have; GitHub refuses a comment over 65,536. */
export const MARKDOWN_LIMIT = 65_000;

/** Marks GitHub's `diff` highlighting colours: + green, - red. */
const MARKS: Record<LineKind, string> = { added: '+', removed: '-', changed: '!', note: '#' };

/** Kept free for the closing of a section and the last line. */
const RESERVE = 400;

/** The line that identifies the comment, so the workflow updates it instead of adding another. */
export const MARKER = '<!-- api-diff -->';

export function formatMarkdown(report: Report, nouns: Nouns, limit = MARKDOWN_LIMIT): string {
  const sections = describeReport(report, nouns);
  // A revision or a folder is a name to type, shown as code; the working tree is said in words.
  const named = (label: string) => (label === WORKING_TREE ? label : `\`${label}\``);
  const head = [MARKER, `### API changes from ${named(report.before)} to ${named(report.after)}`, ''];
  if (sections.length === 0) return `${[...head, noChange(report)].join('\n')}\n`;
  head.push(
    '| | changes |',
    '|---|---|',
    ...sections.map((section) => `| ${section.title} | ${section.summary} |`),
    '',
  );
  let out = head.join('\n');
  let leftLines = 0;
  let leftChars = 0;
  for (const section of sections) {
    const open = `\n<details><summary><b>${section.title}</b>: ${section.summary}</summary>\n\n\`\`\`diff\n`;
    const close = '```\n\n</details>\n';
    if (leftLines > 0 || out.length + open.length + close.length + RESERVE > limit) {
      leftLines += section.lines.length;
      leftChars += section.lines.reduce((sum, line) => sum + line.text.length + 1, 0);
      continue;
    }
    out += open;
    for (const line of section.lines) {
      const text = `${MARKS[line.kind]} ${'  '.repeat(line.depth)}${line.text.replaceAll('```', '`\u200b``')}\n`;
      if (leftLines > 0 || out.length + text.length + close.length + RESERVE > limit) {
        leftLines++;
        leftChars += text.length;
      } else {
        out += text;
      }
    }
    out += close;
  }
  if (leftLines > 0) {
    out += `\n_${leftLines.toLocaleString('en')} more lines (${leftChars.toLocaleString('en')} characters) were left out to stay under GitHub's comment limit; run \`npm run diff\` for the whole report._\n`;
  }
  return out;
}
