// Builds dist/ when it is missing or older than src/, so `npm start` and `npm run seed` work
// on a fresh clone and after every change without a separate build step.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const marker = 'dist/main.js';

function newestMtime(dir) {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path);
    newest = Math.max(newest, stat.isDirectory() ? newestMtime(path) : stat.mtimeMs);
  }
  return newest;
}

if (!existsSync(marker) || newestMtime('src') > statSync(marker).mtimeMs) {
  process.stderr.write('Building dist/ ...\n');
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
}
