/**
 * Baseline (a): a raw node:http server replaying the service's responses, pre-serialised. The
 * only per-request work is the lookup and a fresh x-request-id: the limit of Node on this machine.
 * usage: node raw-server.mjs <responses.json> <port>
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { exitWithParent, loadSpec } from './responses.mjs';

const [file, port] = process.argv.slice(2);
const spec = loadSpec(file);

// Flat [name, value, name, value, …] header lists, as the service sent them.
for (const r of spec.responses) {
  r.flat = [];
  r.idIndex = -1;
  for (const [name, value] of r.headers) {
    if (r.requestIdHeader && name.toLowerCase() === r.requestIdHeader.toLowerCase()) {
      r.idIndex = r.flat.length + 1;
    }
    r.flat.push(name, name.toLowerCase() === 'content-length' ? String(r.body.length) : value);
  }
  if (!r.headers.some(([name]) => name.toLowerCase() === 'content-length')) {
    r.flat.push('Content-Length', String(r.body.length));
  }
}

const server = createServer((req, res) => {
  const r = spec.lookup(req.url);
  if (!r) {
    res.writeHead(404, { 'Content-Length': '0' });
    res.end();
    return;
  }
  if (r.idIndex >= 0) r.flat[r.idIndex] = randomUUID();
  res.writeHead(r.status, r.statusMessage, r.flat);
  res.end(r.body);
});

exitWithParent();
server.listen(Number(port), '127.0.0.1', () => {
  process.stdout.write(`LISTENING ${server.address().port}\n`);
});
