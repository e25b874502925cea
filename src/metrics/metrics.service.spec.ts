import type { DataSource } from 'typeorm';
import { connectionOptions } from '../database/dialect.js';
import { MAX_ROUTE_LABELS, MetricsService } from './metrics.service.js';

const STATUS_ROUTE = '/api/gateway/payment-status/:validationKey';

function sqlite(isInitialized = true): DataSource {
  return { options: { type: 'sqlite' }, isInitialized, driver: {} } as unknown as DataSource;
}

/**
 * A PostgreSQL data source with the `pg` module the service gives TypeORM as its `driver`; with
 * `counts`, the pool TypeORM would make with it, made, its counts replaced by the given ones.
 */
function postgres(counts?: object): DataSource {
  const options = connectionOptions('postgres://localhost:1/none', 10);
  if (counts) {
    const { Pool } = (options as { driver: { Pool: new () => object } }).driver;
    const pool = new Pool();
    for (const name of ['totalCount', 'idleCount', 'waitingCount']) {
      Object.defineProperty(pool, name, { get: () => (counts as Record<string, number>)[name] });
    }
  }
  return { options, isInitialized: true } as unknown as DataSource;
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (comments skipped). */
function samples(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`Not a sample line: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
      );
      return { name: match[1], labels, value: Number(match[3]) };
    });
}

/** The value of the one sample with exactly this name and these labels; undefined when absent. */
function valueOf(text: string, name: string, labels: Record<string, string> = {}) {
  const found = samples(text).filter(
    (s) =>
      s.name === name &&
      Object.keys(s.labels).length === Object.keys(labels).length &&
      Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name}`);
  return found[0]?.value;
}

