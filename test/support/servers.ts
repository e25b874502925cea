/**
 * Real PostgreSQL and Redis servers for tests, CI and the benchmark: each one runs on a free
 * loopback port with a throwaway data directory, so nothing depends on (or disturbs) a server
 * the machine may already run on the default ports. The binaries come from Debian packages;
 * scripts/system-deps.sh installs them.
 *
 * Only node: built-ins are used, so the module loads the same under jest, tsx and plain node.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const LOOPBACK = '127.0.0.1';
const DEPS_HINT = 'run scripts/system-deps.sh';
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;
// destroy() kills what has not stopped cleanly by then: the data is thrown away anyway.
const DESTROY_GRACE_MS = 5_000;

export type PostgresStopMode = 'fast' | 'immediate';

export interface ServerOptions {
  /** Loopback port to listen on; a free one is picked when omitted. */
  port?: number;
  /**
   * Kill the server and remove its data when this process exits, in case destroy() is never
   * reached (a crashed test run). Default true; false leaves it running for other processes.
   */
  cleanupOnExit?: boolean;
}

export interface PostgresOptions extends ServerOptions {
  /**
   * Extra server settings (`-c name=value`), applied after the defaults below and on every
   * start() of this handle, e.g. `{ shared_buffers: '256MB' }` to size a cluster like a deployment.
   */
  settings?: Record<string, string | number>;
}

/** What another process needs to reach and stop a running PostgreSQL (see attachPostgres). */
export interface PostgresDetails {
  url: string;
  port: number;
  dataDir: string;
  /** Holds dataDir, the socket directory and the log; destroy() removes it. */
  baseDir: string;
  binDir: string;
  logFile: string;
}

export interface PostgresServer extends PostgresDetails {
  /** Stops the cluster and waits until the postmaster is gone and the port is free. */
  stop(mode?: PostgresStopMode): Promise<void>;
  /** Starts the same cluster again: same port, same data (crash recovery after 'immediate'). */
  start(): Promise<void>;
  /** Stops (killing the processes if a clean stop fails) and removes the data. */
  destroy(): Promise<void>;
  /** Creates a database on this cluster and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** True when the server accepts connections on its TCP port. */
  ping(): Promise<boolean>;
  details(): PostgresDetails;
}

/** What another process needs to reach and stop a running Redis (see attachRedis). */
export interface RedisDetails {
  url: string;
  port: number;
  /** Redis working directory: pid file and log; destroy() removes it. */
  dir: string;
  binary: string;
  logFile: string;
}

export interface RedisServer extends RedisDetails {
  /** Stops the server and waits until the process is gone and the port is free. */
  stop(): Promise<void>;
  /** Starts a server again on the same port (empty: nothing is persisted). */
  start(): Promise<void>;
  /** Stops (killing the process if a clean stop fails) and removes the working directory. */
  destroy(): Promise<void>;
  /** True when the server answers PING. */
  ping(): Promise<boolean>;
  details(): RedisDetails;
}

// ---------------------------------------------------------------------------------------------
// Small process and network helpers

interface RunResult {
  stdout: string;
  stderr: string;
}

function run(
  file: string,
  args: string[],
  options: { cwd?: string; timeout?: number } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { cwd: options.cwd, timeout: options.timeout ?? START_TIMEOUT_MS, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error) {
          const output = `${stderr}${stdout}`.trim();
          reject(new Error(`${path.basename(file)} failed: ${error.message}\n${output}`.trim()));
        } else {
          resolve({ stdout, stderr });
        }
      },
    );
  });
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // A daemon that exited stays a zombie until its parent (often pid 1) reaps it: count it as gone.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return !existsSync('/proc/self');
  }
}

/** Processes whose parent is pid, recursively (postgres backends and helpers). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name (field 2) may contain spaces and parentheses: parse after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // The process exited while we were reading.
    }
  }
  const result: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      result.push(child);
      queue.push(child);
    }
  }
  return result;
}

function killTree(pid: number, signal: NodeJS.Signals): void {
  for (const target of [pid, ...descendants(pid)]) {
    try {
      process.kill(target, signal);
    } catch {
      // Already gone.
    }
  }
}

async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  intervalMs = 50,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(intervalMs);
  }
}

/** A port that is free right now: bind port 0 on loopback, read the port, release it. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** True when nothing listens on the loopback port (so a server may bind it). */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, LOOPBACK, () => server.close(() => resolve(true)));
  });
}

