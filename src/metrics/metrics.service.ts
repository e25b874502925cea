import type { RequestObserver } from '../http/ports.js';
import type { RateLimitRefusals, RefusedLimit } from '../rate-limits/rate-limit-refusals.js';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { DataSource } from 'typeorm';
import { CacheLookups, type CacheName } from './cache-lookups.js';
import { poolConnections } from './db-pool.js';

export type CallbackState = 'pending' | 'delivered' | 'failed';

/** Why a session's personal data was erased: its retention ran out, or an operator asked. */
export type ErasureReason = 'retention' | 'request';

/**
 * How one delivery attempt of a merchant callback ended: `delivered` (a 2xx in time), `rejected`
 * (any other answer), `timeout` (no answer within the time limit), `error` (no connection: DNS,
 * refused, reset, or an address the delivery may not reach).
 */
export type CallbackAttemptOutcome = 'delivered' | 'rejected' | 'timeout' | 'error';

/** The gap of a merchant's deposit key: its consecutive newest addresses that received nothing. */
export interface DepositAddressGap {
  merchantId: string;
  network: string;
  gap: number;
}

/** The route label of a request no route served. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Distinct route labels kept at most. The service has fewer than twenty routes; a caller that passed
 * raw URLs by mistake would otherwise grow the series (and the scrape) without bound.
 */
export const MAX_ROUTE_LABELS = 200;

/** From a cached answer (about 0.5 ms) to 5 s; anything slower is counted in +Inf. */
const REQUEST_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];
/** Callback attempts end at the delivery time limit (10 s unless configured otherwise). */
const CALLBACK_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The series of one (route, method): its latency, and its request counter per status. */
interface RequestSeries {
  /** The route label: the template, or `unmatched`. */
  route: string;
  duration: Histogram.Internal<'method' | 'route'>;
  byStatus: Map<number | 'aborted', Counter.Internal>;
}

let processRegistry: Registry | undefined;

/**
 * Node's process metrics (CPU, memory, heap, event loop, GC), unprefixed so that the usual
 * Node.js dashboards and alerts apply. Collected once per process: their collectors hold
 * performance observers that are never released, and they describe the process, whichever
 * application in it is scraped.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * The application's Prometheus metrics. Each instance has its own registry (the process metrics
 * shared), so several applications in one process (as in the tests) never collide on the
 * prom-client global registry.
 */
@Injectable()
export class MetricsService implements CacheLookups, RequestObserver, RateLimitRefusals {
  private readonly registry: Registry;
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly requestDuration: Histogram<'method' | 'route'>;
  /** route → method → series: finding a request's series allocates nothing once it exists. */
  private readonly requestSeries = new Map<string, Map<string, RequestSeries>>();
  private readonly refusals: Record<RefusedLimit, Counter.Internal>;
  private readonly lookups: Record<CacheName, Record<'hit' | 'miss', Counter.Internal>>;
  private readonly callbacks: Gauge<'state'>;
  private readonly callbackAttempts: Histogram<'outcome'>;
  private readonly erasures: Record<ErasureReason, Counter.Internal>;
  private readonly auditHead: Gauge<'hash'>;
  /** Where the deposit address gaps are read at each scrape (set by the deposits feature). */
  private depositGaps?: () => Promise<DepositAddressGap[]>;

