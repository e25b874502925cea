/**
 * The printed report (Markdown), the targets and their verdicts, and bench/results.json. Results
 * are keyed `<platform> <scenario> <server>`: server is `service:<database>:<this|ref>`, `raw`,
 * `bare-nest` or `card-floor`; the PostgreSQL writes run on two instances, platform
 * `express+fastify`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { BUSY_PERCENT } from './measure.mjs';

/** Every number a verdict is judged against (bench/README.md, "Targets"). */
export const TARGETS = {
  /** The service's CPU µs per request when the targets were set: at most 10 % above. */
  referenceCpu: {
    fastify: { catalog: 68, 'catalog-ie': 81, successful: 134, 'pending-distinct': 100 },
    express: { catalog: 106, 'catalog-ie': 104, successful: 152, 'pending-distinct': 117 },
  },
  referenceSlack: 1.1,
  /** Service CPU per request at most this many card floors, per platform and scenario. */
  cardFloorX: {
    fastify: { catalog: 1.5, 'catalog-ie': 1.5, successful: 1.5, 'pending-distinct': 2 },
    express: { catalog: 0.8, 'catalog-ie': 0.8, successful: 0.8, 'pending-distinct': 0.8 },
  },
  p99Ms: 10,
  peakRssMb: 160,
  sqliteWritesPerSecond: 1500,
  sqliteWritesP99Ms: 100,
  /** The level, connections and window the targets are set at. */
  logLevel: 'info',
  connections: 50,
};

const READS = ['catalog', 'catalog-ie', 'successful', 'pending-distinct'];
const SERVERS = ['card-floor', 'bare-nest', 'raw'];
const DB = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

const int = (n) => (n === undefined ? '–' : Math.round(n).toLocaleString('en-US'));
const dec = (n) => (n === undefined ? '–' : n < 100 ? String(Math.round(n * 10) / 10) : int(n));
const times = (r) => (r === undefined || !Number.isFinite(r) ? '–' : `${r.toFixed(2)}×`);
/** A median with the range of the repeats, e.g. `105 (101–112)`. */
function withSpread(m, field, format = dec) {
  const range = m?.spread?.[field];
  const value = format(m?.[field]);
  return m?.repeats > 1 && range ? `${value} (${format(range[0])}–${format(range[1])})` : value;
}

function table(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [
    line(header),
    line(header.map((_, i) => (i === 0 ? '---' : '---:'))),
    ...rows.map(line),
  ].join('\n');
}

/** Service CPU over card-floor CPU for one platform, scenario and database. */
function cardFloorRatio(results, platform, id, database, build = 'this') {
  const service = results[`${platform} ${id} service:${database}:${build}`];
  const floor = results[`${platform} ${id} card-floor`];
  return service?.cpuMicros && floor?.cpuMicros ? service.cpuMicros / floor.cpuMicros : undefined;
}

/* ------------------------------------------------------------------------------------------ */
/* Targets                                                                                     */

