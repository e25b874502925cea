import { runCommand } from './cli/run-command.js';
import { seedCommand } from './cli/seed-command.js';
import { progressBars, progressLines } from './seeding/seed-progress.js';

await runCommand(async (config) => {
  const code = await seedCommand(process.argv.slice(2), config, {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    // Bars on a terminal; in logs and CI a plain line every few seconds.
    progress: (file) =>
      process.stderr.isTTY
        ? progressBars(process.stderr)
        : progressLines((line) => process.stderr.write(`${line}\n`), file, {
            startedAt: performance.timeOrigin,
          }),
  });
  process.exitCode = code;
});
