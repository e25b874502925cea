/**
 * Starts and stops one throwaway PostgreSQL and one Redis on loopback for local runs, CI and the
 * benchmark (test/support/servers.ts does the work):
 *
 *   eval "$(npm run -s services -- start)"   # exports DATABASE_URL and REDIS_URL
 *   npm run services -- status
 *   npm run services -- stop                 # stops both and removes their data
 *
 * The servers outlive this command; their details are kept in .tmp/services.json so that later
 * commands can find them.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  attachPostgres,
  attachRedis,
  type PostgresDetails,
  type RedisDetails,
  startPostgres,
  startRedis,
} from '../test/support/servers.js';

interface ServicesFile {
  postgres: PostgresDetails;
  redis: RedisDetails;
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stateFile = path.join(root, '.tmp', 'services.json');

async function readState(): Promise<ServicesFile | undefined> {
  if (!existsSync(stateFile)) return undefined;
  return JSON.parse(await readFile(stateFile, 'utf8')) as ServicesFile;
}

function printEnv(state: ServicesFile): void {
  // stdout carries only these two lines so the output can be eval'd by a shell.
  process.stdout.write(`DATABASE_URL=${state.postgres.url}\nREDIS_URL=${state.redis.url}\n`);
}

async function stop(state: ServicesFile): Promise<void> {
  const postgres = await attachPostgres(state.postgres);
  const redis = attachRedis(state.redis);
  const results = await Promise.allSettled([postgres.destroy(), redis.destroy()]);
  await rm(stateFile, { force: true });
  const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed.length > 0) throw new Error(failed.map((r) => String(r.reason)).join('\n'));
}

async function status(state: ServicesFile): Promise<{ postgres: boolean; redis: boolean }> {
  const [postgres, redis] = await Promise.all([
    attachPostgres(state.postgres).then((server) => server.ping()),
    attachRedis(state.redis).ping(),
  ]);
  return { postgres, redis };
}

async function main(command: string | undefined): Promise<number> {
  const state = await readState();
  switch (command) {
    case 'start': {
      if (state) {
        const up = await status(state);
        if (up.postgres && up.redis) {
          process.stderr.write(`services already running (${stateFile})\n`);
          printEnv(state);
          return 0;
        }
        // A half-dead leftover (e.g. after a reboot): clear it and start afresh.
        await stop(state).catch(() => undefined);
      }
      // These servers must outlive this command: no cleanup when it exits.
      const postgres = await startPostgres({ cleanupOnExit: false });
      let redis;
      try {
        redis = await startRedis({ cleanupOnExit: false });
      } catch (error) {
        await postgres.destroy();
        throw error;
      }
      const next: ServicesFile = { postgres: postgres.details(), redis: redis.details() };
      await mkdir(path.dirname(stateFile), { recursive: true });
      await writeFile(stateFile, `${JSON.stringify(next, null, 2)}\n`);
      printEnv(next);
      return 0;
    }
    case 'stop': {
      if (!state) {
        process.stderr.write('no services recorded; nothing to stop\n');
        return 0;
      }
      await stop(state);
      process.stderr.write('services stopped\n');
      return 0;
    }
    case 'status': {
      if (!state) {
        process.stdout.write('postgres: not started\nredis: not started\n');
        return 1;
      }
      const up = await status(state);
      process.stdout.write(
        `postgres: ${up.postgres ? 'up' : 'down'} ${state.postgres.url}\n` +
          `redis: ${up.redis ? 'up' : 'down'} ${state.redis.url}\n`,
      );
      return up.postgres && up.redis ? 0 : 1;
    }
    default:
      process.stderr.write('usage: tsx scripts/services.ts start|stop|status\n');
      return 2;
  }
}

main(process.argv[2]).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
