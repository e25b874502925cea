// Compiles src/ into an empty dist/ with the TypeScript compiler: nothing from an earlier build (a
// file since removed or renamed) can be started or shipped. The files pages are made of (the
// `views/` templates and the `public/` scripts and stylesheets of a feature folder) are copied
// beside the compiled code, where the feature reads them.
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
rmSync('dist', { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });

const PAGE_FOLDERS = new Set(['views', 'public']);
function copyPageFolders(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (!statSync(path).isDirectory()) continue;
    if (PAGE_FOLDERS.has(name))
      cpSync(path, join('dist', relative('src', path)), { recursive: true });
    else copyPageFolders(path);
  }
}
copyPageFolders('src');
