import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { mnemonicToAccount } from 'viem/accounts';
import type { Address } from 'viem';
import { startMain, type MainProcess } from '../../support/main-process.js';

/**
 * The real gateway for the watcher's end-to-end tests and benchmark: `node dist/main.js` (the
 * production entry point, the whole Nest pipeline main.ts sets up) on a SQLite file of its own,
 * in a process of its own, so it can be stopped and started again on the same port with the same
 * data, as a gateway that went away and came back.
 *
 * Only node built-ins, viem and the key libraries are imported: the benchmark loads this module
 * under tsx as well as jest.
 */

export const GATEWAY_ADMIN_TOKEN = 'watcher-e2e-admin-token-0123456789-abcdefgh';
const CALLBACK_SECRET_KEY = Buffer.alloc(32, 42).toString('base64');
const AUDIT_KEY = Buffer.alloc(32, 43).toString('base64');

/**
 * The merchant's wallet: a phrase of BIP39's test vectors that is neither the standard test phrase
 * (`abandon … about`, the sandbox's published keys, which production refuses) nor the phrase the
 * local node funds (`test … junk`), so nothing reaches its addresses but what a test sends there.
 */
export const MERCHANT_PHRASE =
  'legal winner thank year wave sausage worth useful legal winner thank yellow';

/** The watch-only key a merchant registers for EVM networks: the xpub of m/44'/60'/0'. */
export function merchantAccountKey(): string {
  return HDKey.fromMasterSeed(mnemonicToSeedSync(MERCHANT_PHRASE)).derive("m/44'/60'/0'")
    .publicExtendedKey;
}

/** The merchant's receive address `index` as its wallet derives it, from the private side. */
export function merchantAddress(index: number): Address {
  return mnemonicToAccount(MERCHANT_PHRASE, { addressIndex: index }).address;
}

export interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

/** One HTTP request; a JSON body is parsed. */
export async function call(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, body, text };
}

export class RealGateway {
  private constructor(
    private process: MainProcess,
    private readonly env: Record<string, string>,
    private readonly dir: string,
  ) {}

  /** Starts the gateway on a fresh SQLite file with `env` added to the tests' settings. */
  static async start(env: Record<string, string> = {}): Promise<RealGateway> {
    const dir = mkdtempSync(join(tmpdir(), 'watcher-gateway-'));
    const settings = {
      DATABASE_URL: `sqlite:${join(dir, 'gateway.sqlite')}`,
      ADMIN_TOKEN: GATEWAY_ADMIN_TOKEN,
      CALLBACK_SECRET_KEY,
      AUDIT_KEY,
      AUTH_MODE: 'api-key',
      LOG_LEVEL: 'warn',
      // A first callback attempt that fails is tried again a second later.
      CALLBACK_RETRY_SCHEDULE: '1',
      ...env,
    };
    return new RealGateway(await startMain(settings), settings, dir);
  }

  get url(): string {
    return this.process.url;
  }

  /** What the process wrote (its JSON log lines). */
  output(): string {
    return this.process.output();
  }

  /** Stops the process as a process manager does (SIGTERM); its port refuses connections. */
  async stop(): Promise<void> {
    if (this.process.child.exitCode !== null) return;
    const exited = this.process.exited;
    this.process.child.kill('SIGTERM');
    await exited;
  }

  /** Starts it again on the same port and the same database. */
  async restart(): Promise<void> {
    this.process = await startMain(this.env, { port: this.process.port });
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** A request with the admin token. */
  admin(path: string, method = 'GET', body?: unknown): Promise<Answer> {
    return call(`${this.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${GATEWAY_ADMIN_TOKEN}` },
      body,
    });
  }
}

/** An answer that must be `status`, or the setup step fails with what the gateway said. */
function expectStatus(answer: Answer, status: number, what: string): Answer {
  if (answer.status !== status) {
    throw new Error(`${what}: expected ${status}, got ${answer.status} ${answer.text}`);
  }
  return answer;
}

