/** The printed tables, the targets of issue 4 and their PASS/MISS verdicts. */

export const TARGETS = {
  fastifyShareOfRaw: 0.5,
  fastifyP99Ms: 10,
  expressShareOfNest: 0.85,
  peakRssMb: 200,
  largeDatasetShare: 0.8,
  largeDatasetSessions: 1_000_000,
  referenceSessions: 100_000,
};

/** Other processes' CPU (share of one core) above which a measurement is flagged. */
export const BUSY_MACHINE_PERCENT = 10;

const int = (n) => (n === undefined || n === null ? '–' : Math.round(n).toLocaleString('en-US'));
const ms = (n) =>
  n === undefined || n === null ? '–' : Number.isInteger(n) ? String(n) : n.toFixed(2);
const pct = (r) => (r === undefined || r === null ? '–' : `${Math.round(r * 100)}%`);
const mb = (n) => (n ? `${Math.round(n)}` : '–');

function table(header, rows, align) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [
    line(header),
    line(align.map((a) => (a === 'r' ? '---:' : '---'))),
    ...rows.map((row) => line(row)),
  ].join('\n');
}

function outcome(scenario) {
  const m = scenario.service;
  if (!m) return '–';
  let text = `${int(m.non2xx)} / ${int(m.errors + m.timeouts)}`;
  if (m.non2xx > 0 && m.unexpectedStatus === 0) text += ` (${scenario.expectedStatus} expected)`;
  if (m.unexpectedStatus > 0) text += ` (**${int(m.unexpectedStatus)} unexpected status**)`;
  return text;
}

/** The Markdown table of one platform. */
export function platformTable(platform, result) {
  const rows = result.scenarios.map((s) => [
    s.extra ? `${s.label} ¹` : s.label,
    int(s.service?.rps),
    ms(s.service?.latencyMs.p50),
    ms(s.service?.latencyMs.p99),
    int(s.raw?.rps),
    int(s.nest?.rps),
    pct(s.shareOfRaw),
    pct(s.shareOfNest),
    outcome(s),
    mb(s.service?.peakRssMb),
  ]);
  return table(
    [
      `${platform}: scenario`,
      'req/s',
      'p50 ms',
      'p99 ms',
      'raw node:http req/s',
      `bare Nest + ${platform} req/s`,
      'vs raw',
      'vs bare Nest',
      'non-2xx / errors',
      'peak RSS MB',
    ],
    rows,
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  );
}

function describeScenarios(list, fn) {
  return list.map((s) => `${s.label} ${fn(s)}`).join('; ');
}