describe('MetricsService', () => {
  it('counts requests by method, route template and status, and times them by method and route', async () => {
    const metrics = new MetricsService(sqlite());
    metrics.requestCompleted('GET', STATUS_ROUTE, 200, 0.0007);
    metrics.requestCompleted('GET', STATUS_ROUTE, 200, 0.003);
    metrics.requestCompleted('GET', STATUS_ROUTE, 404, 0.002);
    metrics.requestCompleted('PUT', STATUS_ROUTE, 200, 0.02);
    const text = await metrics.scrape();

    const requests = (method: string, status: string) =>
      valueOf(text, 'http_requests_total', { method, route: STATUS_ROUTE, status });
    expect(requests('GET', '200')).toBe(2);
    expect(requests('GET', '404')).toBe(1);
    expect(requests('PUT', '200')).toBe(1);

    const get = { method: 'GET', route: STATUS_ROUTE };
    expect(valueOf(text, 'http_request_duration_seconds_count', get)).toBe(3);
    expect(valueOf(text, 'http_request_duration_seconds_sum', get)).toBeCloseTo(0.0057, 9);
    expect(valueOf(text, 'http_request_duration_seconds_bucket', { ...get, le: '0.0005' })).toBe(0);
    expect(valueOf(text, 'http_request_duration_seconds_bucket', { ...get, le: '0.001' })).toBe(1);
    expect(valueOf(text, 'http_request_duration_seconds_bucket', { ...get, le: '0.0025' })).toBe(2);
    expect(valueOf(text, 'http_request_duration_seconds_bucket', { ...get, le: '5' })).toBe(3);
    expect(valueOf(text, 'http_request_duration_seconds_bucket', { ...get, le: '+Inf' })).toBe(3);
  });

  it('labels a request no route served as unmatched', async () => {
    const metrics = new MetricsService(sqlite());
    metrics.requestCompleted('GET', undefined, 404, 0.001);
    const text = await metrics.scrape();
    expect(
      valueOf(text, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }),
    ).toBe(1);
  });

  it('keeps the route labels bounded: past the limit new routes count as unmatched', async () => {
    const metrics = new MetricsService(sqlite());
    for (let i = 0; i < MAX_ROUTE_LABELS + 50; i++)
      metrics.requestCompleted('GET', `/r/${i}`, 200, 0.001);
    const text = await metrics.scrape();
    const routes = new Set(
      samples(text)
        .filter((s) => s.name === 'http_requests_total')
        .map((s) => s.labels.route),
    );
    expect(routes.size).toBe(MAX_ROUTE_LABELS + 1);
    expect(routes.has(`/r/${MAX_ROUTE_LABELS - 1}`)).toBe(true);
    expect(routes.has(`/r/${MAX_ROUTE_LABELS}`)).toBe(false);
    expect(
      valueOf(text, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '200' }),
    ).toBe(50);
  });

  it('counts rate-limit refusals per limit, both present from the start', async () => {
    const metrics = new MetricsService(sqlite());
    const before = await metrics.scrape();
    expect(valueOf(before, 'rate_limit_refusals_total', { limit: 'general' })).toBe(0);
    expect(valueOf(before, 'rate_limit_refusals_total', { limit: 'status_not_found' })).toBe(0);

    metrics.rateLimited('general');
    metrics.rateLimited('status_not_found');
    metrics.rateLimited('status_not_found');
    const after = await metrics.scrape();
    expect(valueOf(after, 'rate_limit_refusals_total', { limit: 'general' })).toBe(1);
    expect(valueOf(after, 'rate_limit_refusals_total', { limit: 'status_not_found' })).toBe(2);
  });

  it('counts cache lookups per cache and result, all present from the start', async () => {
    const metrics = new MetricsService(sqlite());
    metrics.cacheLookup('catalog', true);
    metrics.cacheLookup('catalog', true);
    metrics.cacheLookup('catalog', false);
    metrics.cacheLookup('final_status', false);
    const text = await metrics.scrape();
    const lookups = (cache: string, result: string) =>
      valueOf(text, 'cache_lookups_total', { cache, result });
    expect(lookups('catalog', 'hit')).toBe(2);
    expect(lookups('catalog', 'miss')).toBe(1);
    expect(lookups('final_status', 'hit')).toBe(0);
    expect(lookups('final_status', 'miss')).toBe(1);
  });

  it('reads the PostgreSQL pool counts on every scrape', async () => {
    const pool = { totalCount: 4, idleCount: 3, waitingCount: 0 };
    const metrics = new MetricsService(postgres(pool));
    const first = await metrics.scrape();
    expect(valueOf(first, 'db_pool_connections', { state: 'total' })).toBe(4);
    expect(valueOf(first, 'db_pool_connections', { state: 'idle' })).toBe(3);
    expect(valueOf(first, 'db_pool_connections', { state: 'waiting' })).toBe(0);

    Object.assign(pool, { totalCount: 10, idleCount: 0, waitingCount: 7 });
    const second = await metrics.scrape();
    expect(valueOf(second, 'db_pool_connections', { state: 'total' })).toBe(10);
    expect(valueOf(second, 'db_pool_connections', { state: 'idle' })).toBe(0);
    expect(valueOf(second, 'db_pool_connections', { state: 'waiting' })).toBe(7);
  });

  it('reports a PostgreSQL pool not yet created as no connections', async () => {
    const text = await new MetricsService(postgres()).scrape();
    expect(valueOf(text, 'db_pool_connections', { state: 'total' })).toBe(0);
    expect(valueOf(text, 'db_pool_connections', { state: 'waiting' })).toBe(0);
  });

  it('reports the one SQLite connection as total only, 0 once closed', async () => {
    const open = await new MetricsService(sqlite(true)).scrape();
    expect(valueOf(open, 'db_pool_connections', { state: 'total' })).toBe(1);
    expect(valueOf(open, 'db_pool_connections', { state: 'idle' })).toBeUndefined();
    expect(valueOf(open, 'db_pool_connections', { state: 'waiting' })).toBeUndefined();

    const closed = await new MetricsService(sqlite(false)).scrape();
    expect(valueOf(closed, 'db_pool_connections', { state: 'total' })).toBe(0);
  });

  it('shows callbacks by state once set, and times callback attempts by outcome', async () => {
    const metrics = new MetricsService(sqlite());
    expect(valueOf(await metrics.scrape(), 'callbacks', { state: 'pending' })).toBeUndefined();

    metrics.setCallbackStates({ pending: 3, delivered: 10, failed: 1 });
    metrics.setCallbackStates({ pending: 2, delivered: 11, failed: 1 });
    metrics.recordCallbackAttempt(0.2, 'delivered');
    metrics.recordCallbackAttempt(10, 'timeout');
    const text = await metrics.scrape();
    expect(valueOf(text, 'callbacks', { state: 'pending' })).toBe(2);
    expect(valueOf(text, 'callbacks', { state: 'delivered' })).toBe(11);
    expect(valueOf(text, 'callbacks', { state: 'failed' })).toBe(1);
    const attempts = (outcome: string) =>
      valueOf(text, 'callback_attempt_duration_seconds_count', { outcome });
    expect(attempts('delivered')).toBe(1);
    expect(attempts('timeout')).toBe(1);
    expect(
      valueOf(text, 'callback_attempt_duration_seconds_bucket', { outcome: 'timeout', le: '5' }),
    ).toBe(0);
  });

  it('keeps each instance apart, both with the process metrics, in the Prometheus text format', async () => {
    const first = new MetricsService(sqlite());
    const second = new MetricsService(sqlite());
    first.rateLimited('general');
    const [a, b] = await Promise.all([first.scrape(), second.scrape()]);
    expect(valueOf(a, 'rate_limit_refusals_total', { limit: 'general' })).toBe(1);
    expect(valueOf(b, 'rate_limit_refusals_total', { limit: 'general' })).toBe(0);
    for (const text of [a, b]) {
      expect(valueOf(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
      expect(valueOf(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    }
    expect(first.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
  });
});