/** A pair of the catalog, as a shopper chooses it. */
export interface Pair {
  currencyCode: string;
  protocol: string;
}
export const TOKEN_PAIR: Pair = { currencyCode: 'TUSD', protocol: 'ERC20' };
export const COIN_PAIR: Pair = { currencyCode: 'ETH', protocol: 'ERC20' };

export interface Shop {
  merchantId: string;
  apiKey: string;
  callbackSecret: string;
  /** The `payments` operator token the watcher runs with. */
  watcherToken: string;
  /** The deposit key's answer: its fingerprint and first three receive addresses. */
  depositKey: { fingerprint: string; firstAddresses: string[] };
}

/**
 * What an operator does before a shopper can pay on an EVM chain, all through the admin API:
 * a merchant with an API key and a callback secret; the token pair and the coin pair with their
 * settlement on `chainId`; the merchant's watch-only key; a rate for each asset in euro; and an
 * operator of role `payments` for the watcher.
 */
export async function setUpShop(
  gateway: RealGateway,
  chain: {
    chainId: number;
    tokenContract: string;
    tokenDecimals: number;
    confirmations: number;
    tokenPrice?: string;
    coinPrice?: string;
  },
): Promise<Shop> {
  const merchantId = 'shop';
  expectStatus(
    await gateway.admin('/admin/merchants', 'POST', { id: merchantId, name: 'Shop' }),
    201,
    'create the merchant',
  );
  const apiKey = expectStatus(
    await gateway.admin(`/admin/merchants/${merchantId}/api-keys`, 'POST'),
    201,
    'create an API key',
  ).body.apiKey as string;
  const callbackSecret = expectStatus(
    await gateway.admin(`/admin/merchants/${merchantId}/callback-secret`, 'POST'),
    201,
    'set the callback secret',
  ).body.callbackSecret as string;
  const pairs = [
    {
      ...TOKEN_PAIR,
      currencyName: 'Test Dollar',
      settlement: {
        network: 'evm',
        chainId: chain.chainId,
        tokenContract: chain.tokenContract,
        decimals: chain.tokenDecimals,
        confirmations: chain.confirmations,
      },
    },
    {
      ...COIN_PAIR,
      currencyName: 'Ether',
      settlement: {
        network: 'evm',
        chainId: chain.chainId,
        decimals: 18,
        confirmations: chain.confirmations,
      },
    },
  ];
  for (const pair of pairs) {
    expectStatus(
      await gateway.admin('/admin/crypto-pairs', 'POST', { ...pair, countryCode: 'IE' }),
      201,
      `create the pair ${pair.currencyCode}/${pair.protocol}`,
    );
  }
  const key = expectStatus(
    await gateway.admin(`/admin/merchants/${merchantId}/deposit-keys/evm`, 'PUT', {
      extendedPublicKey: merchantAccountKey(),
    }),
    200,
    'register the deposit key',
  ).body;
  for (const [code, price] of [
    [TOKEN_PAIR.currencyCode, chain.tokenPrice ?? '0.92'],
    [COIN_PAIR.currencyCode, chain.coinPrice ?? '2000'],
  ]) {
    expectStatus(
      await gateway.admin(`/admin/rates/${code}`, 'PUT', { fiat: 'EUR', price }),
      200,
      `put the rate of ${code}`,
    );
  }
  const watcherToken = expectStatus(
    await gateway.admin('/admin/operators', 'POST', { name: 'watcher-local', role: 'payments' }),
    201,
    'create the watcher operator',
  ).body.token as string;
  return {
    merchantId,
    apiKey,
    callbackSecret,
    watcherToken,
    depositKey: { fingerprint: key.fingerprint, firstAddresses: key.firstAddresses },
  };
}

/** What the checkout page shows once a pair is chosen (its `payment`). */
export interface Payment {
  pair: string;
  address: Address;
  amount: string;
  amountAtomic: string;
  chainId?: number;
  tokenContract?: string;
  confirmationsRequired: number;
  progress: {
    state: 'waiting' | 'seen' | 'underpaid' | 'paid';
    confirmations?: number;
    received: { amount: string; amountAtomic: string };
    remaining: { amount: string; amountAtomic: string };
  };
}