async function tail(file: string, lines = 20): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

// Servers still running in this process, for the exit hook.
const exitCleanups = new Set<() => void>();
let exitHookInstalled = false;

function registerExitCleanup(cleanup: () => void): () => void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // 'exit' handlers must be synchronous: kill and remove with sync calls only.
    process.on('exit', () => {
      for (const fn of exitCleanups) {
        try {
          fn();
        } catch {
          // Best effort: keep cleaning up the others.
        }
      }
    });
  }
  exitCleanups.add(cleanup);
  return () => exitCleanups.delete(cleanup);
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

/** The newest /usr/lib/postgresql/<version>/bin, PG_BIN_DIR, or the directory of initdb on PATH. */
export function findPostgresBinDir(): string {
  const override = process.env.PG_BIN_DIR;
  if (override) {
    if (existsSync(path.join(override, 'initdb'))) return override;
    throw new Error(`PostgreSQL binaries not found: PG_BIN_DIR=${override} has no initdb`);
  }
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((name) => /^\d+(\.\d+)?$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    for (const version of versions) {
      const bin = path.join(root, version, 'bin');
      if (existsSync(path.join(bin, 'initdb')) && existsSync(path.join(bin, 'pg_ctl'))) return bin;
    }
  }
  const onPath = findOnPath('initdb');
  if (onPath) return path.dirname(onPath);
  throw new Error(`PostgreSQL binaries not found (no ${root}/<version>/bin/initdb); ${DEPS_HINT}`);
}