/** PASS/MISS of every target of issue 4 that this run can judge. */
export function evaluateTargets(run, reference) {
  const verdicts = [];
  const core = (p) => p.scenarios.filter((s) => !s.extra && s.service);

  const fastify = run.platforms.fastify;
  const fastifyName = `Fastify: every scenario ≥ ${pct(TARGETS.fastifyShareOfRaw)} of raw node:http, p99 ≤ ${TARGETS.fastifyP99Ms} ms`;
  if (!fastify) {
    verdicts.push({ target: fastifyName, verdict: 'not run', detail: 'not in --platform' });
  } else if (fastify.status !== 'measured') {
    verdicts.push({ target: fastifyName, verdict: 'NOT TESTABLE', detail: fastify.error });
  } else {
    const list = core(fastify);
    const misses = list.filter(
      (s) =>
        s.shareOfRaw < TARGETS.fastifyShareOfRaw || s.service.latencyMs.p99 > TARGETS.fastifyP99Ms,
    );
    verdicts.push({
      target: fastifyName,
      verdict: misses.length === 0 ? 'PASS' : 'MISS',
      detail: describeScenarios(
        misses.length ? misses : list,
        (s) => `${pct(s.shareOfRaw)}, p99 ${ms(s.service.latencyMs.p99)} ms`,
      ),
    });
  }

  const express = run.platforms.express;
  const expressName = `Express: every scenario ≥ ${pct(TARGETS.expressShareOfNest)} of bare Nest + Express`;
  if (!express) {
    verdicts.push({ target: expressName, verdict: 'not run', detail: 'not in --platform' });
  } else if (express.status !== 'measured') {
    verdicts.push({ target: expressName, verdict: 'NOT TESTABLE', detail: express.error });
  } else {
    const list = core(express);
    const misses = list.filter((s) => s.shareOfNest < TARGETS.expressShareOfNest);
    verdicts.push({
      target: expressName,
      verdict: misses.length === 0 ? 'PASS' : 'MISS',
      detail: describeScenarios(misses.length ? misses : list, (s) => pct(s.shareOfNest)),
    });
  }

  const measured = Object.entries(run.platforms).filter(([, p]) => p.status === 'measured');
  const rssName = `Peak RSS of the service under load ≤ ${TARGETS.peakRssMb} MB`;
  if (measured.length === 0) {
    verdicts.push({ target: rssName, verdict: 'NOT TESTABLE', detail: 'no platform measured' });
  } else {
    const over = measured.filter(([, p]) => p.peakRssMb > TARGETS.peakRssMb);
    verdicts.push({
      target: rssName,
      verdict: over.length === 0 ? 'PASS' : 'MISS',
      detail: measured.map(([name, p]) => `${name} ${mb(p.peakRssMb)} MB`).join(', '),
    });
  }

  const largeName = `Status lookups with ${int(TARGETS.largeDatasetSessions)} sessions ≥ ${pct(TARGETS.largeDatasetShare)} of the throughput with ${int(TARGETS.referenceSessions)}`;
  if (run.options.sessions < TARGETS.largeDatasetSessions) {
    verdicts.push({
      target: largeName,
      verdict: 'n/a',
      detail: `this run has ${int(run.options.sessions)} sessions; run with --sessions ${TARGETS.largeDatasetSessions}`,
    });
  } else if (!reference) {
    verdicts.push({
      target: largeName,
      verdict: 'n/a',
      detail: `no ${int(TARGETS.referenceSessions)}-session result in bench/results.json (run npm run bench first)`,
    });
  } else {
    const comparisons = largeDatasetComparison(run, reference);
    if (comparisons.length === 0) {
      verdicts.push({ target: largeName, verdict: 'n/a', detail: 'no common platform measured' });
    } else {
      const misses = comparisons.filter((c) => c.share < TARGETS.largeDatasetShare);
      verdicts.push({
        target: largeName,
        verdict: misses.length === 0 ? 'PASS' : 'MISS',
        detail: (misses.length ? misses : comparisons)
          .map((c) => `${c.platform} ${c.label} ${pct(c.share)}`)
          .join('; '),
      });
    }
  }
  return verdicts;
}

/**
 * Status scenarios of this (large) run against the same platform and scenario of the reference:
 * `reference` maps a platform to `{ date, result }` (bench/results.json, bySessions["100000"]).
 */
export function largeDatasetComparison(run, reference) {
  const out = [];
  for (const [platform, result] of Object.entries(run.platforms)) {
    const ref = reference[platform]?.result;
    if (result.status !== 'measured' || ref?.status !== 'measured') continue;
    for (const s of result.scenarios) {
      if (!s.id.startsWith('status-') || !s.service) continue;
      const r = ref.scenarios.find((x) => x.id === s.id);
      if (!r?.service) continue;
      out.push({
        platform,
        referenceDate: reference[platform].date,
        id: s.id,
        label: s.label,
        rps: s.service.rps,
        referenceRps: r.service.rps,
        rawShare: s.service.rps / r.service.rps,
        // Machine speed drifts between runs (±30 % seen on this VM, raw baseline included), so
        // the verdict compares each run's share of its own raw node:http baseline.
        share:
          s.raw?.rps && r.raw?.rps
            ? s.service.rps / s.raw.rps / (r.service.rps / r.raw.rps)
            : s.service.rps / r.service.rps,
      });
    }
  }
  return out;
}

export function targetsTable(verdicts) {
  return table(
    ['target (issue 4)', 'result', 'detail'],
    verdicts.map((v) => [v.target, v.verdict, v.detail]),
    ['l', 'l', 'l'],
  );
}

