import { connect } from 'node:net';

export interface RawResponse {
  /** Everything the server sent until it closed the connection (or the wait ended). */
  text: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from connecting to the end of the answer. */
  elapsedMs: number;
  closedByServer: boolean;
}

/**
 * Sends raw bytes over TCP (what fetch refuses to send: malformed request lines, huge headers,
 * CONNECT, bodies trickled byte by byte) and reads the answer until the server closes the
 * connection or `waitMs` passes.
 */
export function rawRequest(
  url: string,
  head: string,
  options: { trickle?: string; trickleEveryMs?: number; waitMs?: number } = {},
): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    let closedByServer = false;
    const finish = () => {
      clearInterval(timer);
      clearTimeout(wait);
      const text = Buffer.concat(chunks).toString('utf8');
      const [headPart, ...bodyParts] = text.split('\r\n\r\n');
      const [statusLine, ...headerLines] = headPart.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        text,
        status: Number(statusLine.split(' ')[1] ?? 0),
        headers,
        body: bodyParts.join('\r\n\r\n'),
        elapsedMs: Date.now() - started,
        closedByServer,
      });
    };
    const wait = setTimeout(() => socket.destroy(), options.waitMs ?? 10_000);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => (closedByServer = true));
    socket.on('close', finish);
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    socket.on('connect', () => {
      socket.write(head);
      const trickle = options.trickle;
      if (trickle === undefined) return;
      let sent = 0;
      timer = setInterval(() => {
        if (sent >= trickle.length || socket.destroyed) return clearInterval(timer);
        socket.write(trickle[sent++]);
      }, options.trickleEveryMs ?? 1000);
    });
  });
}
