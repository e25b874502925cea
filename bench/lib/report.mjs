/**
 * The printed tables, the targets (throughput, latency, memory, and PostgreSQL against SQLite) and their
 * PASS/MISS verdicts.
 */

export const TARGETS = {
  fastifyShareOfRaw: 0.5,
  fastifyP99Ms: 10,
  expressShareOfNest: 0.85,
  peakRssMb: 160,
  largeDatasetShare: 0.8,
  largeDatasetSessions: 1_000_000,
  referenceSessions: 100_000,
  postgresShareOfSqlite: 0.6,
  postgresScenario: 'status-pending',
};

export const DATABASE_LABELS = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

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

/** The Markdown table of one platform (on one database: `title` names both). */
export function platformTable(platform, result, title = platform) {
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
      `${title}: scenario`,
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
      rpsWithTrouble(b),
      ms(b?.latencyMs.p99),
      a && b ? pct(b.rps / a.rps) : '–',
      int(s.raw?.rps),
      `${mb(a?.peakRssMb)} / ${mb(b?.peakRssMb)}`,
      `${a?.serverCpuPercent ?? '?'} / ${b?.serverCpuPercent ?? '?'} + ${b?.databaseCpuPercent ?? '?'}`,
    ];
  });
  return table(
    [
      `${platform}: scenario`,
      'SQLite req/s',
      'SQLite p99 ms',
      'PostgreSQL req/s',
      'PostgreSQL p99 ms',
      'PostgreSQL / SQLite',
      'raw node:http req/s',
      'peak RSS MB SQLite / PostgreSQL',
      'CPU % SQLite / PostgreSQL + its server',
    ],
    rows,
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  );
}

function describeScenarios(list, fn) {
  return list.map((s) => `${s.label} ${fn(s)}`).join('; ');
}

/**
 * PASS/MISS of every target that this run can judge, on one database: `run.platforms`
 * holds that database's results. With `database`, target names say which database they judge.
 */
