/**
 * The printed report (Markdown), the targets and their PASS/FAIL verdicts. The targets are judged
 * on the server's CPU time per answered request against a floor measured in the same run, and on
 * latency, memory and the large dataset's throughput; --compare adds this build against the ref.
 */

export const TARGETS = {
  /** floor = min(bare Nest CPU/req, rawFactor × raw node:http CPU/req), per scenario. */
  rawFactor: 1.5,
  distinctScenario: 'status-distinct',
  /** Service CPU/req at most this many floors on distinct keys, per database. */
  distinctFloorX: { sqlite: 2.5, postgres: 3 },
  distinctP99Ms: 10,
  distinctConnections: 50,
  /** One repeated key and the catalog: at most this many floors. */
  floorX: 1.6,
  floorScenarios: ['status-successful', 'catalog-default', 'catalog-country'],
  peakRssMb: 160,
  largeDatasetShare: 0.8,
  largeDatasetSessions: 1_000_000,
  referenceSessions: 100_000,
  /** The log level the targets are set at. */
  logLevel: 'info',
  /** --compare: this build at most 5 % fewer req/s and 5 % more CPU per request than the ref. */
  compareRps: 0.95,
  compareCpu: 1.05,
};

export const DATABASE_LABELS = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

/** Other processes' CPU (share of one core) above which a measurement is flagged. */
export const BUSY_MACHINE_PERCENT = 10;

const int = (n) => (n === undefined || n === null ? '–' : Math.round(n).toLocaleString('en-US'));
const ms = (n) =>
  n === undefined || n === null ? '–' : Number.isInteger(n) ? String(n) : n.toFixed(2);
const pct = (r) => (r === undefined || r === null ? '–' : `${Math.round(r * 100)}%`);
const mb = (n) => (n ? `${Math.round(n)}` : '–');
const micros = (n) => (n === undefined || n === null ? '–' : n < 100 ? n.toFixed(1) : int(n));
const times = (r) => (r === undefined || r === null ? '–' : `${r.toFixed(2)}×`);
const signedPct = (r) => {
  if (r === undefined || r === null) return '–';
  const d = Math.round((r - 1) * 1000) / 10;
  return `${d > 0 ? '+' : ''}${d}%`;
};

/** Half the range of the repeats relative to the median, e.g. "±3%" (nothing for one run). */
function spread(m, field) {
  const r = m?.spread?.[field];
  const mid = field === 'rps' ? m.rps : m.cpuMicrosPerRequest;
  if (!r || !mid) return '';
  return ` ±${Math.round(((r[1] - r[0]) / 2 / mid) * 100)}%`;
}

function table(header, rows, align) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [
    line(header),
    line(align.map((a) => (a === 'r' ? '---:' : '---'))),
    ...rows.map((row) => line(row)),
  ].join('\n');
}

/** The CPU floor of a scenario and the service's multiple of it. */
export function floorOf(service, raw, nest) {
  const candidates = [nest?.cpuMicrosPerRequest];
  if (raw?.cpuMicrosPerRequest !== undefined) {
    candidates.push(TARGETS.rawFactor * raw.cpuMicrosPerRequest);
  }
  const known = candidates.filter((c) => c !== undefined && c !== null);
  if (known.length === 0) return { floorMicros: undefined, floorRatio: undefined };
  const floorMicros = Math.round(Math.min(...known) * 10) / 10;
  const cpu = service?.cpuMicrosPerRequest;
  return {
    floorMicros,
    floorRatio:
      cpu === undefined || cpu === null ? undefined : Math.round((cpu / floorMicros) * 100) / 100,
  };
}

/** How the answers went: non-2xx / errors, or for a mix the share of each status. */
function outcome(scenario) {
  const m = scenario.service;
  if (!m) return '–';
  const trouble = m.unexpectedStatus > 0 ? ` (**${int(m.unexpectedStatus)} unexpected**)` : '';
  if (m.statusesAsked) {
    const total = Object.values(m.statusCodes).reduce((a, b) => a + b, 0) || 1;
    const shares = Object.entries(m.statusCodes)
      .map(([code, n]) => `${code} ${((n / total) * 100).toFixed(1)}%`)
      .join(', ');
    return `${shares} / ${int(m.errors + m.timeouts)}${trouble}`;
  }
  let text = `${int(m.non2xx)} / ${int(m.errors + m.timeouts)}`;
  if (m.non2xx > 0 && m.unexpectedStatus === 0) text += ` (${scenario.expectedStatus} expected)`;
  return text + trouble;
}

