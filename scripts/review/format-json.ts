// `--format json`: the report as it is (see docs/reviewing.md), for scripts.

import type { Report } from './compare.ts';

export function formatJson(report: Report): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