export function largeDatasetTable(comparisons) {
  return table(
    [
      `status lookup with ${int(TARGETS.largeDatasetSessions)} sessions`,
      'req/s',
      `req/s with ${int(TARGETS.referenceSessions)}`,
      'share of req/s',
      'share, each relative to its raw baseline',
    ],
    comparisons.map((c) => [
      `${c.platform}: ${c.label}`,
      int(c.rps),
      `${int(c.referenceRps)} (${c.referenceDate.slice(0, 16).replace('T', ' ')})`,
      pct(c.rawShare),
      pct(c.share),
    ]),
    ['l', 'r', 'r', 'r', 'r'],
  );
}

/** The whole printed report (Markdown, so it can go into the README as it is). */
export function formatReport(run, verdicts, comparisons) {
  const o = run.options;
  const m = run.machine;
  const out = [
    `## Benchmark ${run.date.slice(0, 10)}`,
    '',
    `\`${run.command}\` — ${m.cpuModel} × ${m.cpus}, ${m.memoryGb} GB, ${m.os}, Node.js ${run.node}, ` +
      `autocannon ${run.autocannon} on the same machine; ${int(o.connections)} connections, ` +
      `${o.warmup} s warm-up + ${o.duration} s per scenario and server${o.repeat > 1 ? `, median of ${o.repeat} runs` : ''}; ` +
      `dataset ${int(run.dataset.pairs)} catalog pairs (${int(run.dataset.enabledPairs)} enabled, ` +
      `${run.dataset.countries} countries), ${int(run.dataset.sessions)} payment sessions.`,
    '',
  ];
  for (const [platform, result] of Object.entries(run.platforms)) {
    if (result.status !== 'measured') {
      out.push(`**${platform}: not testable** — ${result.error}`, '');
      continue;
    }
    out.push(platformTable(platform, result), '');
    if (result.baselineDifferences.length === 0) {
      out.push(
        `Baselines serve byte-identical bodies with the same status and headers as the service ` +
          '(Date, Connection and Keep-Alive come from Node; X-Request-Id is a fresh UUID in all ' +
          'three; the baselines replay X-RateLimit-Remaining as captured).',
        '',
      );
    } else {
      out.push(`**Baseline differences** (${platform}):`);
      for (const d of result.baselineDifferences) out.push(`- ${d}`);
      out.push('');
    }
  }
  if (Object.values(run.platforms).some((p) => p.scenarios?.some((s) => s.extra))) {
    out.push(
      '¹ Extra scenario, not part of the targets: PENDING lookups spread over many keys, so the ' +
        'database does real index lookups; used for the 1,000,000-session comparison.',
      '',
    );
  }
  const busy = [];
  for (const [platform, result] of Object.entries(run.platforms)) {
    for (const s of result.scenarios ?? []) {
      for (const server of ['service', 'raw', 'nest']) {
        const m = s[server];
        const other = Math.max(m?.otherProcessesCpuPercent ?? 0, m?.stealPercent ?? 0);
        if (other > BUSY_MACHINE_PERCENT) busy.push({ platform, s, server, other });
      }
    }
  }
  if (busy.length > 0) {
    const worst = busy.reduce((a, b) => (b.other > a.other ? b : a));
    out.push(
      `**Warning: the machine was not quiet.** In ${busy.length} measurement(s) other processes ` +
        `(or the host) used more than ${BUSY_MACHINE_PERCENT}% of a core, up to ${worst.other}% ` +
        `(${worst.platform}, ${worst.s.label}, ${worst.server}). Those numbers and the ratios built ` +
        'on them are not reliable; run again on an idle machine.',
      '',
    );
  }
  out.push(
    'req/s: mean over the measured seconds; p50/p99: autocannon latency percentiles; vs raw / vs ' +
      "bare Nest: the service's req/s as a share of the baseline's, measured right after it; " +
      'non-2xx / errors: responses other than 2xx (the 404 scenario expects them) / socket errors ' +
      'and timeouts; peak RSS: the service process, sampled every 200 ms during warm-up and run.',
    '',
  );
  if (comparisons.length > 0) {
    out.push(largeDatasetTable(comparisons), '');
  }
  out.push(targetsTable(verdicts));
  return out.join('\n');
}
