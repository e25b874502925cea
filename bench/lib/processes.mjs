/**
 * Child processes, temp files and their cleanup. Every child, temp dir and server (PostgreSQL,
 * Redis) the benchmark makes is registered here and removed on exit, on Ctrl-C and on errors.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, request } from 'node:http';

/** Variables of the caller's environment that would change what a benchmark measures. */
const MEASUREMENT_ENV = [
  'CONTEXT_PATH',
  'ADMIN_TOKEN',
  'CATALOG_CACHE_TTL_SECONDS',
  'NODE_OPTIONS',
  'DATABASE_POOL_SIZE',
  'REDIS_URL',
  'REDIS_KEY_PREFIX',
];

/**
 * The caller's environment for a service under measurement, without the variables that would
 * change what is measured (`MEASUREMENT_ENV` and the benchmark's own `alsoIgnored`).
 */
export function callerEnv(alsoIgnored = []) {
  const env = { ...process.env };
  for (const name of [...MEASUREMENT_ENV, ...alsoIgnored]) delete env[name];
  return env;
}

const children = new Set();
const tempDirs = new Set();
const asyncCleanups = new Set();
let cleaningUp = false;

/**
 * Spawns a tracked child. Its output is kept (last lines) for error messages, or, with `logFile`,
 * written to that file: a busy server's log then costs the benchmark's own process nothing.
 */
export function spawnTracked(command, args, { cwd, env, label, logFile, group = false } = {}) {
  let stdio = 'pipe';
  if (logFile) stdio = openSync(logFile, 'a');
  // A process group of its own: `npm run build` leaves `nest build` running if only npm is signalled.
  const child = spawn(command, args, {
    cwd,
    env,
    stdio: ['ignore', stdio, stdio],
    detached: group,
  });
  if (logFile) closeSync(stdio);
  child.group = group;
  child.label = label ?? `${command} ${args.join(' ')}`;
  child.logFile = logFile;
  child.output = [];
  child.exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      children.delete(child);
      child.exitInfo = { code, signal };
      resolve(child.exitInfo);
    });
  });
  child.once('error', (error) => {
    child.output.push(`spawn error: ${error.message}`);
  });
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
      const text = readFileSync(child.logFile, 'utf8');
      output = output.concat(
        text
          .slice(-20_000)
          .split('\n')
          .filter((l) => l.trim() !== ''),
      );
    } catch {
      // no log yet
    }
  }
  return output.slice(-lines).join('\n');
}

/** Runs a command to its end; rejects with the tail of its output when it fails or times out. */
export async function runToCompletion(command, args, { cwd, env, label, timeoutMs }) {
  const child = spawnTracked(command, args, { cwd, env, label, group: true });
  const timer = setTimeout(() => {
    child.output.push(`(timed out after ${timeoutMs / 1000} s)`);
    signal(child, 'SIGKILL');
  }, timeoutMs);
  const { code, signal } = await child.exited;
  clearTimeout(timer);
  if (code !== 0) {
    throw new Error(
      `${child.label} failed (${signal ?? `exit ${code}`}):\n${outputTail(child, 30)}`,
    );
  }
  return child.output;
}

/** Signals a child, and its whole process group when it was started with one. */
function signal(child, name) {
  try {
    if (child.group) process.kill(-child.pid, name);
    else child.kill(name);
  } catch {
    // already gone
  }
}

/** SIGTERM, then SIGKILL when the child has not exited after `timeoutMs`. */
export async function stopChild(child, { signal: name = 'SIGTERM', timeoutMs = 5000 } = {}) {
  if (!child || child.exitInfo) return;
  signal(child, name);
  const timer = setTimeout(() => signal(child, 'SIGKILL'), timeoutMs);
  await child.exited;
  clearTimeout(timer);
}

export function registerTempDir(dir) {
  tempDirs.add(dir);
}

export function keepTempDir(dir) {
  tempDirs.delete(dir);
}

/**
 * Registers a clean-up that cleanup() awaits once the children have stopped (a database server
 * started by test/support/servers.ts, whose own exit hook covers a hard exit). Returns a function
 * that unregisters it.
 */
export function registerCleanup(fn) {
  asyncCleanups.add(fn);
  return () => asyncCleanups.delete(fn);
}

function killAllSync() {
  for (const child of children) signal(child, 'SIGKILL');
  for (const dir of tempDirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // nothing more to do on the way out
    }
  }
  tempDirs.clear();
}

/** Whether the clean-up has begun (after Ctrl-C or a termination signal, before main ends). */
export function cleaningUpAlready() {
  return cleaningUp;
}

/** Stops every child gracefully (then forcefully) and removes the temp dirs. */
export async function cleanup() {
  if (cleaningUp) return;
  cleaningUp = true;
  await Promise.all([...children].map((child) => stopChild(child, { timeoutMs: 3000 })));
  await Promise.allSettled([...asyncCleanups].map((fn) => fn()));
  asyncCleanups.clear();
  killAllSync();
}