/** The Markdown table of one platform on one database (`title` names both). */
export function platformTable(platform, result, title = platform) {
  const rows = result.scenarios.map((s) => [
    s.extra ? `${s.label} ¹` : s.label,
    `${int(s.service?.rps)}${spread(s.service, 'rps')}`,
    ms(s.service?.latencyMs.p50),
    ms(s.service?.latencyMs.p99),
    `${micros(s.service?.cpuMicrosPerRequest)}${spread(s.service, 'cpuMicrosPerRequest')}` +
      (s.service?.databaseCpuMicrosPerRequest !== undefined
        ? ` + ${micros(s.service.databaseCpuMicrosPerRequest)}`
        : ''),
    int(s.raw?.rps),
    micros(s.raw?.cpuMicrosPerRequest),
    int(s.nest?.rps),
    micros(s.nest?.cpuMicrosPerRequest),
    micros(s.floorMicros),
    times(s.floorRatio),
    outcome(s),
    mb(s.service?.peakRssMb),
  ]);
  return table(
    [
      `${title}: scenario`,
      'req/s',
      'p50 ms',
      'p99 ms',
      'CPU µs/req',
      'raw req/s',
      'raw µs/req',
      'bare Nest req/s',
      'bare Nest µs/req',
      'floor µs/req',
      '× floor',
      'non-2xx (or statuses) / errors',
      'peak RSS MB',
    ],
    rows,
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  );
}

/** Req/s, flagged when the run had unexpected statuses or socket errors. */
function rpsWithTrouble(m) {
  if (!m) return '–';
  const trouble = [];
  if (m.unexpectedStatus > 0) trouble.push(`${int(m.unexpectedStatus)} unexpected status`);
  if (m.errors + m.timeouts > 0) trouble.push(`${int(m.errors + m.timeouts)} errors`);
  return trouble.length ? `${int(m.rps)} (**${trouble.join(', ')}**)` : int(m.rps);
}

/** SQLite and PostgreSQL side by side, for one platform of a run that measured both. */
export function comparisonTable(platform, sqlite, postgres) {
  const rows = sqlite.scenarios.map((s) => {
    const p = postgres.scenarios.find((x) => x.id === s.id);
    const a = s.service;
    const b = p?.service;
    return [
      s.extra ? `${s.label} ¹` : s.label,
      rpsWithTrouble(a),
      ms(a?.latencyMs.p99),
      micros(a?.cpuMicrosPerRequest),
      rpsWithTrouble(b),
      ms(b?.latencyMs.p99),
      `${micros(b?.cpuMicrosPerRequest)} + ${micros(b?.databaseCpuMicrosPerRequest)}`,
      a && b ? pct(b.rps / a.rps) : '–',
      `${mb(a?.peakRssMb)} / ${mb(b?.peakRssMb)}`,
    ];
  });
  return table(
    [
      `${platform}: scenario`,
      'SQLite req/s',
      'p99 ms',
      'CPU µs/req',
      'PostgreSQL req/s',
      'p99 ms',
      'CPU µs/req service + PostgreSQL',
      'PostgreSQL / SQLite req/s',
      'peak RSS MB SQLite / PostgreSQL',
    ],
    rows,
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  );
}

/* ------------------------------------------------------------------------------------------ */
/* Targets                                                                                     */

const verdict = (ok) => (ok ? 'PASS' : 'FAIL');

/**
 * PASS/FAIL of every target this run can judge, on one database (`run.platforms`: that
 * database's results per platform). `reference`: the last 100,000-session results of this
 * database, per platform (for a 1,000,000-session run).
 */
