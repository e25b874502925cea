import { runCommand } from './cli/run-command.js';
import { seedCommand } from './cli/seed-command.js';

await runCommand(async (config) => {
  const code = await seedCommand(process.argv.slice(2), config, {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  });
  process.exitCode = code;
});
