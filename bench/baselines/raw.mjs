/**
 * The limit: raw node:http answering the service's bytes pre-serialised, with its headers and a
 * fresh x-request-id. usage: node raw.mjs <replay.json> <port>
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { exitWithParent, listening, loadReplay } from './replay.mjs';

const [file, port] = process.argv.slice(2);
const replay = loadReplay(file);
for (const answer of replay.answers) {
  answer.flat = answer.headers.flatMap(([name, value]) => [name, value]);
  answer.flat.push('Content-Length', String(answer.body.length));
  answer.idAt = 2 * answer.headers.findIndex(([, , isId]) => isId) + 1;
}

const server = createServer((request, response) => {
  const answer = replay.lookup(request.url);
  if (!answer) return response.writeHead(404, { 'Content-Length': '0' }).end();
  if (answer.idAt > 0) answer.flat[answer.idAt] = randomUUID();
  response.writeHead(answer.status, answer.flat);
  response.end(answer.body);
});
exitWithParent();
server.listen(Number(port), '127.0.0.1', () => listening('raw', port));