/** PASS/FAIL of every target the run can judge (bench/README.md, "Targets"). */
export function judge(run) {
  const { results, options } = run;
  const verdicts = [];
  const push = (target, ok, detail) =>
    verdicts.push({ target, verdict: ok ? 'PASS' : 'FAIL', detail });
  for (const platform of options.platforms) {
    for (const database of options.databases) {
      const where = `${platform}, ${DB[database]}`;
      const service = (id) => results[`${platform} ${id} service:${database}:this`];
      const ids = READS.filter((id) => service(id));
      if (ids.length > 0) {
        const reference = TARGETS.referenceCpu[platform];
        push(
          `${where}: CPU/req ≤ ${TARGETS.referenceSlack} × the reference`,
          ids.every((id) => service(id).cpuMicros <= reference[id] * TARGETS.referenceSlack),
          ids
            .map(
              (id) =>
                `${id} ${dec(service(id).cpuMicros)} (≤ ${dec(reference[id] * TARGETS.referenceSlack)})`,
            )
            .join(', '),
        );
        const x = TARGETS.cardFloorX[platform];
        push(
          `${where}: CPU/req ≤ ${[...new Set(ids.map((id) => x[id]))].join(' / ')} × card floor`,
          ids.every((id) => cardFloorRatio(results, platform, id, database) <= x[id]),
          ids
            .map(
              (id) =>
                `${id} ${times(cardFloorRatio(results, platform, id, database))} (≤ ${x[id]})`,
            )
            .join(', '),
        );
        push(
          `${where}: p99 ≤ ${TARGETS.p99Ms} ms`,
          ids.every((id) => service(id).p99 <= TARGETS.p99Ms),
          ids.map((id) => `${id} ${service(id).p99} ms`).join(', '),
        );
      }
      if (service('successful') && service('catalog')) {
        push(
          `${where}: a cached final answer no dearer than a catalog page`,
          service('successful').cpuMicros <= service('catalog').cpuMicros,
          `${dec(service('successful').cpuMicros)} µs against ${dec(service('catalog').cpuMicros)} µs`,
        );
      }
      const all = [...READS, 'writes'].map(service).filter(Boolean);
      if (all.length > 0) {
        const peak = Math.max(...all.map((m) => m.peakRssMb));
        push(
          `${where}: peak RSS ≤ ${TARGETS.peakRssMb} MB`,
          peak <= TARGETS.peakRssMb,
          `highest ${dec(peak)} MB`,
        );
      }
      const writes = service('writes');
      if (writes && database === 'sqlite') {
        push(
          `${where}: ≥ ${int(TARGETS.sqliteWritesPerSecond)} acknowledged writes/s, p99 ≤ ${TARGETS.sqliteWritesP99Ms} ms`,
          writes.perSecond >= TARGETS.sqliteWritesPerSecond &&
            writes.p99 <= TARGETS.sqliteWritesP99Ms &&
            !writes.failed,
          `${int(writes.perSecond)} writes/s, p99 ${writes.p99} ms, ${int(writes.failed)} failed`,
        );
      }
    }
  }
  const postgresWrites = Object.entries(results).find(([key]) =>
    key.endsWith(' writes service:postgres:this'),
  );
  if (postgresWrites) {
    const m = postgresWrites[1];
    verdicts.push({
      target: 'PostgreSQL, two instances: acknowledged writes/s and p99 (reported, no line)',
      verdict: 'reported',
      detail: `${int(m.perSecond)} writes/s, p99 ${m.p99} ms, ${dec(m.cpuMicros)} µs/write + PostgreSQL ${dec(m.postgresCpuMicros)}, ${int(m.failed)} failed`,
    });
  }
  const offTarget = [
    options.quick && 'a --quick run',
    options.logLevel !== TARGETS.logLevel && `LOG_LEVEL=${options.logLevel}`,
    options.connections !== TARGETS.connections && `${options.connections} connections`,
  ].filter(Boolean);
  if (offTarget.length && verdicts.length) {
    for (const v of verdicts) if (v.verdict !== 'reported') v.verdict = `(${v.verdict})`;
    verdicts.push({
      target: 'verdicts in parentheses',
      verdict: 'not judged',
      detail: `${offTarget.join(', ')}: not the targets' setting`,
    });
  }
  return verdicts;
}

/* ------------------------------------------------------------------------------------------ */
/* The report                                                                                  */

function readsTable(run, platform) {
  const { results, options } = run;
  const comparing = Boolean(run.compare);
  const rows = [];
  for (const { id, label } of run.scenarios.filter((s) => READS.includes(s.id))) {
    const servers = [
      ...options.databases.flatMap((db) =>
        ['this', ...(comparing ? ['ref'] : [])].map((b) => `service:${db}:${b}`),
      ),
      ...SERVERS,
    ];
    for (const server of servers) {
      const m = results[`${platform} ${id} ${server}`];
      if (!m) continue;
      const [, database, build] = server.split(':');
      const ref = build === 'this' && results[`${platform} ${id} service:${database}:ref`];
      rows.push([
        server === servers[0] ? label : '',
        server.startsWith('service:')
          ? `service ${DB[database]}${comparing ? `, ${build}` : ''}`
          : server,
        withSpread(m, 'cpuMicros'),
        database ? times(cardFloorRatio(results, platform, id, database, build)) : '',
        ...(comparing ? [ref ? times(m.cpuMicros / ref.cpuMicros) : ''] : []),
        withSpread(m, 'perSecond', int),
        dec(m.p50),
        dec(m.p99),
        dec(m.peakRssMb),
        m.failed ? `**${int(m.failed)}** ${JSON.stringify(m.statusCodes)}` : '0',
      ]);
    }
  }
  const header = [
    'scenario',
    'server',
    'CPU µs/req',
    '× card floor',
    ...(comparing ? ['this / ref CPU'] : []),
  ];
  return table(
    [
      `${platform}: ${header[0]}`,
      ...header.slice(1),
      'req/s',
      'p50 ms',
      'p99 ms',
      'peak RSS MB',
      'other answers',
    ],
    rows,
  );
}

