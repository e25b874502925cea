/**
 * What bench/run.mjs and bench/callbacks.mjs both do before measuring: build, take a private copy
 * of dist/ in a temp dir of the run, and describe the machine and the production Node flags.
 */
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { keepTempDir, registerTempDir, runToCompletion } from './processes.mjs';

/** bench/, and the project's root above it. */
export const BENCH = join(dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT = join(BENCH, '..');

/**
 * A module of the project's build (`dist/<file>`), for the micro-benchmarks that measure it in
 * process; exits with a hint when there is no build.
 */
export async function importBuilt(file) {
  const path = join(ROOT, 'dist', file);
  if (!existsSync(path)) {
    console.error(`dist/${file} is missing: run npm run build first`);
    process.exit(2);
  }
  return import(pathToFileURL(path).href);
}

/** The CPU model as /proc/cpuinfo names it (os.cpus() elsewhere). */
function cpuModel() {
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (match) return match[1].trim();
  } catch {
    // not Linux
  }
  return os.cpus()[0]?.model?.trim() ?? 'unknown CPU';
}

/** The 1-, 5- and 15-minute load averages, rounded. */
export function loadAverage() {
  return os.loadavg().map((n) => Math.round(n * 100) / 100);
}

/** The machine a run measured on: nproc (the CPUs this process may use), model, load. */
export function machine() {
  return {
    cpuModel: cpuModel(),
    cpus: os.availableParallelism?.() ?? os.cpus().length,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverage: loadAverage(),
  };
}

/** HEAD's commit and whether the working tree differs from it (what "this" measures). */
export function workingTreeState(root) {
  const git = (args) =>
    execFileSync('git', ['-C', root, ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  try {
    const commit = git(['rev-parse', 'HEAD']);
    const dirty = git(['status', '--porcelain', '--untracked-files=no']) !== '';
    return { commit, dirty };
  } catch {
    return { commit: null, dirty: null };
  }
}

/** The Node flags of `npm run start:prod`, so the service runs here as it runs in production. */
export function productionNodeFlags(root) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return (pkg.scripts?.['start:prod'] ?? '').split(/\s+/).filter((arg) => arg.startsWith('--'));
}

/** Every file of `dir` with its size and time, to notice a build writing into it. */
function listing(dir) {
  if (!existsSync(dir)) return '';
  return readdirSync(dir, { recursive: true })
    .sort()
    .map((name) => {
      const stat = statSync(join(dir, name));
      return `${name} ${stat.size} ${stat.mtimeMs}`;
    })
    .join('\n');
}

/**
 * A private copy of dist/ in the run's temp dir, beside package.json (its "type") and a link to
 * node_modules, so it runs as it does in the project. `nest build` empties dist/ first, and other
 * people build while a run lasts: the copy keeps every service and seed of the run on the same
 * code. Copies only a dist/ that stays unchanged around the copy.
 */
async function snapshotDist(root, dir, log) {
  const source = join(root, 'dist');
  const app = join(dir, 'app');
  for (let attempt = 1; attempt <= 10; attempt++) {
    const before = listing(source);
    await new Promise((r) => setTimeout(r, 1000));
    const complete = ['main.js', 'seed.js'].every((f) => existsSync(join(source, f)));
    if (complete && listing(source) === before) {
      rmSync(app, { recursive: true, force: true });
      cpSync(source, join(app, 'dist'), { recursive: true });
      if (listing(source) === before) {
        copyFileSync(join(root, 'package.json'), join(app, 'package.json'));
        symlinkSync(join(root, 'node_modules'), join(app, 'node_modules'), 'dir');
        return join(app, 'dist');
      }
    }
    log(`dist/ is changing (another build?): waiting (${attempt}/10)…`);
    await new Promise((r) => setTimeout(r, 5000));
  }
  throw new Error('dist/ kept changing or stayed incomplete: build first (npm run build)');
}

/**
 * `npm run build` (unless skipBuild), then a temp dir for the run (removed at exit unless keep)
 * holding the private copy of dist/. Returns { dir, distDir }.
 */
export async function prepareBuild({ root, skipBuild, keep, prefix, log }) {
  if (!skipBuild) {
    log('building (npm run build)…');
    await runToCompletion('npm', ['run', 'build'], {
      cwd: root,
      env: process.env,
      label: 'npm run build',
      timeoutMs: 300_000,
    });
  }
  if (!existsSync(join(root, 'dist', 'main.js')))
    throw new Error('dist/main.js missing: build first');
  const dir = mkdtempSync(join(os.tmpdir(), prefix));
  registerTempDir(dir);
  if (keep) keepTempDir(dir);
  return { dir, distDir: await snapshotDist(root, dir, log) };
}
