/** bench/callbacks.mjs: what a burst delivered, the verdicts, and the Markdown report. */
import { BUSY_MACHINE_PERCENT } from './report.mjs';
import { expectedPath } from './callbacks-dataset.mjs';

/** Reads during a burst must keep this share of their throughput without one. */
export const READ_RATIO_TARGET = 0.8;

const percentile = (sorted, p) =>
  sorted.length === 0
    ? undefined
    : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/**
 * A burst's outcome from the burst process's record (`burst`: each transition's key, status,
 * send and answer times, HTTP status) and the receiver's (`deliveries`: webhook-id, key, status,
 * path, receipt time, signature valid). Lag = receipt − answer of the PUT that committed the
 * transition, for the first delivery of each session.
 */
export function analyseBurst(burst, deliveries) {
  const planned = new Map();
  let accepted = 0;
  const putStatuses = {};
  for (const [validationKey, status, sentAt, answeredAt, httpStatus] of burst.transitions) {
    putStatuses[httpStatus] = (putStatuses[httpStatus] ?? 0) + 1;
    if (httpStatus !== 200) continue;
    accepted++;
    planned.set(validationKey, { status, sentAt, answeredAt, received: [] });
  }
  const timesById = new Map();
  let invalid = 0;
  let unexpected = 0;
  let wrongUrl = 0;
  let wrongStatus = 0;
  let firstReceipt = Infinity;
  let lastReceipt = -Infinity;
  for (const [webhookId, validationKey, status, path, at, valid] of deliveries) {
    timesById.set(webhookId, (timesById.get(webhookId) ?? 0) + 1);
    if (!valid) invalid++;
    firstReceipt = Math.min(firstReceipt, at);
    lastReceipt = Math.max(lastReceipt, at);
    const session = planned.get(validationKey);
    if (!session) {
      unexpected++;
      continue;
    }
    session.received.push(at);
    if (status !== session.status) wrongStatus++;
    if (path !== expectedPath(session.status)) wrongUrl++;
  }
  const lags = [];
  let missing = 0;
  let moreThanOnce = 0;
  for (const session of planned.values()) {
    if (session.received.length === 0) {
      missing++;
      continue;
    }
    if (session.received.length > 1) moreThanOnce++;
    lags.push(Math.min(...session.received) - session.answeredAt);
  }
  lags.sort((a, b) => a - b);
  let duplicateIds = 0;
  for (const n of timesById.values()) if (n > 1) duplicateIds++;
  const answered = burst.transitions.map((t) => t[3]).filter((t) => t !== undefined);
  const firstPut = burst.startedAt;
  const lastPut = Math.max(...answered);
  const delivered = planned.size - missing;
  const end = Math.max(lastPut, Number.isFinite(lastReceipt) ? lastReceipt : lastPut);
  const rate = (count, from, to) => (to > from ? Math.round(count / ((to - from) / 1000)) : null);
  return {
    transitions: burst.transitions.length,
    accepted,
    putStatuses,
    putErrors: burst.errors,
    putRate: rate(burst.transitions.length, firstPut, lastPut),
    putSeconds: round((lastPut - firstPut) / 1000),
    received: deliveries.length,
    delivered,
    deliveryRate: rate(delivered, firstPut, lastReceipt),
    deliverySeconds: Number.isFinite(lastReceipt) ? round((lastReceipt - firstPut) / 1000) : null,
    drainAfterLastPutMs: Number.isFinite(lastReceipt) ? Math.max(0, lastReceipt - lastPut) : null,
    lagMs: {
      min: lags[0],
      p50: percentile(lags, 50),
      p99: percentile(lags, 99),
      max: lags[lags.length - 1],
    },
    invalid,
    duplicateIds,
    sessionsCalledMoreThanOnce: moreThanOnce,
    missing,
    unexpected,
    wrongUrl,
    wrongStatus,
    exactlyOnce:
      accepted > 0 &&
      accepted === burst.transitions.length &&
      missing === 0 &&
      moreThanOnce === 0 &&
      duplicateIds === 0 &&
      invalid === 0 &&
      unexpected === 0 &&
      wrongUrl === 0 &&
      wrongStatus === 0,
    window: { from: firstPut, to: end, lastPut, firstReceipt, lastReceipt },
  };
}