export function evaluateTargets(run, reference, { database }) {
  const verdicts = [];
  const o = run.options;
  const atLevel =
    o.logLevel === TARGETS.logLevel
      ? ''
      : ` (run at --log-level ${o.logLevel}; the targets are set at ${TARGETS.logLevel})`;
  const dbLabel = DATABASE_LABELS[database];
  const distinctX = TARGETS.distinctFloorX[database];
  const rerun = database === 'sqlite' ? 'npm run bench' : `npm run bench -- --database ${database}`;
  for (const platform of o.platforms) {
    const result = run.platforms[platform];
    const named = (text) => `${platform}, ${dbLabel}: ${text}`;
    const push = (target, v, detail) =>
      verdicts.push({
        target: named(target),
        platform,
        database,
        verdict: v,
        detail: v === 'PASS' || v === 'FAIL' ? detail + atLevel : detail,
      });
    const distinctName = `distinct keys, CPU/req ≤ ${distinctX} × floor, p99 ≤ ${TARGETS.distinctP99Ms} ms`;
    const floorName = `SUCCESSFUL key and catalog, CPU/req ≤ ${TARGETS.floorX} × floor`;
    const rssName = `peak RSS ≤ ${TARGETS.peakRssMb} MB in every scenario`;
    const largeName = `distinct keys with ${int(TARGETS.largeDatasetSessions)} sessions ≥ ${pct(TARGETS.largeDatasetShare)} of the req/s with ${int(TARGETS.referenceSessions)}`;
    if (!result || result.status !== 'measured') {
      const why = result?.error ?? 'not measured';
      for (const name of [distinctName, floorName, rssName]) push(name, 'NOT TESTABLE', why);
      continue;
    }
    const byId = new Map(result.scenarios.map((s) => [s.id, s]));

    const d = byId.get(TARGETS.distinctScenario);
    if (!d) {
      push(distinctName, 'not run', `scenario ${TARGETS.distinctScenario} not in --scenarios`);
    } else {
      const p99 = d.service?.latencyMs.p99;
      const okCpu = d.floorRatio !== undefined && d.floorRatio <= distinctX;
      const okP99 = p99 !== undefined && p99 <= TARGETS.distinctP99Ms;
      const atConnections =
        o.connections === TARGETS.distinctConnections
          ? ''
          : ` (at ${o.connections} connections; the p99 target is set at ${TARGETS.distinctConnections})`;
      push(
        distinctName,
        verdict(okCpu && okP99),
        `${micros(d.service?.cpuMicrosPerRequest)} µs/req = ${times(d.floorRatio)} floor ` +
          `(${micros(d.floorMicros)} µs), p99 ${ms(p99)} ms${atConnections}`,
      );
    }

    const listed = TARGETS.floorScenarios.map((id) => byId.get(id)).filter(Boolean);
    if (listed.length === 0) {
      push(floorName, 'not run', `none of ${TARGETS.floorScenarios.join(', ')} in --scenarios`);
    } else {
      const ok = listed.every((s) => s.floorRatio !== undefined && s.floorRatio <= TARGETS.floorX);
      push(floorName, verdict(ok), listed.map((s) => `${s.id} ${times(s.floorRatio)}`).join(', '));
    }

    const rss = result.scenarios.map((s) => s.service?.peakRssMb ?? 0);
    const worst = result.scenarios.reduce((a, s) =>
      (s.service?.peakRssMb ?? 0) > (a.service?.peakRssMb ?? 0) ? s : a,
    );
    push(
      rssName,
      verdict(Math.max(...rss) <= TARGETS.peakRssMb),
      `highest ${mb(worst.service?.peakRssMb)} MB (${worst.id})`,
    );

    if (o.sessions < TARGETS.largeDatasetSessions) {
      push(largeName, 'n/a', `this run has ${int(o.sessions)} sessions`);
    } else if (!d) {
      push(largeName, 'not run', `scenario ${TARGETS.distinctScenario} not in --scenarios`);
    } else {
      const c = largeDatasetComparison({ platforms: { [platform]: result } }, reference).find(
        (x) => x.id === TARGETS.distinctScenario,
      );
      if (!c) {
        push(
          largeName,
          'n/a',
          `no ${int(TARGETS.referenceSessions)}-session result with ${TARGETS.distinctScenario} for ${platform} in bench/results.json (run ${rerun} first)`,
        );
      } else {
        push(
          largeName,
          verdict(c.share >= TARGETS.largeDatasetShare),
          `${pct(c.share)} relative to each run's raw baseline (${int(c.rps)} vs ${int(c.referenceRps)} req/s, ${pct(c.rawShare)} plain, reference ${c.referenceDate.slice(0, 16).replace('T', ' ')})`,
        );
      }
    }
  }
  return verdicts;
}