function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && existsSync(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

interface PostgresOwner {
  uid: number;
  gid: number;
}

/** As root, PostgreSQL must run as an unprivileged user: the Debian package's 'postgres'. */
async function postgresOwner(): Promise<PostgresOwner | undefined> {
  if (!isRoot()) return undefined;
  try {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    return { uid, gid };
  } catch {
    throw new Error(`running as root but the 'postgres' user does not exist; ${DEPS_HINT}`);
  }
}

function postgresCommand(owner: PostgresOwner | undefined, file: string, args: string[]) {
  if (!owner) return { file, args };
  const command = [file, ...args].map(shellQuote).join(' ');
  return { file: 'su', args: ['-s', '/bin/bash', 'postgres', '-c', command] };
}

function readPostmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Freezes every process of a running cluster (SIGSTOP): its connections stay open and nothing
 * answers, as across a network cut. The returned function thaws them (SIGCONT).
 */
export function freezePostgres(server: PostgresDetails): () => void {
  const pid = readPostmasterPid(server.dataDir);
  if (pid === undefined) throw new Error(`no postmaster.pid in ${server.dataDir}`);
  const frozen = [pid, ...descendants(pid)];
  for (const target of frozen) process.kill(target, 'SIGSTOP');
  return () => {
    for (const target of frozen) {
      try {
        process.kill(target, 'SIGCONT');
      } catch {
        // Already gone.
      }
    }
  };
}

/** Freezes a running Redis (SIGSTOP): connected clients get no answer. Returns the thaw. */
export function freezeRedis(server: RedisDetails): () => void {
  const pid = readRedisPid(server.dir);
  if (pid === undefined) throw new Error(`no redis.pid in ${server.dir}`);
  process.kill(pid, 'SIGSTOP');
  return () => process.kill(pid, 'SIGCONT');
}

/** The pid in a Redis working directory's pid file, or undefined. */
function readRedisPid(dir: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(dir, 'redis.pid'), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

const DATABASE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const SETTING_NAME = /^[a-z][a-z0-9_.]*$/;
// pg_ctl hands its -o string to a shell: accept only values that need no quoting.
const SETTING_VALUE = /^[A-Za-z0-9_.:/+-]+$/;

function settingArguments(settings: Record<string, string | number> = {}): string[] {
  return Object.entries(settings).map(([name, value]) => {
    if (!SETTING_NAME.test(name) || !SETTING_VALUE.test(String(value))) {
      throw new Error(`invalid PostgreSQL setting: ${name}=${value}`);
    }
    return `-c ${name}=${value}`;
  });
}

export async function startPostgres(options: PostgresOptions = {}): Promise<PostgresServer> {
  const extraSettings = settingArguments(options.settings);
  const binDir = findPostgresBinDir();
  const owner = await postgresOwner();
  const baseDir = await mkdtemp(path.join(os.tmpdir(), 'gateway-pg-'));
  // mkdtemp makes a 700 directory; the postgres user must be able to enter it.
  await chmod(baseDir, 0o755);
  const dataDir = path.join(baseDir, 'data');
  const socketDir = path.join(baseDir, 'socket');
  const logFile = path.join(baseDir, 'postgres.log');
  await mkdir(socketDir, { mode: 0o755 });
  if (owner) {
    await chown(baseDir, owner.uid, owner.gid);
    await chown(socketDir, owner.uid, owner.gid);
  }
  let port = options.port ?? 0;
  const server = createPostgresHandle(
    { url: '', port, dataDir, baseDir, binDir, logFile },
    owner,
    options.cleanupOnExit ?? true,
    extraSettings,
  );
  try {
    const initdb = postgresCommand(owner, path.join(binDir, 'initdb'), [
      '-D',
      dataDir,
      '-A',
      'trust',
      '-U',
      'postgres',
      '--encoding=UTF8',
      '--locale=C',
      // Skips flushing the new cluster to disk (about half of initdb's time); it is throwaway.
      '--no-sync',
    ]);
    await run(initdb.file, initdb.args, { cwd: baseDir });
    // A port picked by freePort() can be taken by someone else before postgres binds it: retry
    // with another one, unless the caller asked for a specific port.
    for (let attempt = 1; ; attempt++) {
      if (!options.port) port = await freePort();
      server.port = port;
      try {
        await server.start();
        break;
      } catch (error) {
        if (options.port || attempt >= 3 || (await portIsFree(port))) throw error;
      }
    }
    server.url = await server.createDatabase('gateway');
    return server;
  } catch (error) {
    await server.destroy().catch(() => undefined);
    throw error;
  }
}

/** A handle on a cluster started by another process (scripts/services.ts stop). */
export async function attachPostgres(details: PostgresDetails): Promise<PostgresServer> {
  return createPostgresHandle(details, await postgresOwner(), false);
}

function createPostgresHandle(
  initial: PostgresDetails,
  owner: PostgresOwner | undefined,
  cleanupOnExit: boolean,
  extraSettings: string[] = [],
): PostgresServer {
  const { dataDir, baseDir, binDir, logFile } = initial;
  const socketDir = path.join(baseDir, 'socket');
  let destroyed = false;
  let lastPid: number | undefined;
  let unregister: (() => void) | undefined;

  const pgCtl = (args: string[], timeout = START_TIMEOUT_MS) => {
    const command = postgresCommand(owner, path.join(binDir, 'pg_ctl'), ['-D', dataDir, ...args]);
    return run(command.file, command.args, { cwd: baseDir, timeout });
  };

  const psql = (database: string, sql: string) =>
    run(path.join(binDir, 'psql'), [
      '-X',
      '-q',
      '-v',
      'ON_ERROR_STOP=1',
      '-h',
      LOOPBACK,
      '-p',
      String(server.port),
      '-U',
      'postgres',
      '-d',
      database,
      '-c',
      sql,
    ]);

  const stopWithin = async (mode: PostgresStopMode, timeoutMs: number) => {
    const pid = readPostmasterPid(dataDir) ?? lastPid;
    if (!pid || !isAlive(pid)) return;
    const seconds = String(Math.ceil(timeoutMs / 1000));
    await pgCtl(['-m', mode, '-w', '-t', seconds, 'stop'], timeoutMs + 5000);
    const gone = async () => !isAlive(pid) && (await portIsFree(server.port));
    if (!(await waitFor(gone, timeoutMs))) {
      throw new Error(`PostgreSQL (pid ${pid}) did not stop within ${timeoutMs} ms`);
    }
    // Forget it: the number may be reused by an unrelated process later.
    lastPid = undefined;
  };

  const syncCleanup = () => {
    // Immediate shutdown lets the postmaster remove its shared memory; kill whatever is left.
    const command = postgresCommand(owner, path.join(binDir, 'pg_ctl'), [
      '-D',
      dataDir,
      '-m',
      'immediate',
      '-w',
      '-t',
      '10',
      'stop',
    ]);
    spawnSync(command.file, command.args, { cwd: baseDir, stdio: 'ignore', timeout: 15_000 });
    const pid = readPostmasterPid(dataDir) ?? lastPid;
    if (pid && isAlive(pid)) killTree(pid, 'SIGKILL');
    rmSync(baseDir, { recursive: true, force: true });
  };

  const server: PostgresServer = {
    ...initial,
    async start() {
      if (destroyed) throw new Error('this PostgreSQL server was destroyed');
      const running = readPostmasterPid(dataDir);
      if (running && isAlive(running) && (await server.ping())) return;
      if (!(await portIsFree(server.port))) {
        throw new Error(`cannot start PostgreSQL: port ${server.port} on ${LOOPBACK} is in use`);
      }
      const settings = [
        `-p ${server.port}`,
        `-k ${socketDir}`,
        `-c listen_addresses=${LOOPBACK}`,
        // A throwaway cluster: surviving an OS crash is not needed, speed is. Committed data must
        // still survive stop('immediate') (a simulated crash), so synchronous_commit stays on:
        // with fsync off a commit only write()s its WAL, which is cheap, whereas
        // synchronous_commit=off leaves the last ~0.5 s of commits in memory and loses them.
        '-c fsync=off',
        '-c full_page_writes=off',
        '-c max_connections=200',
        ...extraSettings,
      ].join(' ');
      try {
        await pgCtl([
          '-l',
          logFile,
          '-w',
          '-t',
          String(START_TIMEOUT_MS / 1000),
          '-o',
          settings,
          'start',
        ]);
      } catch (error) {
        throw new Error(
          `PostgreSQL did not start on port ${server.port}: ${(error as Error).message}\n` +
            `--- ${logFile}\n${await tail(logFile)}`,
          { cause: error },
        );
      }
      lastPid = readPostmasterPid(dataDir);
      // pg_ctl -w may have checked over the Unix socket: make sure TCP on loopback answers too.
      if (!(await waitFor(() => server.ping(), START_TIMEOUT_MS, 100))) {
        throw new Error(`PostgreSQL started but does not answer on ${LOOPBACK}:${server.port}`);
      }
      if (cleanupOnExit && !unregister) unregister = registerExitCleanup(syncCleanup);
    },

    stop(mode: PostgresStopMode = 'fast') {
      return stopWithin(mode, STOP_TIMEOUT_MS);
    },

    async destroy() {
      if (destroyed) return;
      try {
        await stopWithin('immediate', DESTROY_GRACE_MS);
      } catch {
        // Fall through to killing the processes.
      }
      const pid = readPostmasterPid(dataDir) ?? lastPid;
      if (pid && isAlive(pid)) {
        killTree(pid, 'SIGKILL');
        await waitFor(() => !isAlive(pid), STOP_TIMEOUT_MS);
      }
      destroyed = true;
      unregister?.();
      await rm(baseDir, { recursive: true, force: true });
    },

    async createDatabase(name: string) {
      // Names are interpolated into SQL: accept plain identifiers only.
      if (!DATABASE_NAME.test(name)) throw new Error(`invalid database name: ${name}`);
      await psql('postgres', `CREATE DATABASE "${name}"`);
      return `postgres://postgres@${LOOPBACK}:${server.port}/${name}`;
    },

    async ping() {
      try {
        await run(
          path.join(binDir, 'pg_isready'),
          ['-q', '-h', LOOPBACK, '-p', String(server.port), '-U', 'postgres', '-d', 'postgres'],
          { timeout: 5000 },
        );
        return true;
      } catch {
        return false;
      }
    },

    details() {
      const { url, port } = server;
      return { url, port, dataDir, baseDir, binDir, logFile };
    },
  };
  return server;
}

// ---------------------------------------------------------------------------------------------
// Redis

export function findRedisServer(): string {
  const binary = findOnPath('redis-server') ?? ['/usr/bin/redis-server'].find((f) => existsSync(f));
  if (!binary) throw new Error(`redis-server not found; ${DEPS_HINT}`);
  return binary;
}

/** Sends PING over a raw socket and resolves true on +PONG. */
export function redisPing(port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: LOOPBACK, port });
    let reply = '';
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('error', () => finish(false));
    // Something else on the port may just hang up without answering.
    socket.once('close', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
    });
  });
}

