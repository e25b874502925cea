import type { INestApplication } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { DataSource } from 'typeorm';
import { runCommand } from './cli/run-command.js';
import { serve } from './cli/serve.js';
import { validateSeed } from './seeding/seed-validation.js';
import { SeedRunner } from './seeding/seed-runner.js';
import { ApiKeyService } from './merchants/api-key.service.js';
import { CallbackSecretService } from './merchants/callback-secret.service.js';
import { DEMO_MERCHANT_ID } from './merchants/merchant-id.js';
import { DEMO_PATH } from './sandbox/sandbox-pages.js';
import { DEMO_SEED_FILE, demoKeyState, demoSecretCurrent } from './sandbox/demo-merchant.js';

/**
 * Where the sandbox listens unless HOST says otherwise: it publishes its demo key and prints an
 * operator token, so it is reachable from this machine only.
 */
const SANDBOX_HOST = '127.0.0.1';
const hostGiven = (process.env.HOST ?? '').trim() !== '';

/**
 * `npm start`: the sandbox. Migrates, seeds the demo data into an empty database, serves, and
 * prints where the docs are and which keys to use. With no ADMIN_TOKEN set, a token for this
 * run only is made up and printed, so the operator API can be tried too.
 */
await runCommand(
  async (baseConfig) => {
    const adminToken = baseConfig.adminToken ?? randomBytes(24).toString('base64url');
    const config = { ...baseConfig, adminToken };
    const seed = await validateSeed(JSON.parse(await readFile(DEMO_SEED_FILE, 'utf8')));
    if (!seed.ok) throw new Error(`${DEMO_SEED_FILE} is not a valid seed file`);
    const demoSeed = seed.seed;
    let seeded = false;

    await serve(config, {
      migrate: true,
      announce: (app, url) => printBanner(app, url),
      beforeListen: async (app) => {
        const [row] = (await app
          .get(DataSource)
          .query(
            'SELECT (SELECT COUNT(*) FROM crypto_pair) + (SELECT COUNT(*) FROM merchant) + (SELECT COUNT(*) FROM payment_session) AS n',
          )) as { n: number }[];
        if (Number(row.n) === 0) {
          await app.get(SeedRunner).run(demoSeed);
          seeded = true;
        }
      },
    });

    /** The banner: what runs where, and the keys to use; the first thing the sandbox prints. */
    async function printBanner(app: INestApplication, url: string): Promise<void> {
      const demo = demoSeed.merchants?.find((m) => m.id === DEMO_MERCHANT_ID);
      const demoKey = await demoKeyLine(app.get(ApiKeyService), demo?.apiKeys?.[0]);
      const sandbox = config.checkout.sandbox;
      const lines = [
        '',
        `  Payment gateway read API (sandbox) at ${url}${sandbox ? '   (start here)' : ''}`,
        ...(sandbox
          ? [`  Demo shop:    ${url}/${DEMO_PATH}   (the whole checkout in one window)`]
          : []),
        `  Swagger UI:   ${url}/docs`,
        hostGiven
          ? `  Listening:    on ${config.host}, as HOST says`
          : `  Listening:    ${SANDBOX_HOST} only, this machine; set HOST=0.0.0.0 to open it to others`,
        seeded
          ? `  Demo data:    loaded from seeds/demo.json`
          : '  Demo data:    database not empty, nothing seeded',
        config.authMode === 'none'
          ? '  Auth:         AUTH_MODE=none, no key needed'
          : `  Demo API key: ${demoKey.text}`,
        `  Callbacks:    ${await demoSecretLine(app.get(CallbackSecretService), demo?.callbackSecret)}`,
        baseConfig.adminToken
          ? '  Operator API: Authorization: Bearer <your ADMIN_TOKEN>'
          : `  Operator API: Authorization: Bearer ${adminToken}   (this run only; set ADMIN_TOKEN to choose)`,
        `  Checkout:     POST ${url}/api/gateway/init-iframe, then ${url}/widgets/sgpg.js (docs/checkout.md)${sandbox ? '; the page lets you choose each outcome' : ''}`,
        // Quoted: a shell such as zsh reads `?` in a word as a pattern.
        `  Try:          curl ${config.authMode === 'none' ? '' : `-H 'key: ${demoKey.key ?? '<your key>'}' `}'${url}/api/crypto-currency-protocol-processors?countryCode=IE'`,
        '',
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    }
  },
  {
    ...process.env,
    ...(hostGiven ? {} : { HOST: SANDBOX_HOST }),
    // The sandbox's checkout page lets the tester choose each payment's outcome.
    CHECKOUT_SANDBOX: process.env.CHECKOUT_SANDBOX ?? 'true',
  },
);

/**
 * The banner's key line. The published demo key is advertised only while it works: an operator
 * may have revoked it, and a database seeded from elsewhere may not hold it at all.
 */
async function demoKeyLine(
  apiKeys: ApiKeyService,
  plaintext: string | undefined,
): Promise<{ key?: string; text: string }> {
  const known = plaintext ? await demoKeyState(apiKeys, plaintext) : undefined;
  if (plaintext && known?.state === 'active') {
    return { key: plaintext, text: `${plaintext}   (send it in the "key" header)` };
  }
  const what = known?.state === 'revoked' ? 'revoked' : 'not in this database';
  const keys = `/admin/merchants/${DEMO_MERCHANT_ID}/api-keys`;
  return {
    text:
      (known?.otherKeysActive ?? (await apiKeys.demoKeyActive()))
        ? `${what}; merchant "${DEMO_MERCHANT_ID}" has other working keys (GET ${keys})`
        : `${what}; create one with POST ${keys}`,
  };
}

/**
 * The banner's callback line: the published demo secret, while it is the demo merchant's
 * current one (the operator may have rotated it).
 */
async function demoSecretLine(
  secrets: CallbackSecretService,
  published: string | undefined,
): Promise<string> {
  if (published && (await demoSecretCurrent(secrets, published))) {
    return `the demo merchant's are signed with ${published}   (Standard Webhooks)`;
  }
  return "the demo merchant's secret was rotated: use the one POST /admin/merchants/demo/callback-secret answered";
}