/**
 * Status scenarios of this (large) run against the same platform and scenario of the reference:
 * `reference` maps a platform to `{ date, result }` (bench/results.json, runs of 100,000 sessions).
 */
export function largeDatasetComparison(run, reference) {
  const out = [];
  for (const [platform, result] of Object.entries(run.platforms)) {
    const ref = reference?.[platform]?.result;
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
    ['target', 'result', 'detail'],
    verdicts.map((v) => [v.target, v.verdict, v.detail]),
    ['l', 'l', 'l'],
  );
}

export function largeDatasetTable(comparisons, database) {
  return table(
    [
      `status lookup with ${int(TARGETS.largeDatasetSessions)} sessions on ${DATABASE_LABELS[database]}`,
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

/* ------------------------------------------------------------------------------------------ */
/* --compare                                                                                   */

/** This build against the ref, per scenario, on one platform and database. */
export function compareRows(result) {
  return result.scenarios
    .filter((s) => s.service && s.ref)
    .map((s) => {
      const rpsRatio = s.service.rps / s.ref.rps;
      const cpuRatio =
        s.service.cpuMicrosPerRequest && s.ref.cpuMicrosPerRequest
          ? s.service.cpuMicrosPerRequest / s.ref.cpuMicrosPerRequest
          : undefined;
      const ok =
        rpsRatio >= TARGETS.compareRps && cpuRatio !== undefined && cpuRatio <= TARGETS.compareCpu;
      return { id: s.id, label: s.label, this: s.service, ref: s.ref, rpsRatio, cpuRatio, ok };
    });
}

export function compareTable(title, rows) {
  return table(
    [
      `${title}: scenario`,
      'this req/s',
      'ref req/s',
      'this / ref',
      'this CPU µs/req',
      'ref CPU µs/req',
      'this / ref',
      'result',
    ],
    rows.map((r) => [
      r.label,
      `${int(r.this.rps)}${spread(r.this, 'rps')}`,
      `${int(r.ref.rps)}${spread(r.ref, 'rps')}`,
      `${pct(r.rpsRatio)} (${signedPct(r.rpsRatio)})`,
      `${micros(r.this.cpuMicrosPerRequest)}${spread(r.this, 'cpuMicrosPerRequest')}`,
      `${micros(r.ref.cpuMicrosPerRequest)}${spread(r.ref, 'cpuMicrosPerRequest')}`,
      `${pct(r.cpuRatio)} (${signedPct(r.cpuRatio)})`,
      verdict(r.ok),
    ]),
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
  );
}

/* ------------------------------------------------------------------------------------------ */

const seconds = (n) => (n === undefined || n === null ? '–' : `${n} s`);

/** How each database was loaded and set up (runs that are not SQLite alone). */
function databasesParagraph(run) {
  const parts = [];
  const sqlite = run.databases.sqlite?.dataset;
  if (sqlite) {
    parts.push(
      `SQLite loaded in ${seconds(sqlite.loadSeconds)} (schema and merchant through the seed ` +
        `script ${seconds(sqlite.seedSeconds)}, rows and ANALYZE ` +
        `${seconds(Math.round((sqlite.loadSeconds - sqlite.seedSeconds) * 10) / 10)})`,
    );
  }
  const postgres = run.databases.postgres?.dataset;
  if (postgres) {
    const pg = run.postgres ?? {};
    const settings = Object.entries(pg.settings ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(', ');
    parts.push(
      `PostgreSQL ${pg.version ?? ''} loaded in ${seconds(postgres.loadSeconds)} (schema and ` +
        `merchant through the seed script ${seconds(postgres.seedSeconds)}, COPY ` +
        `${seconds(postgres.copySeconds)}, VACUUM (ANALYZE) and CHECKPOINT ` +
        `${seconds(postgres.vacuumAnalyzeSeconds)}; ${int(postgres.databaseMb)} MB). PostgreSQL ` +
        `on loopback, ${pg.poolSize} pooled connections per service, ${settings}; fsync off ` +
        '(throwaway cluster: the measured requests only read)',
    );
  }
  parts.push(
    run.options.redis
      ? 'rate-limit counters in Redis (--redis) on every database'
      : 'rate-limit counters in each service process (no Redis) on every database',
  );
  return `${parts.join('. ')}.`;
}

const BASELINE_NOTE =
  'Baselines serve byte-identical bodies with the same status and headers as the service for ' +
  'every captured answer (Date, Connection and Keep-Alive come from Node; X-Request-Id is a ' +
  'fresh UUID in all three; the baselines replay X-RateLimit-Remaining as captured). For keys ' +
  'they were not shown (random PENDING keys, distinct keys) they answer the captured answer of ' +
  'a key of the same status (SUCCESSFUL, FAILED, PENDING, NOT_COMPLETED, or the 404 of an ' +
  'unknown key).';

const COMPARISON_NOTE =
  'Both databases in one run: per scenario the service on SQLite, then on PostgreSQL (both ' +
  'started from the same build with the same settings), then the baselines. PostgreSQL / ' +
  "SQLite: req/s ratio. CPU on PostgreSQL: the service process, + the database server's " +
  'processes (postmaster and backends) per answered request; the targets judge the service ' +
  'process. Per-database details follow.';

const FLOOR_NOTE =
  'CPU µs/req: utime + stime of the server process (and its children, if any) over the ' +
  'measured window, per answered request (on PostgreSQL, + the database server per request). ' +
  `floor = min(bare Nest CPU/req, ${TARGETS.rawFactor} × raw CPU/req), per scenario, from the ` +
  'same run; × floor: the service against it. p50/p99: autocannon latency percentiles. peak ' +
  'RSS: VmHWM of the service over warm-up and measurement. ± (with --repeat): half the range ' +
  'of the repeats, relative to the median.';

function machineLine(run) {
  const m = run.machine;
  const la = (l) => (l ? l.map((n) => n.toFixed(2)).join(' / ') : '?');
  return (
    `${m.cpuModel}, nproc ${m.cpus}, ${m.memoryGb} GB, ${m.os}; load average ${la(m.loadAverage)} ` +
    `at the start, ${la(run.loadAverageAtEnd)} at the end`
  );
}

/** The whole printed report (Markdown, so it can go into the README as it is). */
export function formatReport(run, verdicts) {
  const o = run.options;
  const databases = Object.keys(run.databases);
  const dataset = run.databases[databases[0]].dataset;
  const compare = run.compare;
  const out = [
    `## Benchmark ${run.date.slice(0, 10)}${o.quick ? ' (quick run: short, noisy, not for decisions)' : ''}`,
    '',
    `\`${run.command}\` — ${machineLine(run)}; Node.js ${run.node}, autocannon ${run.autocannon} ` +
      `on the same machine; ${int(o.connections)} connections, ${o.warmup} s warm-up + ` +
      `${o.duration} s per scenario and server${o.repeat > 1 ? `, median of ${o.repeat} runs` : ''}; ` +
      `LOG_LEVEL=${o.logLevel}; dataset ${int(dataset.pairs)} catalog pairs (${int(dataset.enabledPairs)} ` +
      `enabled, ${dataset.countries} countries), ${int(dataset.sessions)} payment sessions; ` +
      `this build: ${run.commit ? run.commit.slice(0, 12) : 'unknown commit'}${run.dirty ? ' with uncommitted changes' : ''}.`,
    '',
  ];
  if (run.distinct) {
    const mix = Object.entries(run.distinct.mix)
      .map(([cls, share]) => `${cls} ${Math.round(share * 1000) / 10}%`)
      .join(', ');
    out.push(
      `Distinct keys: ${int(run.distinct.keys)} keys (${mix}), each asked twice, in blocks of ` +
        `${int(run.distinct.blockKeys)} keys.`,
      '',
    );
  }
  out.push(databasesParagraph(run), '');
  if (run.databases.sqlite && run.databases.postgres) {
    for (const platform of o.platforms) {
      const a = run.databases.sqlite.platforms[platform];
      const b = run.databases.postgres.platforms[platform];
      if (a?.status === 'measured' && b?.status === 'measured') {
        out.push(comparisonTable(platform, a, b), '');
      }
    }
    out.push(COMPARISON_NOTE, '');
  }
  for (const database of databases) {
    for (const [platform, result] of Object.entries(run.databases[database].platforms)) {
      const title = `${platform} on ${DATABASE_LABELS[database]}`;
      if (result.status !== 'measured') {
        out.push(`**${title}: not testable** — ${result.error}`, '');
        continue;
      }
      out.push(platformTable(platform, result, title), '');
      const label = DATABASE_LABELS[database];
      if (result.databaseDifferences) {
        const reference = DATABASE_LABELS[result.databaseReference];
        if (result.databaseDifferences.length === 0) {
          out.push(
            `On ${label} the service answers byte-identical bodies with the same status and ` +
              `headers as on ${reference}.`,
            '',
          );
        } else {
          out.push(`**${label} answers differently from ${reference}** (${platform}):`);
          for (const d of result.databaseDifferences) out.push(`- ${d}`);
          out.push('');
        }
      } else if (result.baselineDifferences.length > 0) {
        out.push(`**Baseline differences** (${title}):`);
        for (const d of result.baselineDifferences) out.push(`- ${d}`);
        out.push('');
      }
    }
  }
  out.push(BASELINE_NOTE, '', FLOOR_NOTE, '');
  const allPlatforms = databases.flatMap((database) =>
    Object.entries(run.databases[database].platforms).map(([platform, result]) => ({
      database,
      platform,
      result,
    })),
  );
  if (allPlatforms.some(({ result }) => result.scenarios?.some((s) => s.extra))) {
    out.push(
      '¹ Extra scenario, not part of the targets: PENDING lookups spread over many keys.',
      '',
    );
  }
  const busy = new Map();
  for (const { database, platform, result } of allPlatforms) {
    for (const s of result.scenarios ?? []) {
      for (const server of ['service', 'ref', 'raw', 'nest']) {
        const m = s[server];
        const other = Math.max(m?.otherProcessesCpuPercent ?? 0, m?.stealPercent ?? 0);
        // The baselines appear under every database: count each measurement once.
        const name = server === 'service' || server === 'ref' ? `${server} ${database}` : server;
        const key = `${platform} ${s.id} ${name}`;
        if (other > BUSY_MACHINE_PERCENT) busy.set(key, { platform, s, server: name, other });
      }
    }
  }
  if (busy.size > 0) {
    const worst = [...busy.values()].reduce((a, b) => (b.other > a.other ? b : a));
    out.push(
      `**Warning: the machine was not quiet.** In ${busy.size} measurement(s) other processes ` +
        `(or the host) used more than ${BUSY_MACHINE_PERCENT}% of a core, up to ${worst.other}% ` +
        `(${worst.platform}, ${worst.s.label}, ${worst.server}). Those numbers and the ratios built ` +
        'on them are not reliable; run again on an idle machine.',
      '',
    );
  }
  for (const database of databases) {
    const comparisons = run.databases[database].largeDataset ?? [];
    if (comparisons.length > 0) out.push(largeDatasetTable(comparisons, database), '');
  }
  if (compare) {
    out.push(
      `### This build against ${compare.ref} (${compare.commit.slice(0, 12)})`,
      '',
      `Measured alternately, this then ref, ${o.repeat} time(s) per scenario; the same dataset ` +
        `and settings (the ref reads the database this build's seed script made; ` +
        `${compare.migrationDifferences.length === 0 ? 'both have the same migrations' : `**migrations differ: ${compare.migrationDifferences.join('; ')}**`}). ` +
        `The ref ran with ${compare.modules}, Node flags ${compare.nodeFlags.join(' ')}` +
        `${compare.nodeFlags.join(' ') === run.nodeFlags.join(' ') ? ' (as this build)' : ` (this build: ${run.nodeFlags.join(' ')})`}. ` +
        `Target: at most ${pct(1 - TARGETS.compareRps)} fewer req/s and at most ` +
        `${pct(TARGETS.compareCpu - 1)} more CPU µs per request than the ref.`,
      '',
    );
    for (const database of databases) {
      for (const [platform, result] of Object.entries(run.databases[database].platforms)) {
        if (result.status !== 'measured') continue;
        const title = `${platform} on ${DATABASE_LABELS[database]}`;
        if (result.refStatus && result.refStatus !== 'measured') {
          out.push(`**${title}: ref not measured** — ${result.refError}`, '');
          continue;
        }
        out.push(compareTable(title, compareRows(result)), '');
        if (result.refDifferences?.length) {
          out.push(`The ref answers differently (${title}):`);
          for (const d of result.refDifferences) out.push(`- ${d}`);
          out.push('');
        }
      }
    }
  }
  out.push(targetsTable(verdicts));
  return out.join('\n');
}
