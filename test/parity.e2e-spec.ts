import {
  Captured,
  CorpusAnswer,
  CorpusRequest,
  PARITY_MERCHANT_KEY,
  PARITY_SEED,
  parityCorpus,
  sendCorpusRequest,
} from './support/parity-corpus.js';
import { startTestApp, TestApp } from './support/test-app.js';

/**
 * Express and Fastify answer every request of one corpus alike: the same status, the same
 * `errorCode`s and, for 2xx answers, the same body; and neither answers any of it with a 5xx. The
 * corpus crosses path spellings, queries, headers, bodies, content types and methods
 * (test/support/parity-corpus.ts). `PARITY_REPORT=<file>` writes the differences found as JSON.
 */
describe('platform parity (e2e, Express beside Fastify)', () => {
  const platforms = bothPlatforms('');

  it('holds at least 500 requests', () => {
    expect(parityCorpus().length).toBeGreaterThanOrEqual(500);
  });

  it('answers every request of the corpus alike on both platforms', async () => {
    const differences: { label: string; express: CorpusAnswer; fastify: CorpusAnswer }[] = [];
    const serverErrors: string[] = [];
    const limited: string[] = [];
    const captured: [Captured, Captured] = [new Map(), new Map()];
    for (const entry of parityCorpus()) {
      // One at a time, in order: writes change what later requests see, alike on both.
      const onExpress = await sendCorpusRequest(platforms.express.url, entry, captured[0]);
      const onFastify = await sendCorpusRequest(platforms.fastify.url, entry, captured[1]);
      if (onExpress.status >= 500 || onFastify.status >= 500) serverErrors.push(entry.label);
      if (onExpress.status === 429) limited.push(entry.label);
      if (JSON.stringify(onExpress) !== JSON.stringify(onFastify)) {
        differences.push({
          label: `${entry.method} ${entry.path.slice(0, 80)} (${entry.label})`,
          express: onExpress,
          fastify: onFastify,
        });
      }
    }
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
    expect([...captured[0].keys()].sort()).toEqual(
      ['cancelled', 'cancelledn', 'failed', 'failedn', 'paid', 'paidn'].sort(),
    );
  }, 120_000);
});

describe('platform parity under CONTEXT_PATH (e2e, Express beside Fastify)', () => {
  const platforms = bothPlatforms('/pegasus-ci');

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
    const differences: string[] = [];
    const captured: [Captured, Captured] = [new Map(), new Map()];
    const check = async (entry: CorpusRequest, expressUrl: string, fastifyUrl: string) => {
      const onExpress = await sendCorpusRequest(expressUrl, entry, captured[0]);
      const onFastify = await sendCorpusRequest(fastifyUrl, entry, captured[1]);
      if (JSON.stringify(onExpress) !== JSON.stringify(onFastify) || onExpress.status >= 500) {
        differences.push(
          `${entry.method} ${entry.path.slice(0, 80)}: ${JSON.stringify(onExpress)} / ${JSON.stringify(onFastify)}`,
        );
      }
    };
    for (const entry of parityCorpus())
      await check(entry, platforms.express.url, platforms.fastify.url);
    for (const entry of prefixSpellings) {
      await check(entry, origin(platforms.express.url), origin(platforms.fastify.url));
    }
    expect(differences).toEqual([]);
  }, 120_000);
});

/**
 * Both platforms started side by side on one configuration and seeded alike, for the tests of the
 * enclosing describe block; the getters read them once they have started.
 */
function bothPlatforms(contextPath: string): {
  readonly express: TestApp;
  readonly fastify: TestApp;
} {
  const env = {
    AUTH_MODE: 'api-key',
    // The sandbox: the checkout page's outcome action answers only there.
    CHECKOUT_SANDBOX: 'true',
    CONTEXT_PATH: contextPath,
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_STATUS_NOT_FOUND_PER_MINUTE: '1000000',
  };
  let apps: [TestApp, TestApp] | undefined;
  beforeAll(async () => {
    apps = await Promise.all([
      startTestApp({ ...env, HTTP_PLATFORM: 'express' }),
      startTestApp({ ...env, HTTP_PLATFORM: 'fastify' }),
    ]);
    await Promise.all(apps.map((app) => app.seed(PARITY_SEED)));
  });
  afterAll(async () => {
    await Promise.all((apps ?? []).map((app) => app.close()));
  });
  const started = () => {
    if (!apps) throw new Error('the platforms have not started');
    return apps;
  };
  return {
    get express() {
      return started()[0];
    },
    get fastify() {
      return started()[1];
    },
  };
}
