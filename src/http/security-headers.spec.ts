import helmet from 'helmet';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HELMET_OPTIONS, securityHeaders } from './security-headers.js';

/** The headers helmet sets on a real response of a real server, by lower-case name. */
async function helmetOnAServer(): Promise<Record<string, string>> {
  const middleware = helmet(HELMET_OPTIONS);
  const server = createServer((request, response) =>
    middleware(request, response, () => response.end()),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const answer = await fetch(`http://127.0.0.1:${port}/`);
    const headers: Record<string, string> = {};
    for (const [name, value] of answer.headers) {
      if (!['date', 'connection', 'keep-alive', 'content-length'].includes(name)) {
        headers[name] = value;
      }
    }
    return headers;
  } finally {
    server.close();
  }
}

describe('securityHeaders', () => {
  it('are the headers helmet sets on a real response, computed once', async () => {
    const once = Object.fromEntries(
      Object.entries(securityHeaders()).map(([name, value]) => [name.toLowerCase(), value]),
    );
    expect(once).toEqual(await helmetOnAServer());
    expect(once).toMatchObject({
      'x-content-type-options': 'nosniff',
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
    });
    expect(once['content-security-policy']).toContain("img-src 'self' data:");
  });
});
