// `npm run verify -- --against <url>`: asks the running DRF service and a build of the data the
// same requests (migrate/verify.ts) and prints each difference; exit status 1 when anything
// differs or the service cannot be asked.

import { summaryLine, verify } from '../migrate/verify.ts';
import { EXIT_STATUS } from './exit-status.ts';
import { runCommand } from './fail.ts';
import { settingsOrExit } from './settings.ts';

await runCommand({ command: 'verify', left: 'nothing was verified' }, async () => {
  const settings = settingsOrExit('verify');
  const report = await verify({
    ...settings,
    against: settings.against as string,
    log: (line) => console.error(line),
    onInterrupt: () => process.exit(EXIT_STATUS.failed),
  });
  if (report.lines.length > 0) console.log('Each difference reads: as the service answers → as this build answers.');
  for (const line of [...report.lines, ...report.notes, summaryLine(report)]) console.log(line);
  process.exitCode = report.differ > 0 ? EXIT_STATUS.differs : EXIT_STATUS.done;
});
