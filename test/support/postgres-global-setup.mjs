// Starts a throwaway PostgreSQL and Redis on loopback for the e2e-postgres project; the test
// workers, started after this, inherit their URLs. globalTeardown (same file) removes them.
import { tsImport } from 'tsx/esm/api';

export default async function globalSetup() {
  const { startPostgres, startRedis } = await tsImport('./servers.ts', import.meta.url);
  const [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
  process.env.TEST_POSTGRES_URL = postgres.url;
  process.env.TEST_REDIS_URL = redis.url;
  globalThis.gatewayTestServers = [postgres, redis];
}

export async function teardown() {
  await Promise.all((globalThis.gatewayTestServers ?? []).map((server) => server.destroy()));
}
