import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { createEvmWatcher } from '../../../src/watcher/create-watcher.js';
import type { EvmWatcher } from '../../../src/watcher/evm-watcher.js';
import { createWatcherLogger } from '../../../src/watcher/watcher-log.js';

/** A JSON log line of the watcher. */
export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export interface WatcherRunOptions {
  rpcUrl: string;
  gatewayUrl: string;
  token: string;
  chainId?: number;
  pollMs?: number;
  backoff?: { minMs: number; maxMs: number };
}

/**
 * The watcher in this process, put together as `src/watcher.ts` does, with its log lines kept
 * (pino at debug: one `Round` line per round).
 */
export class WatcherRun {
  readonly lines: LogLine[] = [];
  readonly exited: Promise<number>;
  private readonly watcher: EvmWatcher;

  constructor(options: WatcherRunOptions) {
    const stream = new Writable({
      write: (chunk: Buffer, _encoding, callback) => {
        for (const line of chunk.toString('utf8').split('\n')) {
          if (line) this.lines.push(JSON.parse(line) as LogLine);
        }
        callback();
      },
    });
    const logger = createWatcherLogger('debug', stream);
    this.watcher = createEvmWatcher(
      {
        ...options,
        chainId: options.chainId,
        pollMs: options.pollMs ?? 200,
        backoff: options.backoff ?? { minMs: 200, maxMs: 1000 },
      },
      logger,
    );
    this.exited = this.watcher.run();
  }

  /** Lines whose message is `msg`. */
  linesOf(msg: string): LogLine[] {
    return this.lines.filter((line) => line.msg === msg);
  }

  get rounds(): number {
    return this.linesOf('Round').length;
  }

  /** Resolves once `count` more rounds have ended. */
  async moreRounds(count: number, timeoutMs = 20_000): Promise<void> {
    const target = this.rounds + count;
    await until(() => this.rounds >= target, timeoutMs, `${count} more rounds`);
  }

  async stop(): Promise<number> {
    this.watcher.stop();
    return this.exited;
  }
}

/** Polls `condition` until it holds; fails with `what` after `timeoutMs`. */
export async function until(
  condition: () => boolean,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export interface WatcherProcess {
  pid: number;
  output: () => string;
  lines: () => LogLine[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill: (signal: NodeJS.Signals) => void;
}

/** `node dist/watcher.js <args>`, as `npm run watcher -- <args>` starts it. */
export function startWatcherProcess(args: string[], env: Record<string, string>): WatcherProcess {
  const child = spawn(process.execPath, ['dist/watcher.js', ...args], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  // 'close', not 'exit': a process's last lines may still be in the pipe when it has exited.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return {
    pid: child.pid!,
    output: () => output,
    lines: () =>
      output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as LogLine),
    exited,
    kill: (signal) => child.kill(signal),
  };
}
