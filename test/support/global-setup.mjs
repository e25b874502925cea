// Some e2e specs run the real entry point (dist/main.js) in a child process: build it first
// when it is missing or older than src/.
import { execFileSync } from 'node:child_process';

export default function globalSetup() {
  execFileSync(process.execPath, ['scripts/build-if-needed.mjs'], { stdio: 'inherit' });
}