export function evaluateTargets(run, reference, { database } = {}) {
  const verdicts = [];
  const named = (text) => (database ? `${DATABASE_LABELS[database]}: ${text}` : text);
  const rerun =
    database && database !== 'sqlite' ? `npm run bench -- --database ${database}` : 'npm run bench';
  const core = (p) => p.scenarios.filter((s) => !s.extra && s.service);

  const fastify = run.platforms.fastify;
  const fastifyName = named(
    `Fastify: every scenario ≥ ${pct(TARGETS.fastifyShareOfRaw)} of raw node:http, p99 ≤ ${TARGETS.fastifyP99Ms} ms`,
  );
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
  const expressName = named(
    `Express: every scenario ≥ ${pct(TARGETS.expressShareOfNest)} of bare Nest + Express`,
  );
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
  const rssName = named(`Peak RSS of the service under load ≤ ${TARGETS.peakRssMb} MB`);
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

  const largeName = named(
    `Status lookups with ${int(TARGETS.largeDatasetSessions)} sessions ≥ ${pct(TARGETS.largeDatasetShare)} of the throughput with ${int(TARGETS.referenceSessions)}`,
  );
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
      detail: `no ${int(TARGETS.referenceSessions)}-session result in bench/results.json (run ${rerun} first)`,
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
 * PostgreSQL against SQLite in the same run: the status lookup of one PENDING key (it reaches the
 * database on every request) keeps at least TARGETS.postgresShareOfSqlite of SQLite's req/s.
 */
export function evaluateCrossDatabaseTarget(run) {
  const target = `PostgreSQL: status, PENDING key ≥ ${pct(TARGETS.postgresShareOfSqlite)} of the SQLite req/s in the same run`;
  const sqlite = run.databases.sqlite?.platforms;
  const postgres = run.databases.postgres?.platforms;
  if (!postgres) return { target, verdict: 'not run', detail: 'no --database postgres' };
  if (!sqlite) {
    return { target, verdict: 'n/a', detail: 'SQLite not measured in this run (postgres-only)' };
  }
  const found = [];
  const untestable = [];
  for (const [platform, p] of Object.entries(postgres)) {
    const q = sqlite[platform];
    if (p.status !== 'measured' || q?.status !== 'measured') {
      untestable.push(`${platform}: ${p.status !== 'measured' ? p.error : q?.error}`);
      continue;
    }
    const a = q.scenarios.find((s) => s.id === TARGETS.postgresScenario)?.service;
    const b = p.scenarios.find((s) => s.id === TARGETS.postgresScenario)?.service;
    if (a && b) found.push({ platform, share: b.rps / a.rps, sqlite: a.rps, postgres: b.rps });
  }
  if (untestable.length) return { target, verdict: 'NOT TESTABLE', detail: untestable.join('; ') };
  if (found.length === 0) {
    return { target, verdict: 'n/a', detail: `scenario ${TARGETS.postgresScenario} not run` };
  }
  return {
    target,
    verdict: found.every((f) => f.share >= TARGETS.postgresShareOfSqlite) ? 'PASS' : 'MISS',
    detail: found
      .map((f) => `${f.platform} ${pct(f.share)} (${int(f.postgres)} vs ${int(f.sqlite)} req/s)`)
      .join('; '),
  };
}

/**
 * Status scenarios of this (large) run against the same platform and scenario of the reference:
 * `reference` maps a platform to `{ date, result }` (bench/results.json,
 * byDatabase.<database>["100000"]).
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
    ['target', 'result', 'detail'],
    verdicts.map((v) => [v.target, v.verdict, v.detail]),
    ['l', 'l', 'l'],
  );
}

export function largeDatasetTable(comparisons, database) {
  const on = database ? ` on ${DATABASE_LABELS[database]}` : '';
  return table(
    [
      `status lookup with ${int(TARGETS.largeDatasetSessions)} sessions${on}`,
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
  'Baselines serve byte-identical bodies with the same status and headers as the service ' +
  '(Date, Connection and Keep-Alive come from Node; X-Request-Id is a fresh UUID in all ' +
  'three; the baselines replay X-RateLimit-Remaining as captured).';

const COMPARISON_NOTE =
  'Both databases in one run: per scenario the service on SQLite, then on PostgreSQL (both ' +
  'started from the same build with the same settings), then the baselines, so ratios compare ' +
  'the same machine state. PostgreSQL / SQLite: req/s ratio. CPU: share of one core of the ' +
  "service process, and for PostgreSQL also of the database server's processes (postmaster and " +
  'backends). Per-database details follow.';

/** The whole printed report (Markdown, so it can go into the README as it is). */
export function formatReport(run, verdicts) {
  const o = run.options;
  const m = run.machine;
  const databases = Object.keys(run.databases);
  // A run of SQLite alone prints what it printed before PostgreSQL existed.
  const labelled = !(databases.length === 1 && databases[0] === 'sqlite');
  const dataset = run.databases[databases[0]].dataset;
  const out = [
    `## Benchmark ${run.date.slice(0, 10)}`,
    '',
    `\`${run.command}\` — ${m.cpuModel} × ${m.cpus}, ${m.memoryGb} GB, ${m.os}, Node.js ${run.node}, ` +
      `autocannon ${run.autocannon} on the same machine; ${int(o.connections)} connections, ` +
      `${o.warmup} s warm-up + ${o.duration} s per scenario and server${o.repeat > 1 ? `, median of ${o.repeat} runs` : ''}; ` +
      `dataset ${int(dataset.pairs)} catalog pairs (${int(dataset.enabledPairs)} enabled, ` +
      `${dataset.countries} countries), ${int(dataset.sessions)} payment sessions.`,
    '',
  ];
  if (labelled) out.push(databasesParagraph(run), '');
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
      const title = labelled ? `${platform} on ${DATABASE_LABELS[database]}` : platform;
      if (result.status !== 'measured') {
        out.push(`**${title}: not testable** — ${result.error}`, '');
        continue;
      }
      out.push(platformTable(platform, result, title), '');
      const label = DATABASE_LABELS[database];
      if (result.databaseDifferences) {
        // Baselines replay the first database's answers; this one is compared with those.
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
      } else if (result.baselineDifferences.length === 0) {
        out.push(BASELINE_NOTE, '');
      } else {
        out.push(`**Baseline differences** (${title}):`);
        for (const d of result.baselineDifferences) out.push(`- ${d}`);
        out.push('');
      }
    }
  }
  const allPlatforms = databases.flatMap((database) =>
    Object.entries(run.databases[database].platforms).map(([platform, result]) => ({
      database,
      platform,
      result,
    })),
  );
  if (allPlatforms.some(({ result }) => result.scenarios?.some((s) => s.extra))) {
    out.push(
      '¹ Extra scenario, not part of the targets: PENDING lookups spread over many keys, so the ' +
        'database does real index lookups; used for the 1,000,000-session comparison.',
      '',
    );
  }
  const busy = new Map();
  for (const { database, platform, result } of allPlatforms) {
    for (const s of result.scenarios ?? []) {
      for (const server of ['service', 'raw', 'nest']) {
        const m = s[server];
        const other = Math.max(m?.otherProcessesCpuPercent ?? 0, m?.stealPercent ?? 0);
        // The baselines appear under every database: count each measurement once.
        const name = server === 'service' && labelled ? DATABASE_LABELS[database] : server;
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
  out.push(
    'req/s: mean over the measured seconds; p50/p99: autocannon latency percentiles; vs raw / vs ' +
      "bare Nest: the service's req/s as a share of the baseline's, measured right after it; " +
      'non-2xx / errors: responses other than 2xx (the 404 scenario expects them) / socket errors ' +
      'and timeouts; peak RSS: the service process, sampled every 200 ms during warm-up and run' +
      (run.databases.postgres ? " (PostgreSQL's own processes are not included)." : '.'),
    '',
  );
  for (const database of databases) {
    const comparisons = run.databases[database].largeDataset ?? [];
    if (comparisons.length > 0) {
      out.push(largeDatasetTable(comparisons, labelled ? database : undefined), '');
    }
  }
  out.push(targetsTable(verdicts));
  return out.join('\n');
}
