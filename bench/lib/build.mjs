/**
 * The builds a run measures: this working tree's (built, then copied to the run's temp dir) and,
 * with --compare, another commit's, built in a temporary git worktree. Also the machine a run
 * measured on.
 */
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { registerCleanup, runToCompletion } from './processes.mjs';

export const BENCH = join(dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT = join(BENCH, '..');

const git = (root, args) =>
  execFileSync('git', ['-C', root, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();

/** nproc, CPU model and the load average: the first line of every report. */
export function machine() {
  let cpuModel = os.cpus()[0]?.model?.trim() ?? 'unknown CPU';
  try {
    cpuModel =
      /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpuModel;
  } catch {
    // not Linux
  }
  return {
    cpuModel: cpuModel.trim(),
    nproc: os.availableParallelism(),
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    loadAverage: loadAverage(),
  };
}

export const loadAverage = () => os.loadavg().map((n) => Math.round(n * 100) / 100);

/** HEAD's commit and whether the working tree differs from it (what "this build" is). */
export function workingTreeState(root = ROOT) {
  try {
    return {
      commit: git(root, ['rev-parse', 'HEAD']),
      dirty: git(root, ['status', '--porcelain', '--untracked-files=no']) !== '',
    };
  } catch {
    return { commit: null, dirty: null };
  }
}

/** The last command of an npm script (`start:prod`, `seed`), as words. */
function scriptWords(root, script) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return (pkg.scripts?.[script] ?? '').split('&&').at(-1).trim().split(/\s+/);
}

/** The `--…` Node flags of an npm script (`start:prod`, `seed`): the service runs as deployed. */
export function scriptNodeFlags(root, script) {
  return scriptWords(root, script).filter((word) => word.startsWith('--'));
}

/** The `NAME=value` environment an npm script sets before `node` (`MALLOC_ARENA_MAX=2`). */
export function scriptEnv(root, script) {
  const env = {};
  for (const word of scriptWords(root, script)) {
    const assignment = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(word);
    if (!assignment) break;
    env[assignment[1]] = assignment[2];
  }
  return env;
}

/**
 * `npm run build` (unless skipBuild), then a copy of dist/ in `dir` beside package.json and a
 * link to node_modules: a build someone starts during the run (it empties dist/) changes nothing
 * in it. Returns the build: { root, distDir, nodeFlags, nodeEnv, seedFlags }.
 */
export async function prepareBuild({ dir, skipBuild, log }) {
  if (!skipBuild) {
    log('building (npm run build)…');
    await runToCompletion('npm', ['run', 'build'], {
      cwd: ROOT,
      env: process.env,
      label: 'npm run build',
    });
  }
  for (const file of ['main.js', 'seed.js']) {
    if (!existsSync(join(ROOT, 'dist', file)))
      throw new Error(`dist/${file} missing: npm run build`);
  }
  const app = join(dir, 'app');
  cpSync(join(ROOT, 'dist'), join(app, 'dist'), { recursive: true });
  copyFileSync(join(ROOT, 'package.json'), join(app, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(app, 'node_modules'), 'dir');
  return {
    name: 'this',
    root: ROOT,
    distDir: join(app, 'dist'),
    nodeFlags: scriptNodeFlags(ROOT, 'start:prod'),
    nodeEnv: scriptEnv(ROOT, 'start:prod'),
    seedFlags: scriptNodeFlags(ROOT, 'seed'),
  };
}

/**
 * --compare: `ref` checked out in a temporary git worktree (removed at the end, on errors and on
 * Ctrl-C), given this tree's node_modules when both package-lock.json are the same (else
 * `npm ci`), and built there. The ref reads the dataset this build's seed command made, so the
 * report warns when the migrations differ.
 */
export async function prepareRefBuild(ref, log) {
  let commit;
  try {
    commit = git(ROOT, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  } catch {
    throw new Error(`--compare: ${ref} is not a commit of this repository`);
  }
  const tree = mkdtempSync(join(os.tmpdir(), 'gateway-bench-ref-'));
  const remove = () => {
    try {
      git(ROOT, ['worktree', 'remove', '--force', tree]);
    } catch {
      rmSync(tree, { recursive: true, force: true });
      try {
        git(ROOT, ['worktree', 'prune']);
      } catch {
        // nothing more to do
      }
    }
  };
  registerCleanup(async () => remove());
  process.once('exit', () => existsSync(tree) && remove());
  log(`--compare: checking out ${ref} (${commit.slice(0, 12)}) in a temporary worktree…`);
  git(ROOT, ['worktree', 'add', '--detach', tree, commit]);
  const lock = (at) => {
    try {
      return git(ROOT, ['show', `${at}:package-lock.json`]);
    } catch {
      return undefined;
    }
  };
  const sameLock = lock(commit) === readFileSync(join(ROOT, 'package-lock.json'), 'utf8').trim();
  if (sameLock) {
    symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'), 'dir');
  } else {
    log('--compare: package-lock.json differs: npm ci in the worktree…');
    await runToCompletion('npm', ['ci', '--no-audit', '--no-fund'], {
      cwd: tree,
      env: process.env,
      label: `npm ci (${ref})`,
      timeoutMs: 900_000,
    });
  }
  log(`--compare: building ${ref}…`);
  await runToCompletion('npm', ['run', 'build'], {
    cwd: tree,
    env: process.env,
    label: `npm run build (${ref})`,
  });
  // Where the migrations are (src/schema/migrations, src/database/migrations before): a file
  // moved with nothing changed but its relative imports is no difference.
  const migrations = git(ROOT, [
    'diff',
    '--numstat',
    '-M',
    "-Ifrom '\\.",
    commit,
    '--',
    'src/database/migrations',
    'src/schema/migrations',
  ])
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('0\t0\t'))
    .join('\n');
  return {
    name: 'ref',
    ref,
    commit,
    root: tree,
    distDir: join(tree, 'dist'),
    nodeFlags: scriptNodeFlags(tree, 'start:prod'),
    nodeEnv: scriptEnv(tree, 'start:prod'),
    modules: sameLock ? 'this tree’s node_modules (same package-lock.json)' : 'its own (npm ci)',
    migrationDifferences: migrations ? migrations.split('\n') : [],
  };
}
