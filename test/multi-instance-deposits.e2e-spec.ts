import { jest } from '@jest/globals';
import pg from 'pg';
import { receiveAddresses } from '../src/deposits/deposit-address.js';
import { storedAccountKey } from '../src/deposits/extended-keys.js';
import { act, initIframe, initIframeBody, openPage, USDT_ON_TRON } from './support/checkout.js';
import { PUBLISHED } from './support/deposits.js';
import { MainProcess, startMain } from './support/main-process.js';
import { PostgresServer, startPostgres } from './support/servers.js';
import {
  ADMIN_TOKEN,
  adminHeaders as admin,
  http,
  TEST_AUDIT_KEY,
  TEST_CALLBACK_SECRET_KEY,
} from './support/test-app.js';

// Two processes on a PostgreSQL of their own: more than the default time per step.
jest.setTimeout(180_000);

let postgres: PostgresServer;
let a: MainProcess;
let b: MainProcess;
let shopKey: string;

async function query<T>(sql: string, parameters: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  try {
    return (await client.query(sql, parameters)).rows as T[];
  } finally {
    await client.end();
  }
}

/** A checkout started on `instance`: its token and its page's nonce, read on the other one. */
async function opened(instance: MainProcess, other: MainProcess, validationKey: string) {
  const answer = await initIframe(
    instance.url,
    initIframeBody(validationKey, 'http://127.0.0.1:9'),
    shopKey,
  );
  expect(answer.status).toBe(200);
  const token = answer.body.payload[0].initializationToken as string;
  const { page, nonce } = await openPage(other.url, token);
  expect(page.status).toBe(200);
  return { token, nonce };
}