function writesTable(run) {
  const rows = Object.entries(run.results)
    .filter(([key]) => key.split(' ')[1] === 'writes')
    .map(([key, m]) => {
      const [platform, , server] = key.split(' ');
      const [, database, build] = server.split(':');
      const instances = platform.includes('+')
        ? `two: ${platform.replace('+', ' + ')}`
        : `one: ${platform}`;
      return [
        `${DB[database]}${run.compare ? `, ${build}` : ''}`,
        instances,
        withSpread(m, 'perSecond', int),
        dec(m.p50),
        dec(m.p99),
        withSpread(m, 'cpuMicros'),
        m.postgresCpuMicros === undefined ? '–' : dec(m.postgresCpuMicros),
        int(m.failed),
        dec(m.peakRssMb),
      ];
    });
  return table(
    [
      'database',
      'instances',
      'acknowledged writes/s',
      'p50 ms',
      'p99 ms',
      'service CPU µs/write',
      'PostgreSQL CPU µs/write',
      'failed',
      'peak RSS MB',
    ],
    rows,
  );
}

export function formatReport(run) {
  const { options, machine: m } = run;
  const datasets = Object.entries(run.datasets)
    .map(
      ([db, d]) =>
        `${DB[db]} ${d.seeding.seconds} s (${int(options.sessions / d.seeding.seconds)} sessions/s, ` +
        `seed process peak RSS ${dec(d.seeding.peakRssMb)} MB` +
        `${d.databaseMb ? `; ${int(d.databaseMb)} MB on disk` : ''})`,
    )
    .join('; ');
  const out = [
    `## Benchmark ${run.date.slice(0, 16).replace('T', ' ')} UTC${options.quick ? ' — quick run: a smoke test, not a measurement' : ''}`,
    '',
    `\`${run.command}\``,
    '',
    `- Machine: ${m.cpuModel}, nproc ${m.nproc}, ${m.memoryGb} GB; load average ${m.loadAverage.join(' / ')} at the ` +
      `start, ${run.loadAverageAtEnd.join(' / ')} at the end. Node.js ${run.node}; autocannon on the same machine.`,
    `- ${options.connections} connections; ${options.warmup} s warm-up + ${options.duration} s per measurement` +
      `${options.repeat > 1 ? `; medians of ${options.repeat} runs (lowest–highest)` : ''}; LOG_LEVEL=${options.logLevel}` +
      `; production build (\`node dist/main.js\` with the flags and variables of \`npm run start:prod\`)${options.redis ? '; rate-limit counters in Redis' : ''}.`,
    `- Dataset: ${int(options.sessions)} payment sessions (a quarter each status), 5,000 catalog pairs, seeded by the ` +
      `seed command: ${datasets}.`,
    `- This build: ${run.commit?.slice(0, 12) ?? '?'}${run.dirty ? ' with uncommitted changes' : ''}` +
      (run.compare
        ? `; ref ${run.compare.ref} (${run.compare.commit.slice(0, 12)}, ${run.compare.modules}${run.compare.migrationDifferences.length ? `; **migrations differ**: ${run.compare.migrationDifferences.join(', ')}` : ''}), measured alternately`
        : '') +
      '.',
  ];
  if (run.postgres) {
    const s = run.postgres.settings;
    out.push(
      `- PostgreSQL ${s.server_version}: fsync=${s.fsync}, synchronous_commit=${s.synchronous_commit}, full_page_writes=${s.full_page_writes}, shared_buffers=${s.shared_buffers}.`,
    );
  }
  out.push('');
  for (const platform of options.platforms) {
    if (
      Object.keys(run.results).some((k) => k.startsWith(`${platform} `) && !k.includes(' writes '))
    ) {
      out.push(readsTable(run, platform), '');
    }
  }
  if (Object.keys(run.results).some((k) => k.includes(' writes '))) out.push(writesTable(run), '');
  if (Object.keys(run.results).length === 0)
    return [...out, 'Seeding only: nothing else measured.'].join('\n');
  out.push(
    'CPU µs: utime + stime of the server process over the measured window (/proc/<pid>/stat), per answered ' +
      'request or acknowledged write. × card floor: the service against the card floor of the same platform and ' +
      'scenario in this run. other answers: answers that were not 200 (reads) or 201 (writes), and socket errors.',
    '',
  );
  const busy = Object.entries(run.results).filter(([, r]) => r.otherCpuPercent > BUSY_PERCENT);
  if (busy.length) {
    out.push(
      `**The machine was not quiet**: in ${busy.length} measurement(s) other processes used more than ${BUSY_PERCENT}% ` +
        `of a core (up to ${Math.max(...busy.map(([, r]) => r.otherCpuPercent))}%); those numbers are not reliable.`,
      '',
    );
  }
  for (const note of run.notes) out.push(`- ${note}`);
  if (run.notes.length) out.push('');
  out.push(
    table(
      ['target', 'result', 'detail'],
      run.targets.map((t) => [t.target, t.verdict, t.detail]),
    ),
  );
  return out.join('\n');
}

