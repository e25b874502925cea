import { ADMIN_TOKEN } from './test-app.js';

/** What a run of concurrent writers saw: the keys acknowledged, and every status answered. */
export interface WriteLoad {
  /** Keys answered 2xx: their sessions must be stored. */
  acknowledged: Set<string>;
  /** Keys answered anything else (503 while the database refused writes, or no answer). */
  refused: Set<string>;
  statuses: Map<number, number>;
  /**
   * Keys that got no answer at all (status 0: the process ended, the connection closed), each
   * with why: the client cannot know whether they were stored. A subset of `refused`.
   */
  unanswered: Map<string, string>;
  /** Stops the writers and resolves once every request in flight has been answered. */
  stop(): Promise<void>;
}

/**
 * `writers` clients, each reporting new FAILED sessions one after another (`PUT
 * /admin/payment-sessions/{key}` with a callback URL: a session, its transition, its callback and
 * an audit event per write) until stopped, on the service at `baseUrl`.
 */
export function startWriteLoad(
  baseUrl: string,
  merchantId: string,
  writers: number,
  prefix = 'wl',
): WriteLoad {
  const load: WriteLoad = {
    acknowledged: new Set(),
    refused: new Set(),
    statuses: new Map(),
    unanswered: new Map(),
    stop: async () => undefined,
  };
  let stopped = false;
  let next = 0;
  const run = async (writer: number) => {
    while (!stopped) {
      const key = `${prefix}-${writer}-${next++}`;
      let status = 0;
      try {
        const response = await fetch(`${baseUrl}/admin/payment-sessions/${key}`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            merchantId,
            status: 'FAILED',
            errorMessage: 'Declined by the issuer',
            returnUrl: 'http://127.0.0.1:9/callbacks',
          }),
        });
        status = response.status;
        await response.arrayBuffer();
      } catch (error) {
        // No answer (the process was killed, the connection closed): not acknowledged.
        load.unanswered.set(key, causeOf(error));
      }
      load.statuses.set(status, (load.statuses.get(status) ?? 0) + 1);
      (status >= 200 && status < 300 ? load.acknowledged : load.refused).add(key);
      if (status !== 201) await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const running = Promise.all(Array.from({ length: writers }, (_, writer) => run(writer)));
  load.stop = async () => {
    stopped = true;
    await running;
  };
  return load;
}

/** Polls `check` every 50 ms until it holds, or fails naming `what` at the deadline. */
export async function eventually(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 15_000,
): Promise<number> {
  const started = Date.now();
  while (!(await check().catch(() => false))) {
    if (Date.now() - started > timeoutMs) throw new Error(`Not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Date.now() - started;
}

/** What a failed fetch says went wrong: its message and its cause's code or message. */
export function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return `${(error as Error).message}${cause ? `: ${cause.code ?? cause.message}` : ''}`;
}