/** Installs the handlers that clean up on Ctrl-C, termination, errors and plain exit. */
export function installCleanupHandlers(log) {
  const onSignal = (signal, code) => {
    process.on(signal, () => {
      if (cleaningUp) return;
      log(`\n${signal}: stopping child processes and removing temp files…`);
      const force = setTimeout(() => {
        killAllSync();
        process.exit(code);
      }, 5000);
      force.unref();
      cleanup().finally(() => process.exit(code));
    });
  };
  onSignal('SIGINT', 130);
  onSignal('SIGTERM', 143);
  onSignal('SIGHUP', 129);
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

/** One GET on 127.0.0.1: status, raw headers and body bytes. */
export function httpGet(port, path, headers = {}, timeoutMs = 5000) {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'GET', headers, timeout: timeoutMs, agent: false },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            statusMessage: res.statusMessage,
            rawHeaders: res.rawHeaders,
            body: Buffer.concat(chunks),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/** Polls `path` until it answers `status`, the child exits, or `timeoutMs` passes. */
export async function waitForHttp(child, port, path, { status = 200, timeoutMs = 60_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (child.exitInfo) {
      throw new Error(
        `${child.label} exited (${child.exitInfo.signal ?? `code ${child.exitInfo.code}`}) before ${path} answered:\n${outputTail(child)}`,
      );
    }
    try {
      const res = await httpGet(port, path, {}, 2000);
      if (res.status === status) return;
      last = `HTTP ${res.status} ${res.body.toString('utf8').slice(0, 200)}`;
    } catch (error) {
      last = error.message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `${child.label}: ${path} did not answer ${status} within ${timeoutMs / 1000} s (last: ${last}):\n${outputTail(child)}`,
  );
}

/** Waits for a line on the child's output matching `pattern`. */
export function waitForLine(child, pattern, timeoutMs = 30_000) {
  return new Promise((resolve, reject) => {
    const check = () => child.output.find((line) => pattern.test(line));
    const found = check();
    if (found) return resolve(found);
    const onData = () => {
      const line = check();
      if (line) finish(null, line);
    };
    const onExit = () =>
      finish(new Error(`${child.label} exited before it was ready:\n${outputTail(child)}`));
    const timer = setTimeout(
      () => finish(new Error(`${child.label} not ready after ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    function finish(error, line) {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve(line);
    }
    // Registered after spawnTracked's own listeners, so the line is already in child.output.
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

/* ------------------------------------------------------------------------------------------ */

const HAS_PROC = existsSync('/proc/self/status');

/** Resident set size of a process in kB, from /proc (Linux) or `ps` elsewhere. */
export function rssKb(pid) {
  try {
    if (HAS_PROC) {
      const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      return match ? Number(match[1]) : undefined;
    }
    const out = execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' });
    return Number(out.trim()) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts a new peak-RSS window for `pid` (Linux: writing 5 to clear_refs resets VmHWM to the
 * current RSS). Returns false when the kernel does not allow it; VmHWM then covers the whole life
 * of the process.
 */
export function resetPeakRss(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Peak resident set size of a process in kB (VmHWM) since it started or since resetPeakRss. */
export function peakRssKb(pid) {
  try {
    const match = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** CPU seconds a process has used so far, from /proc; undefined elsewhere. */
export function cpuTimes(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the command name: state is field 3, utime field 14, stime field 15 (1-based).
    const user = Number(fields[11]) / CLOCK_TICKS;
    const system = Number(fields[12]) / CLOCK_TICKS;
    return { user, system, total: user + system };
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds of a process tree (a PostgreSQL postmaster and its backends): the live processes,
 * plus what the root's exited children used (cutime/cstime), so a backend that ends during a
 * measurement still counts. Undefined without /proc.
 */
export function treeCpuTimes(rootPid) {
  const parents = new Map();
  let entries;
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return undefined;
  }
  const stats = new Map();
  for (const entry of entries) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      stats.set(Number(entry), fields);
      parents.set(Number(entry), Number(fields[1]));
    } catch {
      // exited while we looked
    }
  }
  const root = stats.get(rootPid);
  if (!root) return undefined;
  let user = (Number(root[11]) + Number(root[13])) / CLOCK_TICKS;
  let system = (Number(root[12]) + Number(root[14])) / CLOCK_TICKS;
  const inTree = new Set([rootPid]);
  // Children have higher pids than their parents except after pid wrap-around: loop to a fixpoint.
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (!inTree.has(pid) && inTree.has(ppid)) {
        inTree.add(pid);
        grew = true;
        const fields = stats.get(pid);
        user += Number(fields[11]) / CLOCK_TICKS;
        system += Number(fields[12]) / CLOCK_TICKS;
      }
    }
  }
  return { user, system, total: user + system, processes: inTree.size };
}

/** Machine-wide CPU seconds from /proc/stat: user space (user + nice) and stolen by the host. */
export function machineCpu() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
    const [user, nice, , , , , , steal] = fields.slice(1).map(Number);
    return { user: (user + nice) / CLOCK_TICKS, steal: (steal || 0) / CLOCK_TICKS };
  } catch {
    return undefined;
  }
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Samples the RSS of `pid` every `intervalMs` until stopped; returns the peak in MB. */
export function startRssSampler(pid, intervalMs = 200) {
  let peakKb = 0;
  let samples = 0;
  const sample = () => {
    const kb = rssKb(pid);
    if (kb !== undefined) {
      samples++;
      if (kb > peakKb) peakKb = kb;
    }
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { peakMb: Math.round((peakKb / 1024) * 10) / 10, samples };
    },
  };
}