/** Deposit addresses and reports on two instances sharing one PostgreSQL. */
describe('deposits on two instances (e2e)', () => {
  beforeAll(async () => {
    postgres = await startPostgres();
    const env = {
      DATABASE_URL: postgres.url,
      ADMIN_TOKEN,
      CALLBACK_SECRET_KEY: TEST_CALLBACK_SECRET_KEY,
      AUDIT_KEY: TEST_AUDIT_KEY,
      LOG_LEVEL: 'warn',
    };
    [a, b] = await Promise.all([startMain(env), startMain(env)]);
    expect(
      (
        await http(`${a.url}/admin/merchants`, {
          method: 'POST',
          headers: admin,
          body: { id: 'shop', name: 'Shop' },
        })
      ).status,
    ).toBe(201);
    shopKey = (
      await http(`${b.url}/admin/merchants/shop/api-keys`, { method: 'POST', headers: admin })
    ).body.apiKey;
    const setup = await Promise.all([
      http(`${a.url}/admin/crypto-pairs`, {
        method: 'POST',
        headers: admin,
        body: {
          currencyCode: 'USDT',
          currencyName: 'Tether',
          protocol: 'TRC20',
          countryCode: 'IE',
          settlement: USDT_ON_TRON,
        },
      }),
      http(`${b.url}/admin/merchants/shop/deposit-keys/tron`, {
        method: 'PUT',
        headers: admin,
        body: { extendedPublicKey: PUBLISHED.tron.key },
      }),
      http(`${a.url}/admin/rates/USDT`, {
        method: 'PUT',
        headers: admin,
        body: { fiat: 'EUR', price: '0.92' },
      }),
    ]);
    expect(setup.map((r) => r.status)).toEqual([201, 200, 200]);
  });

  afterAll(async () => {
    for (const instance of [a, b]) instance?.child.kill('SIGKILL');
    await postgres?.destroy();
  });

  it('gives every checkout its own address when pairs are chosen concurrently on both instances: no address twice, no index skipped', async () => {
    const sessions = 48;
    // The checkouts are opened one after another; their pairs are chosen all at once.
    const pages: { token: string; nonce: string }[] = [];
    for (let i = 0; i < sessions; i++) {
      pages.push(
        await opened(i % 2 ? a : b, i % 2 ? b : a, `vk_mi_addr_${String(i).padStart(2, '0')}`),
      );
    }
    const chosen = await Promise.all(
      pages.map(({ token, nonce }, i) =>
        act((i % 3 ? a : b).url, token, 'pair', { nonce, currencyCode: 'USDT', protocol: 'TRC20' }),
      ),
    );
    expect(chosen.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.text}`)).toEqual([]);
    const rows = await query<{ validation_key: string; address: string; address_index: number }>(
      'SELECT validation_key, address, address_index FROM deposit_address ORDER BY address_index',
    );
    expect(rows).toHaveLength(sessions);
    expect(rows.map((r) => r.address_index)).toEqual(Array.from({ length: sessions }, (_, i) => i));
    expect(new Set(rows.map((r) => r.validation_key)).size).toBe(sessions);
    // Each is the key's receive address at its index.
    const expected = receiveAddresses(storedAccountKey('tron', PUBLISHED.tron.key), 0, sessions);
    expect(rows.map((r) => r.address)).toEqual(expected);
    const [key] = await query<{ next_index: number }>('SELECT next_index FROM deposit_key');
    expect(key.next_index).toBe(sessions);
  });

  it('of the same reports raced on both instances, exactly one transition and one callback per session', async () => {
    const sessions = 12;
    const keys = Array.from(
      { length: sessions },
      (_, i) => `vk_mi_race_${String(i).padStart(2, '0')}`,
    );
    const pages: { token: string; nonce: string }[] = [];
    for (const [i, key] of keys.entries())
      pages.push(await opened(i % 2 ? a : b, i % 2 ? b : a, key));
    for (const [i, { token, nonce }] of pages.entries()) {
      const chosen = await act((i % 2 ? a : b).url, token, 'pair', {
        nonce,
        currencyCode: 'USDT',
        protocol: 'TRC20',
      });
      expect(chosen.status).toBe(200);
    }
    const addresses = new Map(
      (
        await query<{ validation_key: string; address: string }>(
          "SELECT validation_key, address FROM deposit_address WHERE validation_key LIKE 'vk_mi_race_%'",
        )
      ).map((row) => [row.validation_key, row.address]),
    );
    const report = (instance: MainProcess, body: unknown) =>
      http(`${instance.url}/admin/deposits`, { method: 'POST', headers: admin, body });
    const transfer = (key: string, n: number, amount: string) => ({
      network: 'tron',
      address: addresses.get(key),
      txid: `${key.slice(-2)}${String(n).padStart(62, '0')}`.replace(/_/g, '0'),
      index: 0,
      asset: USDT_ON_TRON.tokenContract,
      amount,
      confirmations: 20,
    });
    const answers = await Promise.all(
      keys.flatMap((key, i) =>
        i % 2
          ? // The same whole payment reported twice on each instance.
            [a, a, b, b].map((instance) => report(instance, transfer(key, 1, '10869566')))
          : // Two halves of the payment at once, one on each instance: the second judged sees both.
            [report(a, transfer(key, 1, '5434783')), report(b, transfer(key, 2, '5434783'))],
      ),
    );
    expect(answers.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.text}`)).toEqual([]);
    const transitions = await query<{ validation_key: string; n: string }>(
      "SELECT validation_key, COUNT(*) AS n FROM payment_session_transition WHERE validation_key LIKE 'vk_mi_race_%' AND to_status = 'SUCCESSFUL' GROUP BY validation_key ORDER BY validation_key",
    );
    expect(transitions.map((row) => [row.validation_key, Number(row.n)])).toEqual(
      keys.map((key) => [key, 1]),
    );
    const callbacks = await query<{ validation_key: string; n: string }>(
      "SELECT validation_key, COUNT(*) AS n FROM callback WHERE validation_key LIKE 'vk_mi_race_%' GROUP BY validation_key ORDER BY validation_key",
    );
    expect(callbacks.map((row) => [row.validation_key, Number(row.n)])).toEqual(
      keys.map((key) => [key, 1]),
    );
    const deposits = await query<{ n: string }>(
      "SELECT COUNT(*) AS n FROM deposit WHERE validation_key LIKE 'vk_mi_race_%'",
    );
    // One row per transfer, however often it was reported.
    expect(Number(deposits[0].n)).toBe(sessions + sessions / 2);
  });
});
