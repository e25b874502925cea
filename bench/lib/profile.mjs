/**
 * Summary of a V8 `.cpuprofile` (from `node --cpu-prof`): self time by package or area and by
 * function. Also usable alone: node bench/lib/profile.mjs <file.cpuprofile> [top]
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** Where a frame's code lives: a package, the app's dist/, Node internals, or a V8 pseudo-frame. */
export function areaOf(url, functionName) {
  if (!url) {
    if (functionName.startsWith('(')) return functionName; // (garbage collector), (program), (idle)
    return '(native)';
  }
  const path = url.replace(/^file:\/\//, '');
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (pkg) return pkg[1];
  if (path.startsWith('node:')) return `node:${path.slice(5).split('/')[0]}`;
  const dist = /\/dist\/(.+)$/.exec(path);
  if (dist) return `app dist/${dist[1].split('/')[0]}`;
  return path;
}

const SPINE =
  /^(\(native\)|express|router|fastify|avvio|find-my-way|light-my-request|@nestjs\/(core|platform-express|platform-fastify)|rxjs)$/;

export function summariseProfile(file, top = 15) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parentOf.set(child, node.id);
  // Areas on a node's stack (itself and its callers): time "inside" a package, callees included.
  const stackAreas = new Map();
  const areasOnStack = (id) => {
    let areas = stackAreas.get(id);
    if (areas) return areas;
    const { callFrame } = byId.get(id);
    const parent = parentOf.get(id);
    areas = new Set(parent === undefined ? [] : areasOnStack(parent));
    const name = callFrame.functionName || '(anonymous)';
    if (callFrame.url || !name.startsWith('(')) areas.add(areaOf(callFrame.url, name));
    stackAreas.set(id, areas);
    return areas;
  };
  const selfMicros = new Map();
  const { samples, timeDeltas } = profile;
  for (let i = 0; i < samples.length; i++) {
    const delta = timeDeltas[i + 1] ?? 0;
    selfMicros.set(samples[i], (selfMicros.get(samples[i]) ?? 0) + delta);
  }
  let total = 0;
  let idle = 0;
  const areas = new Map();
  const inclusive = new Map();
  const functions = new Map();
  for (const [id, micros] of selfMicros) {
    const { callFrame } = byId.get(id);
    const name = callFrame.functionName || '(anonymous)';
    if (name === '(idle)') {
      idle += micros;
      continue;
    }
    total += micros;
    const area = areaOf(callFrame.url, name);
    areas.set(area, (areas.get(area) ?? 0) + micros);
    for (const a of areasOnStack(id)) inclusive.set(a, (inclusive.get(a) ?? 0) + micros);
    const file = callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/dist\//, '');
    const key = `${name} ${file ? `${file}:${callFrame.lineNumber + 1}` : ''}`.trim();
    functions.set(key, (functions.get(key) ?? 0) + micros);
  }
  const rank = (map) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, micros]) => ({ name, percent: Math.round((micros / total) * 1000) / 10 }));
  return {
    busySeconds: Math.round(total / 1e4) / 100,
    idleSeconds: Math.round(idle / 1e4) / 100,
    areas: rank(areas),
    // The HTTP spine (Node, Express/Fastify, Nest's router) is on almost every stack: left out.
    inclusiveAreas: rank(
      new Map([...inclusive].filter(([area]) => !SPINE.test(area) && !area.startsWith('node:'))),
    ),
    functions: rank(functions),
  };
}

export function formatProfile(summary) {
  const lines = [
    `  busy ${summary.busySeconds} s, idle ${summary.idleSeconds} s; self time of the busy part:`,
    '  self by area: ' +
      summary.areas
        .slice(0, 10)
        .map((a) => `${a.name} ${a.percent}%`)
        .join(', '),
    '  inclusive (callees counted, HTTP spine left out; a middleware that calls next() also ' +
      'counts what runs after it): ' +
      summary.inclusiveAreas
        .slice(0, 10)
        .map((a) => `${a.name} ${a.percent}%`)
        .join(', '),
    '  by function:',
    ...summary.functions.map((f) => `    ${String(f.percent).padStart(5)}%  ${f.name}`),
  ];
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node bench/lib/profile.mjs <file.cpuprofile> [top]\n');
    process.exit(2);
  }
  process.stdout.write(`${formatProfile(summariseProfile(file, Number(top) || 25))}\n`);
}
