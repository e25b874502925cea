/**
 * Child processes, temp dirs and their clean-up, one HTTP request function, and what /proc says
 * about a process (CPU time, peak RSS). Every child, temp dir and server the benchmark starts is
 * registered here and removed on exit, on errors and on Ctrl-C.
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';

const children = new Set();
const tempDirs = new Set();
const cleanups = new Set();
let cleaningUp = false;

/**
 * Spawns a tracked child. Its last lines of output are kept for error messages; with `logFile`
 * its output goes to that file instead (a busy server's log then costs the benchmark nothing).
 * `group`: a process group of its own, so that `npm run build` is stopped with what it started.
 */
export function spawnTracked(command, args, { cwd, env, label, logFile, group = false } = {}) {
  const out = logFile ? openSync(logFile, 'a') : 'pipe';
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', out, out], detached: group });
  if (logFile) closeSync(out);
  Object.assign(child, { group, label: label ?? command, logFile, output: [] });
  child.exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      children.delete(child);
      child.exitInfo = { code, signal };
      resolve(child.exitInfo);
    }),
  );
  child.once('error', (error) => child.output.push(`spawn error: ${error.message}`));
  const keep = (chunk) => {
    for (const line of String(chunk).split('\n')) {
      if (line.trim() === '') continue;
      child.output.push(line);
      if (child.output.length > 60) child.output.shift();
    }
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  children.add(child);
  return child;
}

export function outputTail(child, lines = 20) {
  let output = child.output;
  if (child.logFile) {
    try {
      output = readFileSync(child.logFile, 'utf8').slice(-20_000).split('\n').filter(Boolean);
    } catch {
      // no log yet
    }
  }
  return output.slice(-lines).join('\n');
}

function signal(child, name) {
  try {
    if (child.group) process.kill(-child.pid, name);
    else child.kill(name);
  } catch {
    // already gone
  }
}

/** Runs a command to its end; rejects with the tail of its output when it fails or times out. */
export async function runToCompletion(
  command,
  args,
  { cwd, env, label, timeoutMs = 300_000, onStart },
) {
  const child = spawnTracked(command, args, { cwd, env, label, group: true });
  onStart?.(child);
  const timer = setTimeout(() => signal(child, 'SIGKILL'), timeoutMs);
  const { code, signal: by } = await child.exited;
  clearTimeout(timer);
  if (code !== 0) {
    throw new Error(`${child.label} failed (${by ?? `exit ${code}`}):\n${outputTail(child, 30)}`);
  }
  return child.output;
}

/** SIGTERM, then SIGKILL when the child is still there after `timeoutMs`. */
export async function stopChild(child, timeoutMs = 10_000) {
  if (!child || child.exitInfo) return;
  signal(child, 'SIGTERM');
  const timer = setTimeout(() => signal(child, 'SIGKILL'), timeoutMs);
  await child.exited;
  clearTimeout(timer);
}

/** A temp dir removed at the end of the run (unless `keep`). */
export function registerTempDir(dir, keep = false) {
  if (!keep) tempDirs.add(dir);
}

/** A clean-up awaited once the children have stopped; returns its unregistration. */
export function registerCleanup(fn) {
  cleanups.add(fn);
  return () => cleanups.delete(fn);
}

function killAllSync() {
  for (const child of children) signal(child, 'SIGKILL');
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

export const cleaningUpAlready = () => cleaningUp;

export async function cleanup() {
  if (cleaningUp) return;
  cleaningUp = true;
  await Promise.all([...children].map((child) => stopChild(child, 3000)));
  await Promise.allSettled([...cleanups].map((fn) => fn()));
  killAllSync();
}

/** Clean-up on Ctrl-C, termination and exit. */
export function installCleanupHandlers(log) {
  for (const [name, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ]) {
    process.on(name, () => {
      if (cleaningUp) return;
      log(`\n${name}: stopping child processes and removing temp files…`);
      setTimeout(() => process.exit(code), 8000).unref();
      cleanup().finally(() => process.exit(code));
    });
  }
  process.on('exit', killAllSync);
}

/* ------------------------------------------------------------------------------------------ */

/** A free TCP port on 127.0.0.1 (asked from the OS, then released for the child to take). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** One request on 127.0.0.1: status, raw headers and body bytes. */
export function httpRequest(
  port,
  path,
  { method = 'GET', headers = {}, body, timeoutMs = 5000 } = {},
) {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method, headers, timeout: timeoutMs, agent: false },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            rawHeaders: res.rawHeaders,
            body: Buffer.concat(chunks),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Polls `path` until it answers 200; fails when the child exits or `timeoutMs` passes. */
export async function waitForHttp(child, port, path, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (child.exitInfo) {
      throw new Error(`${child.label} exited before ${path} answered:\n${outputTail(child)}`);
    }
    try {
      const res = await httpRequest(port, path, { timeoutMs: 2000 });
      if (res.status === 200) return;
      last = `HTTP ${res.status} ${res.body.toString('utf8').slice(0, 200)}`;
    } catch (error) {
      last = error.message;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${child.label}: ${path} not 200 after ${timeoutMs / 1000} s (${last})`);
}

/** Waits for a line of the child's output matching `pattern`. */
export async function waitForLine(child, pattern, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!child.output.some((line) => pattern.test(line))) {
    if (child.exitInfo) throw new Error(`${child.label} exited:\n${outputTail(child)}`);
    if (Date.now() > deadline) throw new Error(`${child.label} not ready after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/* ------------------------------------------------------------------------------------------ */
/* /proc                                                                                       */

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Fields of /proc/<pid>/stat after the command name (state is [0], utime [11], stime [12]). */
function statFields(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** CPU seconds of a process so far: { user, total } (utime, utime + stime); undefined if gone. */
export function cpuSeconds(pid) {
  try {
    const f = statFields(pid);
    return { user: f[11] / CLOCK_TICKS, total: (Number(f[11]) + Number(f[12])) / CLOCK_TICKS };
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds of a process tree (PostgreSQL's postmaster and its backends), as cpuSeconds: the
 * live processes, plus what the root's exited children used (cutime, cstime), so a backend that
 * ends during a measurement still counts.
 */
export function treeCpuSeconds(rootPid) {
  const stats = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      stats.set(Number(entry), statFields(entry));
    } catch {
      // exited while we looked
    }
  }
  const root = stats.get(rootPid);
  if (!root) return undefined;
  let user = Number(root[11]) + Number(root[13]);
  let total = user + Number(root[12]) + Number(root[14]);
  const inTree = new Set([rootPid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, f] of stats) {
      if (inTree.has(pid) || !inTree.has(Number(f[1]))) continue;
      inTree.add(pid);
      grew = true;
      user += Number(f[11]);
      total += Number(f[11]) + Number(f[12]);
    }
  }
  return { user: user / CLOCK_TICKS, total: total / CLOCK_TICKS };
}

/** CPU seconds the whole machine spent in user space (user + nice), from /proc/stat. */
export function machineUserSeconds() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
    return (Number(fields[1]) + Number(fields[2])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** Starts a new peak-RSS window (writing 5 to clear_refs resets VmHWM); false when refused. */
export function resetPeakRss(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** VmHWM of a process in MB: its peak RSS since it started or since resetPeakRss. */
export function peakRssMb(pid) {
  try {
    const match = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 102.4) / 10 : undefined;
  } catch {
    return undefined;
  }
}
