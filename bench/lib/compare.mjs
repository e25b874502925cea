/**
 * --compare <git-ref>: the ref's build, made in a temporary git worktree beside the working tree
 * and removed afterwards (on success, on errors and on Ctrl-C), so both builds can be measured
 * in one run against the same dataset.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { productionNodeFlags } from './build.mjs';
import { UsageError } from './options.mjs';
import { registerCleanup, runToCompletion } from './processes.mjs';

const git = (root, args) =>
  execFileSync('git', ['-C', root, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();

/** The commit `ref` names in the repository of `root`; a usage error when it names none. */
export function resolveRef(root, ref) {
  try {
    return git(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  } catch {
    throw new UsageError(`--compare: ${ref} is not a commit of this repository`);
  }
}

/**
 * The migrations of the working tree and of the ref: the ref's service reads a database the
 * working tree's seed script migrated, which it can do while both have the same migrations.
 */
export function migrationDifferences(root, commit) {
  try {
    const out = git(root, ['diff', '--name-status', commit, '--', 'src/database/migrations']);
    return out ? out.split('\n') : [];
  } catch {
    return ['(could not compare the migrations)'];
  }
}

/**
 * Checks out `ref` in a temporary worktree, gives it the working tree's node_modules when both
 * package-lock.json files are identical (otherwise `npm ci`), and runs `npm run build` there.
 * Returns { ref, commit, root, distDir, nodeFlags, modules, remove }.
 */
export async function prepareRefBuild({ root, ref, log }) {
  const commit = resolveRef(root, ref);
  const tree = mkdtempSync(join(os.tmpdir(), 'gateway-bench-ref-'));
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    try {
      git(root, ['worktree', 'remove', '--force', tree]);
    } catch {
      // Already gone, or never added: make sure neither files nor git's record stay behind.
      rmSync(tree, { recursive: true, force: true });
      try {
        git(root, ['worktree', 'prune']);
      } catch {
        // nothing more to do
      }
    }
  };
  const unregister = registerCleanup(async () => remove());
  // A hard exit skips the async clean-ups: the worktree still goes.
  process.once('exit', remove);
  try {
    log(`--compare: checking out ${ref} (${commit.slice(0, 12)}) in ${tree}…`);
    git(root, ['worktree', 'add', '--detach', tree, commit]);
    const lockHere = readFileSync(join(root, 'package-lock.json'), 'utf8');
    let lockThere;
    try {
      lockThere = git(root, ['show', `${commit}:package-lock.json`]);
    } catch {
      lockThere = undefined;
    }
    let modules;
    if (lockThere !== undefined && lockThere.trim() === lockHere.trim()) {
      symlinkSync(join(root, 'node_modules'), join(tree, 'node_modules'), 'dir');
      modules = 'the working tree’s node_modules (same package-lock.json)';
    } else {
      log('--compare: package-lock.json differs from the working tree: npm ci in the worktree…');
      await runToCompletion('npm', ['ci', '--no-audit', '--no-fund'], {
        cwd: tree,
        env: process.env,
        label: `npm ci (${ref})`,
        timeoutMs: 900_000,
      });
      modules = 'its own (npm ci: package-lock.json differs)';
    }
    log(`--compare: building ${ref} (npm run build in the worktree)…`);
    await runToCompletion('npm', ['run', 'build'], {
      cwd: tree,
      env: process.env,
      label: `npm run build (${ref})`,
      timeoutMs: 300_000,
    });
    const distDir = join(tree, 'dist');
    if (!['main.js', 'seed.js'].every((f) => existsSync(join(distDir, f)))) {
      throw new Error(`--compare: the build of ${ref} has no dist/main.js`);
    }
    return {
      ref,
      commit,
      root: tree,
      distDir,
      nodeFlags: productionNodeFlags(tree),
      modules,
      migrationDifferences: migrationDifferences(root, commit),
      async remove() {
        unregister();
        process.removeListener('exit', remove);
        remove();
      },
    };
  } catch (error) {
    unregister();
    process.removeListener('exit', remove);
    remove();
    throw error;
  }
}
