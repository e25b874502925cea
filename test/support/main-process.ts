import { ChildProcess, execFile, spawn } from 'node:child_process';
import { createServer } from 'node:net';

/**
 * Time budget of a test that starts processes of its own (`dist/main.js`, the seed command). It
 * bounds a failure, it does not measure speed: a start costs about 1.8 s of CPU on an idle
 * two-core machine (mostly loading modules), several times that while another test worker runs
 * the several-instance suites with their servers.
 */
export const PROCESS_TEST_TIMEOUT_MS = 120_000;

export interface MainProcess {
  child: ChildProcess;
  url: string;
  port: number;
  output: () => string;
  /** Resolves with the exit code and the milliseconds since `since`. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/** A free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts the production entry point (`node dist/main.js`, as `npm run start:prod` does) with the
 * given environment, on `port` (a free loopback port when omitted: give the port of a stopped
 * instance to start it again where its clients expect it), and waits until it answers.
 */
export async function startMain(
  env: Record<string, string>,
  options: { port?: number } = {},
): Promise<MainProcess> {
  const port = options.port ?? (await freePort());
  const child = spawn(process.execPath, ['dist/main.js'], {
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: String(port),
      HTTP_PLATFORM: process.env.HTTP_PLATFORM ?? 'express',
      // The tests' fetch keeps idle connections open about 4 s, by timers that run late on a busy
      // machine: against the server's 5 s a request could go out on a connection the server was
      // closing ("other side closed"). The server keeps them well longer than the client.
      KEEP_ALIVE_TIMEOUT_MS: '30000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>(
    (resolve) => child.on('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  const url = `http://127.0.0.1:${port}`;
  // Generous: two processes starting together on a busy machine take their time.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const up = await fetch(`${url}/health/live`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`dist/main.js did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, url, port, output: () => output, exited };
}

/** What a run of the seed command printed, line by line, and how it ended. */
export interface SeedRun {
  code: number;
  out: string[];
  /** What it printed on stderr but its progress lines. */
  err: string[];
  /** Its progress lines (src/seeding/seed-progress.ts): a run that lasts a few seconds has some. */
  progress: string[];
}

/** Longest a seed command run by a test may take before it is killed. */
const SEED_RUN_TIMEOUT_MS = 60_000;

/** `<file>: starting` or `<file>: <section>: <n> records (<rate>/s), …`. */
const PROGRESS_LINE = /: (starting|\w+: [\d,]+ records \([\d,]+\/s\), .*)$/;

/**
 * Runs the built seed command (`node dist/seed.js`, as `npm run seed` does) in a process of its
 * own, as beside a running service in production, with the given environment.
 */
export function runSeed(args: string[], env: Record<string, string>): Promise<SeedRun> {
  const lines = (text: string) => text.split('\n').filter((line) => line !== '');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['dist/seed.js', ...args],
      {
        env: { PATH: process.env.PATH, LOG_LEVEL: 'silent', ...env },
        // A run that hangs fails here, with what it printed, inside the test's budget.
        timeout: SEED_RUN_TIMEOUT_MS,
        killSignal: 'SIGKILL',
      },
      (error, stdout, stderr) => {
        const code = error ? error.code : 0;
        if (typeof code !== 'number') reject(error);
        else {
          const err = lines(stderr);
          resolve({
            code,
            out: lines(stdout),
            err: err.filter((line) => !PROGRESS_LINE.test(line)),
            progress: err.filter((line) => PROGRESS_LINE.test(line)),
          });
        }
      },
    );
  });
}