export async function startRedis(options: ServerOptions = {}): Promise<RedisServer> {
  const binary = findRedisServer();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gateway-redis-'));
  const server = createRedisHandle(
    { url: '', port: options.port ?? 0, dir, binary, logFile: path.join(dir, 'redis.log') },
    options.cleanupOnExit ?? true,
  );
  try {
    for (let attempt = 1; ; attempt++) {
      server.port = options.port ?? (await freePort());
      server.url = `redis://${LOOPBACK}:${server.port}`;
      try {
        await server.start();
        return server;
      } catch (error) {
        if (options.port || attempt >= 3 || (await portIsFree(server.port))) throw error;
      }
    }
  } catch (error) {
    await server.destroy().catch(() => undefined);
    throw error;
  }
}

/** A handle on a Redis started by another process (scripts/services.ts stop). */
export function attachRedis(details: RedisDetails): RedisServer {
  const server = createRedisHandle(details, false);
  return server;
}

function createRedisHandle(initial: RedisDetails, cleanupOnExit: boolean): RedisServer {
  const { dir, binary, logFile } = initial;
  const pidFile = path.join(dir, 'redis.pid');
  let destroyed = false;
  let lastPid: number | undefined;
  let unregister: (() => void) | undefined;

  const currentPid = (): number | undefined => {
    // Redis removes its pid file on shutdown; fall back to the pid seen at start.
    lastPid = readRedisPid(dir) ?? lastPid;
    return lastPid;
  };

  const stopWithin = async (timeoutMs: number) => {
    const pid = currentPid();
    if (!pid || !isAlive(pid)) return;
    // SIGTERM is a clean shutdown; nothing is saved because persistence is off.
    process.kill(pid, 'SIGTERM');
    const gone = async () => !isAlive(pid) && (await portIsFree(server.port));
    if (!(await waitFor(gone, timeoutMs))) {
      throw new Error(`Redis (pid ${pid}) did not stop within ${timeoutMs} ms`);
    }
    // Forget it: the number may be reused by an unrelated process later.
    lastPid = undefined;
  };

  const syncCleanup = () => {
    const pid = currentPid();
    if (pid && isAlive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };

  const server: RedisServer = {
    ...initial,
    async start() {
      if (destroyed) throw new Error('this Redis server was destroyed');
      if (await redisPing(server.port)) {
        const pid = currentPid();
        if (pid && isAlive(pid)) return;
        throw new Error(`cannot start Redis: port ${server.port} is served by another process`);
      }
      if (!(await portIsFree(server.port))) {
        throw new Error(`cannot start Redis: port ${server.port} on ${LOOPBACK} is in use`);
      }
      lastPid = undefined;
      // With --daemonize the command returns at once; failures only show in the log.
      await run(binary, [
        '--port',
        String(server.port),
        '--bind',
        LOOPBACK,
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'yes',
        '--pidfile',
        pidFile,
        '--dir',
        dir,
        '--logfile',
        logFile,
      ]);
      const up = await waitFor(() => redisPing(server.port, 500), START_TIMEOUT_MS / 6, 25);
      if (!up) {
        throw new Error(
          `Redis did not answer PING on ${LOOPBACK}:${server.port}\n--- ${logFile}\n${await tail(logFile)}`,
        );
      }
      await waitFor(() => currentPid() !== undefined, 5000, 25);
      if (cleanupOnExit && !unregister) unregister = registerExitCleanup(syncCleanup);
    },

    stop() {
      return stopWithin(STOP_TIMEOUT_MS);
    },

    async destroy() {
      if (destroyed) return;
      try {
        await stopWithin(DESTROY_GRACE_MS);
      } catch {
        // Fall through to killing the process.
      }
      const pid = currentPid();
      if (pid && isAlive(pid)) {
        process.kill(pid, 'SIGKILL');
        await waitFor(() => !isAlive(pid), STOP_TIMEOUT_MS);
      }
      destroyed = true;
      unregister?.();
      await rm(dir, { recursive: true, force: true });
    },

    ping() {
      return redisPing(server.port);
    },

    details() {
      const { url, port } = server;
      return { url, port, dir, binary, logFile };
    },
  };
  return server;
}
