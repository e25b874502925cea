import {
  Captured,
  CorpusAnswer,
  CorpusRequest,
  PARITY_MERCHANT_KEY,
  PARITY_SEED,
  parityCorpus,
  sendCorpusRequest,
} from './support/parity-corpus.js';
import { startTestApp } from './support/test-app.js';

/**
 * Express and Fastify answer every request of one corpus alike: the same status, the same
 * `errorCode`s and, for 2xx answers, the same body; and neither answers any of it with a 5xx. The
 * corpus crosses path spellings, queries, headers, bodies, content types and methods
 * (test/support/parity-corpus.ts). `PARITY_REPORT=<file>` writes the differences found as JSON.
 */
describe('platform parity (e2e, Express beside Fastify)', () => {
  it('holds at least 500 requests', () => {
    expect(parityCorpus().length).toBeGreaterThanOrEqual(500);
  });

  it('answers every request of the corpus alike on both platforms', async () => {
    // One at a time, in order, on each platform: writes change what later requests see, alike.
    const { answers, captured } = await onBothPlatforms('', (url, send) =>
      sendAll(parityCorpus(), (entry) => send(url, entry)),
    );
    const differences: { label: string; express: CorpusAnswer; fastify: CorpusAnswer }[] = [];
    const serverErrors: string[] = [];
    const limited: string[] = [];
    parityCorpus().forEach((entry, index) => {
      const onExpress = answers.express[index];
      const onFastify = answers.fastify[index];
      if (onExpress.status >= 500 || onFastify.status >= 500) serverErrors.push(entry.label);
      if (onExpress.status === 429) limited.push(entry.label);
      if (JSON.stringify(onExpress) !== JSON.stringify(onFastify)) {
        differences.push({
          label: `${entry.method} ${entry.path.slice(0, 80)} (${entry.label})`,
          express: onExpress,
          fastify: onFastify,
        });
      }
    });
    if (process.env.PARITY_REPORT) {
      (await import('node:fs')).writeFileSync(
        process.env.PARITY_REPORT,
        JSON.stringify(differences, null, 1),
      );
    }
    expect(differences).toEqual([]);
    expect(serverErrors).toEqual([]);
    // Each request is judged for itself: none meets a limit that earlier ones reached.
    expect(limited).toEqual([]);
    // The checkout's flow ran: its payments were made, one of each outcome.
    expect([...captured.express.keys()].sort()).toEqual(
      ['cancelled', 'cancelledn', 'failed', 'failedn', 'paid', 'paidn'].sort(),
    );
  }, 120_000);
});

describe('platform parity under CONTEXT_PATH (e2e, Express beside Fastify)', () => {
  it('answers the corpus below the prefix, and spellings of the prefix itself, alike', async () => {
    const origin = (url: string) => new URL(url).origin;
    const prefixSpellings = [
      '/PEGASUS-CI/api/crypto-currency-protocol-processors',
      '/Pegasus-CI/api/gateway/payment-status/vk_parity_success_0001',
      '/pegasus-ci/../api/crypto-currency-protocol-processors',
      '//pegasus-ci/api/crypto-currency-protocol-processors',
      '/pegasus-ci/',
      '/pegasus-ci',
      '/pegasus-cix/api/crypto-currency-protocol-processors',
      '/%70egasus-ci/api/crypto-currency-protocol-processors',
      '/api/crypto-currency-protocol-processors',
      '/docs',
    ].flatMap((path): CorpusRequest[] => [
      { label: path, method: 'GET', path, headers: {} },
      { label: `${path} with a key`, method: 'GET', path, headers: { key: PARITY_MERCHANT_KEY } },
    ]);
    const requests = async (url: string, send: Send) => [
      ...(await sendAll(parityCorpus(), (entry) => send(url, entry))),
      ...(await sendAll(prefixSpellings, (entry) => send(origin(url), entry))),
    ];
    const { answers } = await onBothPlatforms('/pegasus-ci', requests);
    const entries = [...parityCorpus(), ...prefixSpellings];
    const differences: string[] = [];
    entries.forEach((entry, index) => {
      const onExpress = answers.express[index];
      const onFastify = answers.fastify[index];
      if (JSON.stringify(onExpress) !== JSON.stringify(onFastify) || onExpress.status >= 500) {
        differences.push(
          `${entry.method} ${entry.path.slice(0, 80)}: ${JSON.stringify(onExpress)} / ${JSON.stringify(onFastify)}`,
        );
      }
    });
    expect(differences).toEqual([]);
  }, 120_000);
});

type Send = (url: string, entry: CorpusRequest) => Promise<CorpusAnswer>;
type Platform = 'express' | 'fastify';

/** Sends the requests one at a time, in order. */
async function sendAll(
  entries: CorpusRequest[],
  send: (entry: CorpusRequest) => Promise<CorpusAnswer>,
): Promise<CorpusAnswer[]> {
  const answers: CorpusAnswer[] = [];
  for (const entry of entries) answers.push(await send(entry));
  return answers;
}

/**
 * The answers of each platform to the same requests: Express, then Fastify, each started on one
 * configuration, seeded alike and closed before the next starts (one application, and one data
 * source, at a time in the process).
 */
async function onBothPlatforms(
  contextPath: string,
  requests: (url: string, send: Send) => Promise<CorpusAnswer[]>,
): Promise<{ answers: Record<Platform, CorpusAnswer[]>; captured: Record<Platform, Captured> }> {
  const env = {
    AUTH_MODE: 'api-key',
    // The sandbox: the checkout page's outcome action answers only there.
    CHECKOUT_SANDBOX: 'true',
    CONTEXT_PATH: contextPath,
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_STATUS_NOT_FOUND_PER_MINUTE: '1000000',
  };
  const answers = {} as Record<Platform, CorpusAnswer[]>;
  const captured = {} as Record<Platform, Captured>;
  for (const platform of ['express', 'fastify'] as const) {
    const app = await startTestApp({ ...env, HTTP_PLATFORM: platform });
    try {
      await app.seed(PARITY_SEED);
      const values: Captured = new Map();
      answers[platform] = await requests(app.url, (url, entry) =>
        sendCorpusRequest(url, entry, values),
      );
      captured[platform] = values;
    } finally {
      await app.close();
    }
  }
  return { answers, captured };
}
