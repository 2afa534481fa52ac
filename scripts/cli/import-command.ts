// `npm run import -- --from <url>`: writes data/ and the settings file from a running DRF
// service, so that `npm run build` answers as it does. Progress and every problem on stderr.

import { formatDataError } from '../builder/pipeline/errors.ts';
import { DataFolderInUse, importService } from '../migrate/import.ts';
import type { ReadProgress } from '../migrate/read-service.ts';
import { EXIT_STATUS } from './exit-status.ts';
import { runCommand } from './fail.ts';
import { settingsOrExit, UsageError } from './settings.ts';
import { readSettingsFile, settingsFileText } from './settings-file.ts';

/** Plain lines off a terminal (a log, a CI job) come at most this often; a terminal gets one line rewritten. */
const PLAIN_PROGRESS_MS = 1_000;

function size(bytes: number): string {
  if (bytes < 1_000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1_000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

function progressLine(progress: ReadProgress): string {
  // How many pages there are is known from page 1's count.
  const pages = `${progress.pages} of ${progress.pagesTotal ?? '?'} ${progress.pagesOf} pages`;
  return `import: ${progress.lists} of ${progress.listsTotal} lists, ${pages}, ${size(progress.bytes)}`;
}

function progressPrinter(): { update: (progress: ReadProgress) => void; end: () => void } {
  const terminal = process.stderr.isTTY === true;
  let printedAt = Number.NEGATIVE_INFINITY;
  /** The latest line the throttle held back. */
  let pending: string | undefined;
  /** A terminal line rewritten in place, still without its newline. */
  let open = false;
  const print = (line: string) => {
    process.stderr.write(terminal ? `\r${line}\x1b[K` : `${line}\n`);
    open = terminal;
    pending = undefined;
  };
  return {
    update(progress) {
      const line = progressLine(progress);
      const now = performance.now();
      if (now - printedAt < (terminal ? 100 : PLAIN_PROGRESS_MS)) {
        pending = line;
        return;
      }
      printedAt = now;
      print(line);
    },
    end() {
      // The last state is always shown, whatever the throttle held back.
      if (pending !== undefined) print(pending);
      if (open) process.stderr.write('\n');
      open = false;
    },
  };
}

await runCommand({ command: 'import' }, async () => {
  const settings = settingsOrExit('import');
  const progress = progressPrinter();
  try {
    const result = await importService({
      resources: settings.resources,
      from: settings.from as string,
      dataDir: settings.dataDir,
      configPath: settings.configPath,
      force: settings.force,
      // The file's other settings stay as the user wrote them.
      settingsText: (found) => settingsFileText(found, readSettingsFile(settings.configPath, settings.resources)),
      onProgress: progress.update,
      log: (line) => {
        progress.end();
        console.error(line);
      },
    });
    if (result.problems.length > 0) {
      for (const problem of result.problems) console.error(formatDataError(problem));
      const count = result.problems.length;
      console.error(
        `\n${count} problem${count === 1 ? '' : 's'} in the imported records: ${settings.dataDir}/ holds them as the ` +
          'service shows them, and npm run build refuses the data until they are fixed (README: "Moving from a running DRF service").',
      );
      process.exitCode = EXIT_STATUS.failed;
      return;
    }
    console.error('\nNext: npm run build (it reads the settings file; no flags needed).');
  } catch (error) {
    progress.end();
    // Its way out is --force, which the help shows.
    throw error instanceof DataFolderInUse ? new UsageError(error.message, { cause: error }) : error;
  }
});