const round = (x, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
const n = (x) => (x === undefined || x === null ? '?' : x.toLocaleString('en-US'));
const pct = (x) => (x === undefined || x === null ? '?' : `${x}%`);

/** Verdicts: per platform and scenario, reads ≥ 80 %; per burst, exactly once. */
export function verdictsOf(platforms) {
  const verdicts = [];
  for (const [platform, result] of Object.entries(platforms)) {
    if (result.status !== 'measured') {
      verdicts.push({
        platform,
        target: 'the run',
        verdict: 'FAILED',
        detail: result.error ?? result.status,
      });
      continue;
    }
    for (const s of result.scenarios) {
      const ratio = s.ratio;
      verdicts.push({
        platform,
        target: `${s.label}: reads during the burst ≥ ${READ_RATIO_TARGET * 100} % of without`,
        verdict: ratio === null ? 'n/a' : ratio >= READ_RATIO_TARGET ? 'PASS' : 'MISS',
        detail:
          ratio === null
            ? 'no usable overlap window'
            : `${n(s.during.rps)} / ${n(s.without.rps)} req/s = ${Math.round(ratio * 100)} %` +
              ` (without: ${n(s.without.before)} before, ${n(s.without.after)} after the burst)`,
      });
    }
    for (const { label, burst: b, outbox } of burstsOf(result)) {
      verdicts.push({
        platform,
        target: `burst ${label}: each callback received exactly once, signature valid`,
        verdict: onceAndValid(b, outbox) ? 'PASS' : 'MISS',
        detail:
          `${n(b.delivered)}/${n(b.accepted)} sessions, missing ${b.missing}, ` +
          `duplicate ids ${b.duplicateIds}, invalid ${b.invalid}, wrong URL ${b.wrongUrl}, ` +
          `outbox: ${outboxLine(outbox)}`,
      });
    }
  }
  return verdicts;
}

/** The measured bursts of a platform: alone, then during each read scenario. */
function burstsOf(result) {
  return [
    { label: 'alone (no reads)', ...result.alone },
    ...result.scenarios.map((s) => ({
      label: `during ${s.label}`,
      burst: s.burst,
      outbox: s.outbox,
      window: s.during,
    })),
  ];
}

const onceAndValid = (b, outbox) => b.exactlyOnce && outbox.retried === 0;

function outboxLine(o) {
  const states = Object.entries(o.byState)
    .map(([state, count]) => `${count} ${state}`)
    .join(', ');
  return `${states || 'none'}, ${o.attempts} attempts, ${o.retried} retried`;
}

function cpuCell(c, name) {
  return c?.[name] === undefined ? '–' : `${c[name]}%`;
}

function busyNote(w) {
  const notes = [];
  if (w.otherProcessesCpuPercent > BUSY_MACHINE_PERCENT)
    notes.push(`other processes ${w.otherProcessesCpuPercent}%`);
  if (w.stealPercent > BUSY_MACHINE_PERCENT) notes.push(`steal ${w.stealPercent}%`);
  return notes.length ? ` ⚠ ${notes.join(', ')}` : '';
}

export function formatCallbackReport(run, verdicts) {
  const o = run.options;
  const lines = [
    `## Callback burst ${run.date.slice(0, 10)}`,
    '',
    `\`${run.command}\` — ${run.machine.cpuModel}, ${run.machine.cpus} cores, ${run.machine.memoryGb} GB, ` +
      `Node ${run.node}, autocannon ${run.autocannon}.`,
    '',
    `Service: \`node dist/main.js\`, SQLite (${n(run.dataset.sessions)} sessions, 5,000 pairs), ` +
      `NODE_ENV=${run.service.nodeEnv} (${run.service.nodeEnvReason}), LOG_LEVEL=${o.logLevel}, ` +
      `both rate limits at ${n(run.service.rateLimitPerMinute)} a minute, CALLBACKS_ENABLED=true, ` +
      `default delivery settings (32 attempts in flight, ${run.service.callbackTimeoutMs / 1000} s time limit).`,
    `Burst: ${n(o.transitions)} operator PUTs per burst, PENDING → SUCCESSFUL (1/2, returnUrl) / ` +
      `FAILED (1/4) / NOT_COMPLETED (1/4, errorUrl), ${o.concurrency} in flight; receiver: a separate ` +
      'node:http process on 127.0.0.1 verifying every delivery with `standardwebhooks`, answering 204.',
    `Reads: autocannon, ${o.connections} connections, ${o.warmup} s warm-up; without a burst ` +
      `${o.duration} s before and ${o.duration} s after the burst (the reference is their mean); during a burst, the window from its first PUT to its last delivery ` +
      '(one burst per scenario, on sessions of its own).',
    '',
  ];
  for (const [platform, result] of Object.entries(run.platforms)) {
    lines.push(`### ${platform}`, '');
    if (result.status !== 'measured') {
      lines.push(`${result.status}: ${result.error ?? ''}`, '');
      continue;
    }
    lines.push(
      '| reads | without burst req/s (before / after) | during burst req/s | ratio | ≥ 80 % | window s | p99 ms without / during | non-2xx |',
      '|---|---:|---:|---:|:---:|---:|---:|---:|',
    );
    for (const s of result.scenarios) {
      lines.push(
        `| ${s.label} | ${n(s.without.rps)} (${n(s.without.before)} / ${n(s.without.after)}) | ${n(s.during.rps)} | ` +
          `${s.ratio === null ? '?' : `${Math.round(s.ratio * 100)} %`} | ` +
          `${s.ratio === null ? 'n/a' : s.ratio >= READ_RATIO_TARGET ? 'PASS' : 'MISS'} | ` +
          `${s.during.seconds} | ${s.withoutBefore.latencyMs.p99} / ${s.during.latencyMs.p99 ?? '?'} | ` +
          `${s.withoutBefore.non2xx + s.withoutAfter.non2xx + (s.during.non2xx ?? 0)} |`,
      );
    }
    lines.push(
      '',
      '| burst | PUT 200 | PUT/s | PUTs s | received | sessions called back | deliveries/s | drain after last PUT ms | lag p50 ms | lag p99 ms | lag max ms | invalid | dup ids | missing | wrong URL | exactly once |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|',
    );
    for (const { label, burst: b, outbox } of burstsOf(result)) {
      lines.push(
        `| ${label} | ${n(b.accepted)}/${n(b.transitions)} | ${n(b.putRate)} | ${b.putSeconds} | ` +
          `${n(b.received)} | ${n(b.delivered)} | ${n(b.deliveryRate)} | ${n(b.drainAfterLastPutMs)} | ${n(b.lagMs.p50)} | ` +
          `${n(b.lagMs.p99)} | ${n(b.lagMs.max)} | ${b.invalid} | ${b.duplicateIds} | ${b.missing} | ` +
          `${b.wrongUrl} | ${onceAndValid(b, outbox) ? 'yes' : 'NO'} |`,
      );
    }
    const under = result.scenarios.map((s) => s.burst);
    const range = (f) => {
      const values = under.map(f).filter((v) => v !== null && v !== undefined);
      return values.length ? `${n(Math.min(...values))}–${n(Math.max(...values))}` : '?';
    };
    lines.push(
      '',
      `Alone the burst ran at ${n(result.alone.burst.putRate)} PUT/s and ${n(result.alone.burst.deliveryRate)} ` +
        `deliveries/s (lag p50 ${n(result.alone.burst.lagMs.p50)} ms); under the read load at ` +
        `${range((b) => b.putRate)} PUT/s and ${range((b) => b.deliveryRate)} deliveries/s ` +
        `(lag p50 ${range((b) => b.lagMs.p50)} ms).`,
    );
    lines.push(
      '',
      '| CPU (% of one core; 2 cores = 200 %) | service | receiver | burst PUTs | bench (autocannon) | other processes | service peak RSS MB |',
      '|---|---:|---:|---:|---:|---:|---:|',
    );
    const cpuRows = [['burst alone (no reads)', result.alone.window]];
    for (const s of result.scenarios) {
      cpuRows.push(
        [`${s.label}, without burst (before)`, s.withoutBefore],
        [`${s.label}, during burst`, s.during],
        [`${s.label}, without burst (after)`, s.withoutAfter],
      );
    }
    for (const [label, w] of cpuRows) {
      lines.push(
        `| ${label} | ${cpuCell(w.cpuPercent, 'service')} | ${cpuCell(w.cpuPercent, 'receiver')} | ` +
          `${cpuCell(w.cpuPercent, 'burst')} | ${cpuCell(w.cpuPercent, 'loadGenerator')} | ` +
          `${pct(w.otherProcessesCpuPercent)}${busyNote(w)} | ${w.peakRssMb ?? '?'} |`,
      );
    }
    lines.push('');
    for (const note of result.notes ?? []) lines.push(`- ${note}`);
    if (result.notes?.length) lines.push('');
  }
  lines.push('| platform | target | verdict | detail |', '|---|---|:---:|---|');
  for (const v of verdicts) {
    lines.push(`| ${v.platform} | ${v.target} | ${v.verdict} | ${v.detail} |`);
  }
  lines.push(
    '',
    'Lag: receipt at the receiver − answer of the PUT that committed the transition (same clock). ' +
      'Deliveries/s: sessions called back ÷ (last receipt − first PUT). Drain: last receipt − last ' +
      'PUT answer. Outbox: the service’s own callback rows of the burst’s sessions, read from ' +
      'SQLite after the burst (state, attempts; "retried" = more than one attempt).',
  );
  return lines.join('\n');
}