/* ------------------------------------------------------------------------------------------ */

/** A run in one line of the history: per measurement the service's or baseline's key numbers. */
function historyLine(run) {
  const results = {};
  for (const [key, m] of Object.entries(run.results)) {
    results[key] = { cpu: m.cpuMicros, perSecond: m.perSecond, p99: m.p99, rss: m.peakRssMb };
  }
  return {
    date: run.date,
    commit: run.commit?.slice(0, 12),
    dirty: run.dirty || undefined,
    quick: run.options.quick || undefined,
    command: run.command,
    machine: `${run.machine.cpuModel} ×${run.machine.nproc}, load ${run.machine.loadAverage[0]}`,
    logLevel: run.options.logLevel,
    sessions: run.options.sessions,
    results,
  };
}

/**
 * bench/results.json: `latest`, the whole last run written, `history`, one line per run, and
 * `earlier`, the earlier benchmark's last complete runs (its history lines stay in `history`).
 */
export function writeResults(file, run) {
  let previous = {};
  try {
    previous = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // a new file
  }
  const history = previous.history ?? [];
  // The last complete runs of the earlier benchmark (format 2), kept as they were.
  const earlier = previous.earlier ?? (previous.format === 2 ? previous.runs : undefined);
  history.push(historyLine(run));
  // One field of the run per line, and one line per measurement: diffs stay readable.
  const field = ([key, value]) =>
    key !== 'results'
      ? `    ${JSON.stringify(key)}: ${JSON.stringify(value)}`
      : `    "results": {\n${Object.entries(value)
          .map(([name, m]) => `      ${JSON.stringify(name)}: ${JSON.stringify(m)}`)
          .join(',\n')}\n    }`;
  const text = [
    '{',
    '  "format": 3,',
    '  "latest": {',
    Object.entries(run)
      .filter(([, value]) => value !== undefined)
      .map(field)
      .join(',\n'),
    '  },',
    ...(earlier
      ? [
          '  "earlier": {',
          Object.entries(earlier)
            .map(([key, value]) => `    ${JSON.stringify(key)}: ${JSON.stringify(value)}`)
            .join(',\n'),
          '  },',
        ]
      : []),
    '  "history": [',
    history.map((entry) => `    ${JSON.stringify(entry)}`).join(',\n'),
    '  ]',
    '}',
    '',
  ].join('\n');
  JSON.parse(text);
  writeFileSync(file, text);
}