  constructor(@InjectDataSource() dataSource: DataSource) {
    const own = new Registry();
    const registers = [own];
    this.requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.requestDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from the request to the end of its answer, by method and route template.',
      labelNames: ['method', 'route'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    const refusals = new Counter({
      name: 'rate_limit_refusals_total',
      help: 'Requests refused with 429, by the limit that refused them.',
      labelNames: ['limit'],
      registers,
    });
    const lookups = new Counter({
      name: 'cache_lookups_total',
      help: 'Cache lookups, by cache and result.',
      labelNames: ['cache', 'result'],
      registers,
    });
    new Gauge({
      name: 'db_pool_connections',
      help: 'Database connections by state (SQLite: total only, one shared connection).',
      labelNames: ['state'],
      registers,
      collect() {
        this.reset();
        for (const [state, count] of Object.entries(poolConnections(dataSource))) {
          this.set({ state }, count);
        }
      },
    });
    this.callbacks = new Gauge({
      name: 'callbacks',
      help: 'Merchant callbacks by delivery state.',
      labelNames: ['state'],
      registers,
    });
    this.callbackAttempts = new Histogram({
      name: 'callback_attempt_duration_seconds',
      help: 'Duration of merchant callback delivery attempts, by outcome.',
      labelNames: ['outcome'],
      buckets: CALLBACK_BUCKETS,
      registers,
    });
    const erasures = new Counter({
      name: 'personal_data_erased_sessions_total',
      help: 'Payment sessions whose personal data was erased, by reason (retention or request).',
      labelNames: ['reason'],
      registers,
    });
    this.auditHead = new Gauge({
      name: 'audit_chain_head',
      help: 'The head of the audit chain as this instance last published it: its number of events, labelled with the link of the last one (hash). One series at a time; keep them to check later that the chain still holds them.',
      labelNames: ['hash'],
      registers,
    });
    const depositGaps = () => this.depositGaps?.() ?? Promise.resolve([]);
    new Gauge({
      name: 'deposit_address_gap',
      help: "Consecutive newest deposit addresses of a merchant's current key that received nothing, by merchant and network (wallets stop looking after 20 by default). Read from the database at each scrape.",
      labelNames: ['merchant', 'network'],
      registers,
      async collect() {
        this.reset();
        // A database that cannot answer leaves the gauge empty; the scrape still answers.
        const read = await depositGaps().catch(() => []);
        for (const { merchantId, network, gap } of read) {
          this.set({ merchant: merchantId, network }, gap);
        }
      },
    });
    this.registry = Registry.merge([processMetrics(), own]);

    // Counters that exist from the start read 0 rather than missing, so rates and alerts work
    // before the first event.
    const zeroed = (child: Counter.Internal) => (child.inc(0), child);
    this.refusals = {
      general: zeroed(refusals.labels('general')),
      status_not_found: zeroed(refusals.labels('status_not_found')),
      checkout_refusals: zeroed(refusals.labels('checkout_refusals')),
    };
    const lookupsOf = (cache: CacheName) => ({
      hit: zeroed(lookups.labels(cache, 'hit')),
      miss: zeroed(lookups.labels(cache, 'miss')),
    });
    this.lookups = { catalog: lookupsOf('catalog'), final_status: lookupsOf('final_status') };
    this.erasures = {
      retention: zeroed(erasures.labels('retention')),
      request: zeroed(erasures.labels('request')),
    };
  }

  /** The Content-Type of `scrape()`: Prometheus text format 0.0.4. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Every metric in Prometheus text format; collects the database pool on the way. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  /**
   * One answered request. `route` is the template of the route that served it (e.g.
   * `/api/gateway/payment-status/:validationKey`), undefined when none did (`unmatched`); never
   * the raw URL. Called for every request, so the label children are kept: after the first
   * request of a (method, route, status) it costs three map lookups, one increment and one
   * observation.
   */
  requestCompleted(
    method: string,
    route: string | undefined,
    status: number | 'aborted',
    seconds: number,
  ): void {
    const series = this.seriesOf(method, route ?? UNMATCHED_ROUTE);
    let counter = series.byStatus.get(status);
    if (!counter) {
      counter = this.requests.labels(method, series.route, String(status));
      series.byStatus.set(status, counter);
    }
    counter.inc();
    series.duration.observe(seconds);
  }

  /** One request refused with 429 by the given limit. */
  rateLimited(limit: RefusedLimit): void {
    this.refusals[limit].inc();
  }

  cacheLookup(cache: CacheName, hit: boolean): void {
    this.lookups[cache][hit ? 'hit' : 'miss'].inc();
  }

  /** How many callbacks are in each state now (absent from the scrape until first set). */
  setCallbackStates(counts: Record<CallbackState, number>): void {
    this.callbacks.set({ state: 'pending' }, counts.pending);
    this.callbacks.set({ state: 'delivered' }, counts.delivered);
    this.callbacks.set({ state: 'failed' }, counts.failed);
  }

  /** Sessions whose personal data was erased. */
  personalDataErased(sessions: number, reason: ErasureReason): void {
    this.erasures[reason].inc(sessions);
  }

  /** The head of the audit chain: its events and last link (the previous head's series goes). */
  setAuditHead(events: number, headHash: string): void {
    this.auditHead.reset();
    this.auditHead.set({ hash: headHash }, events);
  }

  /** Where the deposit address gaps are read from at each scrape (the deposits feature's keys). */
  readDepositGapsFrom(source: () => Promise<DepositAddressGap[]>): void {
    this.depositGaps = source;
  }

  /** One delivery attempt of a callback, how long it took and how it ended. */
  recordCallbackAttempt(seconds: number, outcome: CallbackAttemptOutcome): void {
    this.callbackAttempts.observe({ outcome }, seconds);
  }

  private seriesOf(method: string, route: string): RequestSeries {
    let byMethod = this.requestSeries.get(route);
    if (!byMethod) {
      if (this.requestSeries.size >= MAX_ROUTE_LABELS && route !== UNMATCHED_ROUTE) {
        return this.seriesOf(method, UNMATCHED_ROUTE);
      }
      byMethod = new Map();
      this.requestSeries.set(route, byMethod);
    }
    let series = byMethod.get(method);
    if (!series) {
      series = {
        route,
        duration: this.requestDuration.labels(method, route),
        byStatus: new Map(),
      };
      byMethod.set(method, series);
    }
    return series;
  }
}