export interface Checkout {
  validationKey: string;
  token: string;
  payment: Payment;
}

/**
 * A checkout of 10.00 EUR started by init-iframe as a merchant's server does, its page opened and
 * `pair` chosen on it as the page's script does (over HTTP): the payment the page then shows.
 */
export async function payingCheckout(
  gateway: RealGateway,
  shop: Shop,
  validationKey: string,
  receiverUrl: string,
  pair: Pair,
): Promise<Checkout> {
  const started = expectStatus(
    await call(`${gateway.url}/api/gateway/init-iframe`, {
      method: 'POST',
      headers: { key: shop.apiKey, 'x-api-version': '1' },
      body: {
        money: { amount: '10.00', currency: 'EUR' },
        client: {
          firstName: 'Ann',
          lastName: 'Lee',
          phone: '871234567',
          dialingCode: '+353',
          nationality: 'IE',
          emailAddress: 'ann.lee.checkout@example.org',
          dob: '1990-01-31',
        },
        address: { addressLine1: '1 Main St', countryCode: 'IE', city: 'Dublin' },
        validationKey,
        clientReference: 'cust-42',
        traceId: `trace-${validationKey}`,
        description: `order ${validationKey}`,
        destinationAccountNumber: '5001000001223369',
        brandId: '001',
        returnUrl: `${receiverUrl}/return`,
        errorUrl: `${receiverUrl}/error`,
        languagePreference: 'EN',
      },
    }),
    200,
    'init-iframe',
  );
  const token = started.body.payload[0].initializationToken as string;
  const page = expectStatus(await call(`${gateway.url}/checkout/${token}`), 200, 'open the page');
  const nonce = /data-nonce="([^"]*)"/.exec(page.text)?.[1] ?? '';
  expectStatus(
    await call(`${gateway.url}/checkout/${token}/pair`, {
      method: 'POST',
      body: { nonce, ...pair },
    }),
    200,
    'choose the pair',
  );
  return { validationKey, token, payment: await paymentOf(gateway, token) };
}

/** Where the checkout stands, as the page's script polls it (`/checkout/{token}/status`). */
export async function pageStateOf(
  gateway: RealGateway,
  token: string,
): Promise<{ status: string; stage: string; payment?: Payment }> {
  const answer = expectStatus(
    await call(`${gateway.url}/checkout/${token}/status`),
    200,
    'the page status',
  );
  return answer.body.payload[0];
}

/** The payment as the page shows it while the session is open. */
export async function paymentOf(gateway: RealGateway, token: string): Promise<Payment> {
  const { payment, status } = await pageStateOf(gateway, token);
  if (!payment) throw new Error(`the page shows no payment step (the session is ${status})`);
  return payment;
}

/** The merchant's status lookup of a session. */
export async function statusOf(
  gateway: RealGateway,
  shop: Shop,
  validationKey: string,
): Promise<{ status: string; [field: string]: unknown }> {
  const answer = expectStatus(
    await call(`${gateway.url}/api/gateway/payment-status/${validationKey}`, {
      headers: { key: shop.apiKey },
    }),
    200,
    'the status lookup',
  );
  return answer.body.payload[0];
}

/**
 * A key and a self-signed certificate for 127.0.0.1, made by `openssl` in `dir`: the merchant's
 * callback receiver serves https with them, and the gateway trusts the certificate through
 * NODE_EXTRA_CA_CERTS, as a production gateway trusts a merchant's public certificate.
 */
export function loopbackCertificate(dir: string): { key: Buffer; cert: Buffer; certFile: string } {
  const keyFile = join(dir, 'receiver-key.pem');
  const certFile = join(dir, 'receiver-cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyFile), cert: readFileSync(certFile), certFile };
}

/**
 * The gateway as deployed: NODE_ENV=production (callbacks only to https URLs), trusting the
 * receiver's certificate, and allowed to deliver to it on loopback (production refuses private
 * addresses unless told).
 */
export function productionEnv(certFile: string): Record<string, string> {
  return {
    NODE_ENV: 'production',
    NODE_EXTRA_CA_CERTS: certFile,
    CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
  };
}
