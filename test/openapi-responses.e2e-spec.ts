import { jest } from '@jest/globals';
import AjvModule from 'ajv';
import type { ValidateFunction } from 'ajv';
import formatsModule from 'ajv-formats';
import { DataSource } from 'typeorm';
import { CatalogService } from '../src/catalog/catalog.service.js';
import { RATE_LIMIT_HEADERS, RETRY_AFTER_HEADER } from '../src/openapi/endpoint-docs.js';
import { CHECKOUT_REFUSALS_LIMIT } from '../src/checkout/checkout-refusals.js';
import { ServiceState } from '../src/common/service-state.js';
import { MerchantService } from '../src/merchants/merchant.service.js';
import {
  http,
  HttpResult,
  startTestApp,
  TestApp,
  adminHeaders as admin,
} from './support/test-app.js';
import { successfulResponse } from './support/fixtures.js';
import { initIframeBody } from './support/checkout.js';
import { Webhook } from 'standardwebhooks';
import { publishedDemoMerchant } from '../src/sandbox/demo-merchant.js';
import { SANDBOX_DEPOSIT_KEYS } from '../src/deposits/sandbox-keys.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Doc = any;

const Ajv = AjvModule.default;
const addFormats = formatsModule.default;

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
/** Headers whose presence the document states exactly: sent if and only if declared. */
const EXACT_HEADERS = [...Object.keys(RATE_LIMIT_HEADERS), RETRY_AFTER_HEADER].map((h) =>
  h.toLowerCase(),
);

const DEMO_KEY = 'demo-key-0123456789-abcdefghijklmnopqrstuvwxyz';
const OTHER_KEY = 'other-key-0123456789-abcdefghijklmnopqrstuvwxyz';
const SPARE_KEY = 'spare-key-0123456789-abcdefghijklmnopqrstuvwxyz';
const DEMO_SESSION = 'vk_contract_successful_0001';
const OTHER_SESSION = 'vk_contract_other_0001';
const BIG_BODY = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 16) });
/** Shaped like a checkout token, opening nothing. */
const UNKNOWN_TOKEN = `ct_${'u'.repeat(43)}`;
/** Nothing listens there: callbacks stay to be retried, which is all these tests need. */
const NOWHERE = 'http://127.0.0.1:9';
/** The standard test phrase's first EVM receive address: the sandbox's first EVM deposit address. */
const SANDBOX_EVM_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';

const seed = {
  cryptoPairs: [
    { currencyCode: 'USDT', currencyName: 'Tether', protocol: 'TRC20', countryCode: 'IE' },
    { currencyCode: 'BTC', currencyName: 'Bitcoin', protocol: 'BITCOIN', countryCode: 'IE' },
  ],
  merchants: [
    // The operator examples of the document name the sandbox's merchant, `demo`.
    // The demo shop of the sandbox calls init-iframe with the published key.
    { id: 'demo', name: 'Demo', apiKeys: [DEMO_KEY, SPARE_KEY, publishedDemoMerchant().apiKey] },
    { id: 'other', name: 'Other', apiKeys: [OTHER_KEY] },
  ],
  paymentSessions: [
    {
      validationKey: DEMO_SESSION,
      merchantId: 'demo',
      status: 'SUCCESSFUL',
      paymentResponse: successfulResponse({ accountNumber: 'IE29AIBK93115212345678' }),
    },
    { validationKey: OTHER_SESSION, merchantId: 'other', status: 'PENDING' },
  ],
};

interface Call {
  params?: Record<string, string | number>;
  query?: string;
  headers?: Record<string, string>;
  body?: unknown;
  rawBody?: string;
  contentType?: string;
}

/**
 * The document of a running app and a checker of real answers against it: every answer's status
 * must be documented for its operation, its body must validate against the documented schema,
 * its required headers must be there (and valid), and the rate-limit and Retry-After headers must
 * be sent exactly where the document declares them.
 */
class Contract {
  readonly exercised = new Set<string>();
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(
    readonly t: TestApp,
    readonly doc: Doc,
  ) {
    addFormats(this.ajv);
    // Local references resolve against the document, registered once under an id of its own.
    this.ajv.addSchema({ components: this.absolute(doc.components) }, 'openapi');
  }

  static async of(t: TestApp): Promise<Contract> {
    const r = await http(t.url + '/docs-json');
    expect(r.status).toBe(200);
    return new Contract(t, r.body);
  }

  operation(operationId: string): { path: string; method: string; op: any } {
    for (const [path, item] of Object.entries<any>(this.doc.paths)) {
      for (const method of METHODS) {
        if (item[method]?.operationId === operationId) return { path, method, op: item[method] };
      }
    }
    throw new Error(`operation ${operationId} is not documented`);
  }

  /** Calls an operation as a client would, and checks the answer against the document. */
  async call(operationId: string, expected: unknown, call: Call = {}): Promise<HttpResult> {
    const { path, method, op } = this.operation(operationId);
    const concrete = path.replace(/\{(\w+)\}/g, (_m, name: string) => {
      const value = call.params?.[name];
      if (value === undefined) throw new Error(`${operationId}: no value for {${name}}`);
      return encodeURIComponent(String(value));
    });
    const headers: Record<string, string> = { ...call.headers };
    if (call.contentType) headers['content-type'] = call.contentType;
    const result = await http(`${this.t.url}${concrete}${call.query ? `?${call.query}` : ''}`, {
      method: method.toUpperCase(),
      headers,
      body: call.body,
      rawBody: call.rawBody,
    });
    const where = `${method.toUpperCase()} ${path} (${operationId}) → ${result.status}`;
    expect({ where, status: result.status, body: result.text.slice(0, 300) }).toEqual({
      where,
      status: expected,
      body: expect.any(String),
    });
    const response = this.deref(op.responses?.[String(result.status)]);
    expect({ where, documented: response !== undefined }).toEqual({ where, documented: true });
    this.checkAnswer(where, `${operationId} ${result.status}`, response, result);
    this.exercised.add(`${operationId} ${result.status}`);
    return result;
  }

  /** Checks an answer against a documented response object. */
  checkAnswer(where: string, key: string, response: any, result: HttpResult): void {
    const content = response.content ?? {};
    const mediaTypes = Object.keys(content);
    if (mediaTypes.length === 0) {
      expect({ where, body: result.text }).toEqual({ where, body: '' });
    } else {
      const type = result.headers.get('content-type') ?? '';
      const mediaType = mediaTypes.find((m) => type.startsWith(m));
      expect({ where, type, documented: mediaType !== undefined }).toEqual({
        where,
        type,
        documented: true,
      });
      const schema = content[mediaType!].schema;
      if (schema && mediaType === 'application/json') {
        const validate = this.validator(key, schema);
        const valid = validate(result.body);
        expect({ where, errors: valid ? [] : validate.errors }).toEqual({ where, errors: [] });
      }
    }
    const declared = Object.fromEntries(
      Object.entries<any>(response.headers ?? {}).map(([name, h]) => [
        name.toLowerCase(),
        this.deref(h),
      ]),
    );
    for (const [name, header] of Object.entries<any>(declared)) {
      const value = result.headers.get(name);
      if (header.required) {
        expect({ where, header: name, present: value !== null }).toEqual({
          where,
          header: name,
          present: true,
        });
      }
      if (value !== null && header.schema) {
        const validate = this.validator(`${key} header ${name}`, header.schema);
        const typed = ['integer', 'number'].includes(header.schema.type) ? Number(value) : value;
        expect({ where, header: name, value, valid: validate(typed) }).toEqual({
          where,
          header: name,
          value,
          valid: true,
        });
      }
    }
    for (const name of EXACT_HEADERS) {
      if (result.headers.has(name)) {
        expect({ where, header: name, declared: name in declared }).toEqual({
          where,
          header: name,
          declared: true,
        });
      }
    }
  }

  private validator(key: string, schema: any): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(this.absolute(schema));
      this.validators.set(key, validate);
    }
    return validate;
  }

  /** The schema with its local references made to point into the registered document. */
  private absolute(schema: any): any {
    return JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi#/components/'));
  }

  deref(node: any): any {
    if (node && typeof node.$ref === 'string') {
      const target = node.$ref
        .replace(/^#\//, '')
        .split('/')
        .reduce((at: any, part: string) => at?.[part], this.doc);
      return this.deref(target);
    }
    return node;
  }

  /** Every operation with its documented statuses. */
  documented(): { operationId: string; path: string; method: string; statuses: string[] }[] {
    return Object.entries<any>(this.doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((method) => ({
        operationId: item[method].operationId,
        path,
        method,
        statuses: Object.keys(item[method].responses),
      })),
    );
  }
}

const wrongToken = { authorization: `Bearer ${'w'.repeat(40)}` };
const merchant = { key: DEMO_KEY };
const json = 'application/json';

/** Path parameters that name things that exist in the seeded app. */
const existing: Record<string, Record<string, string | number>> = {
  getPaymentStatus: { validationKey: DEMO_SESSION },
  updateCryptoPair: { id: 1 },
  deleteCryptoPair: { id: 1 },
  reportPaymentSession: { validationKey: 'vk_contract_new_0001' },
  getPaymentSessionHistory: { validationKey: DEMO_SESSION },
  createApiKey: { id: 'demo' },
  listApiKeys: { id: 'demo' },
  revokeApiKey: { id: 'demo', keyId: '00000000-0000-4000-8000-000000000000' },
  rotateCallbackSecret: { id: 'demo' },
  listPaymentSessionCallbacks: { validationKey: DEMO_SESSION },
  redeliverCallback: { id: '00000000-0000-4000-8000-000000000000' },
  erasePaymentSessionPersonalData: { validationKey: DEMO_SESSION },
  revokeOperator: { id: '00000000-0000-4000-8000-000000000000' },
  getWidgetScript: { script: 'sgpg.js' },
  getCheckoutPage: { token: UNKNOWN_TOKEN },
  getCheckoutState: { token: UNKNOWN_TOKEN },
  chooseCheckoutPair: { token: UNKNOWN_TOKEN },
  decideCheckoutOutcome: { token: UNKNOWN_TOKEN },
  cancelCheckout: { token: UNKNOWN_TOKEN },
  sendSandboxDeposit: { token: UNKNOWN_TOKEN },
  getCheckoutQrCode: { token: UNKNOWN_TOKEN },
  getPaymentSession: { validationKey: DEMO_SESSION },
  updateMerchant: { id: 'demo' },
  getDemoPayment: { validationKey: 'vk_demo_none' },
  receiveDemoCallback: { kind: 'return' },
  putDepositKey: { id: 'demo', network: 'evm' },
  listDepositKeys: { id: 'demo' },
  deleteDepositKey: { id: 'demo', network: 'evm' },
  putRate: { currencyCode: 'USDT' },
};

/** The credentials of an operation's security scheme. */
function credentialsFor(op: any): Record<string, string> {
  const schemes = (op.security ?? []).flatMap((r: object) => Object.keys(r));
  if (schemes.includes('apiKey')) return merchant;
  if (schemes.includes('adminToken')) return admin;
  return open;
}
const open = {};

/** Health needs no credentials and is never limited; liveness never touches the database. */
const PUBLIC = ['getLiveness', 'getReadiness'];

/** Every status the document declares is answered for real, and answered as declared (e2e). */
describe('OpenAPI document against real answers (e2e)', () => {
  let t: TestApp;
  let c: Contract;
  let limited: TestApp;
  let cl: Contract;
  /** A deployment without ADMIN_TOKEN: its operator routes are closed to all but operators. */
  let closed: TestApp;
  let cc: Contract;

  beforeAll(async () => {
    // The sandbox: the checkout page's outcome action answers only there.
    t = await startTestApp({ AUTH_MODE: 'api-key', CHECKOUT_SANDBOX: 'true' });
    await t.seed(seed);
    c = await Contract.of(t);
    limited = await startTestApp({
      AUTH_MODE: 'api-key',
      CHECKOUT_SANDBOX: 'true',
      RATE_LIMIT_PER_MINUTE: '3',
      RATE_LIMIT_STATUS_NOT_FOUND_PER_MINUTE: '1',
    });
    await limited.seed(seed);
    cl = await Contract.of(limited);
    closed = await startTestApp({ AUTH_MODE: 'api-key', ADMIN_TOKEN: '' });
    await closed.seed(seed);
    cc = await Contract.of(closed);
  });
  afterAll(async () => {
    await t?.close();
    await limited?.close();
    await closed?.close();
  });

  it('the public catalog and its alias: 200, 304, 400, 401', async () => {
    for (const operationId of ['listCryptoPairs', 'listCryptoPairsSingularAlias']) {
      const ok = await c.call(operationId, 200, { headers: merchant, query: 'countryCode=ie' });
      expect(ok.body.payload.map((p: any) => p.currencyCode)).toEqual(['BTC', 'USDT']);
      await c.call(operationId, 304, {
        headers: { ...merchant, 'if-none-match': ok.headers.get('etag')! },
        query: 'countryCode=ie',
      });
      await c.call(operationId, 400, { headers: merchant, query: 'countryCode=IRL&page=1&page=2' });
      await c.call(operationId, 401, {});
      await c.call(operationId, 401, { headers: { key: 'no-such-key' } });
    }
  });

  it('the payment status: 200 of each shape, 404 for unknown and foreign keys, 401', async () => {
    const ok = await c.call('getPaymentStatus', 200, {
      headers: merchant,
      params: { validationKey: DEMO_SESSION },
    });
    expect(ok.body.payload[0].status).toBe('SUCCESSFUL');
    for (const status of ['PENDING', 'NOT_COMPLETED', 'FAILED']) {
      const validationKey = `vk_contract_${status.toLowerCase()}`;
      await c.call('reportPaymentSession', 201, {
        headers: admin,
        params: { validationKey },
        body: {
          merchantId: 'demo',
          status,
          ...(status === 'FAILED' ? { errorMessage: 'Declined', detailedStatus: 'DECLINED' } : {}),
        },
      });
      const shape = await c.call('getPaymentStatus', 200, {
        headers: merchant,
        params: { validationKey },
      });
      expect(shape.body.payload[0].status).toBe(status);
    }
    await c.call('getPaymentStatus', 404, {
      headers: merchant,
      params: { validationKey: 'vk_no_such' },
    });
    await c.call('getPaymentStatus', 404, {
      headers: merchant,
      params: { validationKey: OTHER_SESSION },
    });
    await c.call('getPaymentStatus', 404, {
      headers: merchant,
      params: { validationKey: 'k'.repeat(300) },
    });
    await c.call('getPaymentStatus', 401, { params: { validationKey: DEMO_SESSION } });
  });

  it('the operator catalog: success, 400, 404, 409, 413, 415', async () => {
    await c.call('listAllCryptoPairs', 200, { headers: admin });
    await c.call('listAllCryptoPairs', 400, { headers: admin, query: 'size=0' });
    const pair = {
      currencyCode: 'ETH',
      currencyName: 'Ether',
      protocol: 'ERC20',
      countryCode: 'DE',
    };
    const created = await c.call('createCryptoPair', 201, { headers: admin, body: pair });
    await c.call('createCryptoPair', 409, { headers: admin, body: pair });
    await c.call('createCryptoPair', 400, { headers: admin, body: { ...pair, countryCode: 'D' } });
    const id = created.body.id;
    await c.call('updateCryptoPair', 200, {
      headers: admin,
      params: { id },
      body: { enabled: false },
    });
    await c.call('updateCryptoPair', 404, {
      headers: admin,
      params: { id: 999999 },
      body: { enabled: false },
    });
    await c.call('updateCryptoPair', 400, { headers: admin, params: { id: 'abc' }, body: {} });
    await c.call('deleteCryptoPair', 204, { headers: admin, params: { id } });
    await c.call('deleteCryptoPair', 404, { headers: admin, params: { id } });
    await c.call('deleteCryptoPair', 400, { headers: admin, params: { id: 'abc' } });
  });

  it('payment sessions: 201, 200, 409, 400, history 200 and 404', async () => {
    const validationKey = 'vk_contract_moves_0001';
    const report = (status: string) => ({ merchantId: 'demo', status });
    await c.call('reportPaymentSession', 201, {
      headers: admin,
      params: { validationKey },
      body: report('PENDING'),
    });
    await c.call('reportPaymentSession', 200, {
      headers: admin,
      params: { validationKey },
      body: { ...report('FAILED'), errorMessage: 'Declined' },
    });
    await c.call('reportPaymentSession', 409, {
      headers: admin,
      params: { validationKey },
      body: report('PENDING'),
    });
    await c.call('reportPaymentSession', 400, {
      headers: admin,
      params: { validationKey: 'vk_contract_bad_0001' },
      body: report('DONE'),
    });
    const history = await c.call('getPaymentSessionHistory', 200, {
      headers: admin,
      params: { validationKey },
    });
    // The first transition comes from nothing: `from` is null, and the schema says it may be.
    expect(history.body.payload.map((p: any) => [p.from, p.to])).toEqual([
      [null, 'PENDING'],
      ['PENDING', 'FAILED'],
    ]);
    await c.call('getPaymentSessionHistory', 404, {
      headers: admin,
      params: { validationKey: 'vk_no_such' },
    });
    await c.call('getPaymentSessionHistory', 400, {
      headers: admin,
      params: { validationKey: 'vk\u007f' },
    });
  });

  it('merchants and keys: 201, 200, 204, 400, 404, 409', async () => {
    await c.call('listMerchants', 200, { headers: admin });
    await c.call('listMerchants', 400, { headers: admin, query: 'page=-1' });
    const merchantBody = { id: 'initech', name: 'Initech' };
    await c.call('createMerchant', 201, { headers: admin, body: merchantBody });
    await c.call('createMerchant', 409, { headers: admin, body: merchantBody });
    await c.call('createMerchant', 400, { headers: admin, body: { id: '-x', name: '' } });
    const key = await c.call('createApiKey', 201, { headers: admin, params: { id: 'initech' } });
    await c.call('createApiKey', 404, { headers: admin, params: { id: 'nobody' } });
    await c.call('createApiKey', 400, { headers: admin, params: { id: '_bad' } });
    await c.call('listApiKeys', 200, { headers: admin, params: { id: 'initech' } });
    await c.call('listApiKeys', 404, { headers: admin, params: { id: 'nobody' } });
    await c.call('listApiKeys', 400, {
      headers: admin,
      params: { id: 'initech' },
      query: 'size=0',
    });
    await c.call('revokeApiKey', 204, {
      headers: admin,
      params: { id: 'initech', keyId: key.body.keyId },
    });
    await c.call('revokeApiKey', 404, {
      headers: admin,
      params: { id: 'initech', keyId: '00000000-0000-4000-8000-000000000000' },
    });
    await c.call('revokeApiKey', 400, {
      headers: admin,
      params: { id: 'initech', keyId: 'not-a-uuid' },
    });
  });

  it("merchants' deposit keys: 200, 204, 400, 404, 409", async () => {
    const params = { id: 'other', network: 'bitcoin' };
    const zpub = SANDBOX_DEPOSIT_KEYS.bitcoin;
    await c.call('putDepositKey', 200, {
      headers: admin,
      params,
      body: { extendedPublicKey: zpub },
    });
    await c.call('putDepositKey', 400, {
      headers: admin,
      params,
      body: { extendedPublicKey: 'xprv-not-a-key' },
    });
    await c.call('putDepositKey', 404, {
      headers: admin,
      params: { ...params, id: 'nobody' },
      body: { extendedPublicKey: zpub },
    });
    await c.call('putDepositKey', 409, {
      headers: admin,
      params: { ...params, id: 'demo' },
      body: { extendedPublicKey: zpub },
    });
    const listed = await c.call('listDepositKeys', 200, {
      headers: admin,
      params: { id: 'other' },
    });
    expect(listed.body.payload.map((k: any) => k.network)).toEqual(['bitcoin']);
    await c.call('listDepositKeys', 404, { headers: admin, params: { id: 'nobody' } });
    await c.call('listDepositKeys', 400, { headers: admin, params: { id: '_bad' } });
    await c.call('deleteDepositKey', 204, { headers: admin, params });
    await c.call('deleteDepositKey', 404, { headers: admin, params });
    await c.call('deleteDepositKey', 400, { headers: admin, params: { ...params, network: 'x' } });
  });

  it('rates: 200, 400', async () => {
    const params = { currencyCode: 'usdt' };
    const put = await c.call('putRate', 200, {
      headers: admin,
      params,
      body: { fiat: 'EUR', price: '0.93' },
    });
    expect(put.body).toMatchObject({ currencyCode: 'USDT', stale: false });
    await c.call('putRate', 400, { headers: admin, params, body: { fiat: 'EUR', price: 0.93 } });
    const listed = await c.call('listRates', 200, { headers: admin });
    expect(listed.body.payload).toContainEqual(put.body);
  });

  it('deposits a watcher reports: 200, 400, 404', async () => {
    // A pair paid on chain in the sandbox: the demo merchant's published EVM key, the demo price.
    await c.call('createCryptoPair', 201, {
      headers: admin,
      body: {
        currencyCode: 'ETH',
        currencyName: 'Ether',
        protocol: 'ERC20',
        countryCode: 'FR',
        settlement: { network: 'evm', chainId: 1, decimals: 18, confirmations: 12 },
      },
    });
    const body = initIframeBody('vk_contract_deposit', NOWHERE, {
      address: { addressLine1: '1 rue de Rivoli', countryCode: 'FR', city: 'Paris' },
    });
    const started = await c.call('initIframe', 200, { headers: merchant, body });
    const params = { token: started.body.payload[0].initializationToken };
    const page = await c.call('getCheckoutPage', 200, { params });
    const nonce = /data-nonce="([^"]+)"/.exec(page.text)![1];
    await c.call('chooseCheckoutPair', 200, {
      params,
      body: { nonce, currencyCode: 'ETH', protocol: 'ERC20' },
    });
    const state = await c.call('getCheckoutState', 200, { params });
    const { address } = state.body.payload[0].payment;
    expect(address).toBe(SANDBOX_EVM_ADDRESS);
    const qr = await c.call('getCheckoutQrCode', 200, { params });
    expect(qr.text).toMatch(/^<svg /);
    await c.call('getCheckoutQrCode', 404, { params: { token: UNKNOWN_TOKEN } });
    // The sandbox's deposit button: refusals first, which leave the nonce unspent.
    const fresh = await c.call('getCheckoutPage', 200, { params });
    const pageNonce = /data-nonce="([^"]+)"/.exec(fresh.text)![1];
    await c.call('sendSandboxDeposit', 400, { params, body: { nonce: pageNonce, amount: 'all' } });
    await c.call('sendSandboxDeposit', 403, {
      params,
      body: { nonce: 'A'.repeat(32), amount: 'full' },
    });
    await c.call('sendSandboxDeposit', 404, {
      params: { token: UNKNOWN_TOKEN },
      body: { nonce: pageNonce, amount: 'full' },
    });
    const sent = await c.call('sendSandboxDeposit', 200, {
      params,
      body: { nonce: pageNonce, amount: 'under' },
    });
    expect(sent.body.payload[0].payment.progress.state).toBe('seen');
    const unpaid = await c.call('initIframe', 200, {
      headers: merchant,
      body: initIframeBody('vk_contract_no_chain', NOWHERE),
    });
    const unpaidParams = { token: unpaid.body.payload[0].initializationToken };
    const unpaidPage = await c.call('getCheckoutPage', 200, { params: unpaidParams });
    const unpaidNonce = /data-nonce="([^"]+)"/.exec(unpaidPage.text)![1];
    await c.call('chooseCheckoutPair', 200, {
      params: unpaidParams,
      body: { nonce: unpaidNonce, currencyCode: 'USDT', protocol: 'TRC20' },
    });
    const chosenPage = await c.call('getCheckoutPage', 200, { params: unpaidParams });
    await c.call('sendSandboxDeposit', 409, {
      params: unpaidParams,
      body: { nonce: /data-nonce="([^"]+)"/.exec(chosenPage.text)![1], amount: 'full' },
    });
    const transfer = {
      network: 'evm',
      address,
      txid: `0x${'1'.repeat(64)}`,
      index: 0,
      asset: 'native',
      amount: '3333333333333334',
      confirmations: 1,
    };
    const seen = await c.call('reportDeposit', 200, { headers: admin, body: transfer });
    expect(seen.body.payload[0]).toMatchObject({ counted: false, session: { status: 'PENDING' } });
    await c.call('reportDeposit', 400, { headers: admin, body: { ...transfer, amount: 1 } });
    await c.call('reportDeposit', 404, {
      headers: admin,
      body: { ...transfer, address: '0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C1' },
    });
    const listed = await c.call('listWatchedAddresses', 200, {
      headers: admin,
      query: 'network=evm&chainId=1&size=1',
    });
    expect(listed.body.payload[0]).toMatchObject({ address, sessionFinal: false });
    await c.call('listWatchedAddresses', 400, { headers: admin, query: 'network=tron&chainId=1' });
    const deposits = await c.call('listDeposits', 200, { headers: admin, query: 'size=1' });
    expect(deposits.body.payload[0]).toMatchObject({ txid: transfer.txid, counted: false });
    await c.call('listDeposits', 400, { headers: admin, query: 'flagged=maybe' });
  });

  it('callbacks and their secret: 200, 201, 202, 400, 404', async () => {
    const validationKey = 'vk_contract_callback_0001';
    // Nothing listens there: the callback stays to be retried, which is all this needs.
    const returnUrl = 'http://127.0.0.1:9/callback';
    await c.call('reportPaymentSession', 201, {
      headers: admin,
      params: { validationKey },
      body: { merchantId: 'demo', status: 'PENDING', returnUrl },
    });
    await c.call('reportPaymentSession', 200, {
      headers: admin,
      params: { validationKey },
      body: { merchantId: 'demo', status: 'FAILED', errorMessage: 'Declined' },
    });
    const listed = await c.call('listPaymentSessionCallbacks', 200, {
      headers: admin,
      params: { validationKey },
    });
    expect(listed.body.payload).toHaveLength(1);
    await c.call('listPaymentSessionCallbacks', 404, {
      headers: admin,
      params: { validationKey: 'vk_no_such' },
    });
    await c.call('listPaymentSessionCallbacks', 400, {
      headers: admin,
      params: { validationKey: 'vk\u007f' },
    });
    await c.call('redeliverCallback', 202, {
      headers: admin,
      params: { id: listed.body.payload[0].id },
    });
    await c.call('redeliverCallback', 404, { headers: admin, params: existing.redeliverCallback });
    await c.call('redeliverCallback', 400, { headers: admin, params: { id: 'not-a-uuid' } });
    await c.call('rotateCallbackSecret', 201, { headers: admin, params: { id: 'demo' } });
    await c.call('rotateCallbackSecret', 404, { headers: admin, params: { id: 'nobody' } });
    await c.call('rotateCallbackSecret', 400, { headers: admin, params: { id: '_bad' } });
  });

  it('operators, the audit trail and personal data: 200, 201, 204, 400, 404, 409', async () => {
    const created = await c.call('createOperator', 201, {
      headers: admin,
      body: { name: 'contract-alice', role: 'viewer' },
    });
    await c.call('createOperator', 409, {
      headers: admin,
      body: { name: 'contract-alice', role: 'admin' },
    });
    await c.call('createOperator', 400, { headers: admin, body: { name: '', role: 'owner' } });
    await c.call('listOperators', 200, { headers: admin });
    await c.call('listOperators', 400, { headers: admin, query: 'size=0' });
    await c.call('revokeOperator', 204, { headers: admin, params: { id: created.body.id } });
    await c.call('revokeOperator', 404, { headers: admin, params: existing.revokeOperator });
    await c.call('revokeOperator', 400, { headers: admin, params: { id: 'not-a-uuid' } });
    await c.call('listAuditEvents', 200, { headers: admin, query: 'action=createOperator' });
    await c.call('listAuditEvents', 400, { headers: admin, query: 'from=yesterday' });
    const head = await c.call('getAuditHead', 200, { headers: admin });
    const verified = await c.call('verifyAuditTrail', 200, { headers: admin });
    expect(verified.body.valid).toBe(true);
    const kept = `head=${head.body.headHash}&events=${head.body.events}`;
    const still = await c.call('verifyAuditTrail', 200, { headers: admin, query: kept });
    expect(still.body.valid).toBe(true);
    await c.call('verifyAuditTrail', 400, { headers: admin, query: 'events=3' });
    await c.call('erasePaymentSessionPersonalData', 204, {
      headers: admin,
      params: { validationKey: DEMO_SESSION },
    });
    await c.call('erasePaymentSessionPersonalData', 404, {
      headers: admin,
      params: { validationKey: 'vk_no_such' },
    });
    await c.call('erasePaymentSessionPersonalData', 400, {
      headers: admin,
      params: { validationKey: 'vk\u007f' },
    });
  });

  it('the checkout: init-iframe, the widget, the page and its actions', async () => {
    const body = initIframeBody('vk_contract_checkout', NOWHERE);
    const started = await c.call('initIframe', 200, { headers: merchant, body });
    await c.call('initIframe', 200, { headers: merchant, body });
    await c.call('initIframe', 409, { headers: merchant, body: { ...body, description: 'x' } });
    await c.call('initIframe', 400, {
      headers: merchant,
      body: { ...body, money: { amount: '0', currency: 'EUR' } },
    });
    await c.call('getWidgetScriptAtHostRoot', 200);
    await c.call('getWidgetScript', 200, { params: { script: 'sgpg.js' }, query: 'v=2' });
    await c.call('getWidgetScript', 404, { params: { script: 'other.js' } });
    await c.call('getCheckoutPageScript', 200);
    await c.call('getCheckoutPageStylesheet', 200);

    const token = started.body.payload[0].initializationToken as string;
    const params = { token };
    const unknown = { token: UNKNOWN_TOKEN };
    const pageNonce = async () => {
      const page = await c.call('getCheckoutPage', 200, { params });
      return /data-nonce="([^"]+)"/.exec(page.text)![1];
    };
    let nonce = await pageNonce();
    await c.call('getCheckoutPage', 400, { params, query: `origin=${'o'.repeat(301)}` });
    await c.call('getCheckoutPage', 404, { params: unknown });
    const state = await c.call('getCheckoutState', 200, { params });
    expect(state.body.payload[0]).toEqual({ status: 'PENDING', stage: 'choose' });
    await c.call('getCheckoutState', 404, { params: unknown });

    const pair = { currencyCode: 'USDT', protocol: 'TRC20' };
    // Refusals that leave the nonce unspent.
    await c.call('chooseCheckoutPair', 400, {
      params,
      body: { nonce, currencyCode: 'ETH', protocol: 'ERC20' },
    });
    await c.call('chooseCheckoutPair', 403, { params, body: { ...pair, nonce: 'A'.repeat(32) } });
    await c.call('chooseCheckoutPair', 404, { params: unknown, body: { ...pair, nonce } });
    await c.call('decideCheckoutOutcome', 409, { params, body: { nonce, outcome: 'paid' } });
    await c.call('chooseCheckoutPair', 200, { params, body: { ...pair, nonce } });

    nonce = await pageNonce();
    await c.call('decideCheckoutOutcome', 400, { params, body: { nonce, outcome: 'maybe' } });
    await c.call('decideCheckoutOutcome', 403, { params, body: { outcome: 'paid' } });
    await c.call('decideCheckoutOutcome', 404, {
      params: unknown,
      body: { nonce, outcome: 'paid' },
    });
    const paid = await c.call('decideCheckoutOutcome', 200, {
      params,
      body: { nonce, outcome: 'paid' },
    });
    expect(paid.body.payload[0]).toEqual({
      status: 'SUCCESSFUL',
      stage: 'ended',
      outcome: 'success',
    });
    await c.call('cancelCheckout', 409, { params, body: { nonce } });
    await c.call('chooseCheckoutPair', 409, { params, body: { ...pair, nonce } });

    const other = await c.call('initIframe', 200, {
      headers: merchant,
      body: initIframeBody('vk_contract_cancelled', NOWHERE),
    });
    const otherParams = { token: other.body.payload[0].initializationToken };
    const otherPage = await c.call('getCheckoutPage', 200, { params: otherParams });
    const otherNonce = /data-nonce="([^"]+)"/.exec(otherPage.text)![1];
    await c.call('cancelCheckout', 400, { params: otherParams, body: { nonce: 5 } });
    await c.call('cancelCheckout', 403, { params: otherParams, body: {} });
    await c.call('cancelCheckout', 404, { params: unknown, body: { nonce: otherNonce } });
    await c.call('cancelCheckout', 200, { params: otherParams, body: { nonce: otherNonce } });
  });

  it("the operator's payment sessions and merchant changes: 200, 400, 404", async () => {
    const listed = await c.call('listPaymentSessions', 200, {
      headers: admin,
      query: 'merchantId=demo&size=1',
    });
    expect(listed.body.payload).toHaveLength(1);
    await c.call('listPaymentSessions', 400, { headers: admin, query: 'cursor=bad!' });
    await c.call('listPaymentSessions', 400, { headers: admin, query: 'status=DONE' });
    const shown = await c.call('getPaymentSession', 200, {
      headers: admin,
      params: { validationKey: DEMO_SESSION },
    });
    expect(shown.body.validationKey).toBe(DEMO_SESSION);
    await c.call('getPaymentSession', 404, {
      headers: admin,
      params: { validationKey: 'vk_no_such' },
    });
    await c.call('getPaymentSession', 400, {
      headers: admin,
      params: { validationKey: 'vk\u007f' },
    });
    await c.call('updateMerchant', 200, {
      headers: admin,
      params: { id: 'other' },
      body: { name: 'Other Ltd', checkoutOrigins: ['https://shop.example'] },
    });
    await c.call('updateMerchant', 404, {
      headers: admin,
      params: { id: 'nobody' },
      body: { name: 'Nobody' },
    });
    await c.call('updateMerchant', 400, {
      headers: admin,
      params: { id: 'other' },
      body: { checkoutOrigins: ['not an origin'] },
    });
  });

  it("the sandbox's pages and its demo shop: 200, 204, 400, 404", async () => {
    const home = await c.call('getSandboxHome', 200);
    expect(home.text).toContain(publishedDemoMerchant().apiKey);
    await c.call('getDemoShop', 200);
    await c.call('getDemoShopScript', 200);
    await c.call('getSandboxStylesheet', 200);
    const order = {
      amount: '10.00',
      currency: 'EUR',
      description: 'Order 1',
      countryCode: 'IE',
    };
    const started = await c.call('startDemoPayment', 200, { body: order });
    expect(started.body.payload[0].initIframe.status).toBe(200);
    await c.call('startDemoPayment', 400, { body: { ...order, amount: 5 } });
    const validationKey = started.body.payload[0].validationKey as string;
    const shown = await c.call('getDemoPayment', 200, { params: { validationKey } });
    expect(shown.body.payload[0].statusLookup.status).toBe(200);
    await c.call('getDemoPayment', 404, { params: { validationKey: 'vk_demo_none' } });
    await c.call('getDemoPayment', 400, { params: { validationKey: 'vk_other' } });
    const body = JSON.stringify({ status: 'FAILED', validationKey, errorMessage: 'Declined' });
    const at = new Date();
    const signed = new Webhook(publishedDemoMerchant().callbackSecret).sign('msg_c1', at, body);
    const headers = {
      'webhook-id': 'msg_c1',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signed,
    };
    const params = { kind: 'error' };
    await c.call('receiveDemoCallback', 204, { params, headers, rawBody: body, contentType: json });
    await c.call('receiveDemoCallback', 400, {
      params,
      headers: { ...headers, 'webhook-signature': 'v1,AAAA' },
      rawBody: body,
      contentType: json,
    });
    await c.call('receiveDemoCallback', 400, { params: { kind: 'x' }, headers, body: {} });
  });

  it('health and metrics answer 200', async () => {
    await c.call('getLiveness', 200);
    const ready = await c.call('getReadiness', 200);
    expect(ready.body.status).toBe('ok');
    const metrics = await c.call('getMetrics', 200, { headers: admin });
    expect(metrics.text).toMatch(/^# HELP /m);
  });

  it('accepts every request body example the document offers, as it is', async () => {
    const examples = (operationId: string) =>
      Object.values<any>(
        c.operation(operationId).op.requestBody.content['application/json'].examples,
      ).map((e) => e.value);
    const reports = examples('reportPaymentSession');
    expect(reports.map((r) => r.status).sort()).toEqual([
      'FAILED',
      'NOT_COMPLETED',
      'PENDING',
      'SUCCESSFUL',
    ]);
    for (const [i, report] of reports.entries()) {
      await c.call('reportPaymentSession', 201, {
        headers: admin,
        params: { validationKey: `vk_contract_example_${i}` },
        body: report,
      });
    }
    for (const pair of examples('createCryptoPair')) {
      await c.call('createCryptoPair', 201, { headers: admin, body: pair });
    }
    for (const patch of examples('updateCryptoPair')) {
      await c.call('updateCryptoPair', 200, { headers: admin, params: { id: 1 }, body: patch });
    }
    for (const body of examples('createMerchant')) {
      await c.call('createMerchant', 201, { headers: admin, body });
    }
    for (const body of examples('updateMerchant')) {
      await c.call('updateMerchant', 200, { headers: admin, params: { id: 'other' }, body });
    }
    for (const body of examples('putDepositKey')) {
      await c.call('putDepositKey', 200, {
        headers: admin,
        params: { id: 'other', network: 'bitcoin' },
        body,
      });
    }
    for (const body of examples('putRate')) {
      await c.call('putRate', 200, { headers: admin, params: { currencyCode: 'USDT' }, body });
    }
    for (const body of examples('reportDeposit')) {
      // Its address is the one the sandbox gave above: the example's token is another asset.
      await c.call('reportDeposit', 200, { headers: admin, body });
    }
    for (const body of examples('initIframe')) {
      await c.call('initIframe', 200, { headers: merchant, body });
    }
    for (const body of examples('startDemoPayment')) {
      const started = await c.call('startDemoPayment', 200, { body });
      expect(started.body.payload[0].initIframe.status).toBe(200);
    }
    // The page actions' examples carry a made-up nonce: valid bodies, refused for the nonce only.
    const opened = await c.call('initIframe', 200, {
      headers: merchant,
      body: initIframeBody('vk_contract_examples', NOWHERE),
    });
    const params = { token: opened.body.payload[0].initializationToken };
    for (const operationId of [
      'chooseCheckoutPair',
      'decideCheckoutOutcome',
      'cancelCheckout',
      'sendSandboxDeposit',
    ]) {
      for (const body of examples(operationId)) {
        const refused = await c.call(operationId, 403, { params, body });
        expect(refused.body.errors[0].field).toBe('nonce');
      }
    }
  });

  it('answers 400 UNSUPPORTED_API_VERSION on every operation', async () => {
    for (const { operationId, op } of c.documented().map((d) => ({
      ...d,
      op: c.operation(d.operationId).op,
    }))) {
      const r = await c.call(operationId, 400, {
        headers: { ...credentialsFor(op), 'api-version': '2' },
        params: existing[operationId],
      });
      expect(r.body.errors[0].errorCode).toBe('UNSUPPORTED_API_VERSION');
    }
  });

  it('answers 401 without credentials or with a wrong token, 403 to too small a role', async () => {
    const viewer = await c.call('createOperator', 201, {
      headers: admin,
      body: { name: 'contract-viewer', role: 'viewer' },
    });
    const viewerToken = { authorization: `Bearer ${viewer.body.token}` };
    for (const { operationId } of c.documented()) {
      const { op } = c.operation(operationId);
      const credentials = credentialsFor(op);
      if (credentials === open) continue;
      const params = existing[operationId];
      const missing = await c.call(operationId, 401, { params });
      if (credentials !== admin) continue;
      expect(missing.headers.get('www-authenticate')).toBe('Bearer');
      const wrong = await c.call(operationId, 401, { headers: wrongToken, params });
      expect(wrong.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
      if (op['x-required-role'] === 'viewer') {
        // Every operator may: a 403 comes only from a deployment without ADMIN_TOKEN.
        await cc.call(operationId, 403, { headers: wrongToken, params });
      } else {
        const small = await c.call(operationId, 403, { headers: viewerToken, params });
        expect(small.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope"');
      }
    }
  });

  it('answers 400, 413 and 415 to bad bodies wherever a body is read', async () => {
    for (const { operationId, method } of c.documented()) {
      if (method === 'get') continue;
      const { op } = c.operation(operationId);
      const base = { headers: credentialsFor(op), params: existing[operationId] };
      const malformed = await c.call(operationId, 400, {
        ...base,
        rawBody: '{"a":',
        contentType: json,
      });
      expect(malformed.body.errors[0].errorCode).toBe('MALFORMED_REQUEST');
      await c.call(operationId, 413, { ...base, rawBody: BIG_BODY, contentType: json });
      // A route without a body of its own ignores one of another type.
      await c.call(operationId, op.requestBody ? 415 : expect.any(Number), {
        ...base,
        rawBody: 'a=1',
        contentType: 'text/plain',
      });
    }
  });

  it('answers 405 with Allow to every method a documented path does not serve', async () => {
    expect(c.doc.info.description).toMatch(/405 METHOD_NOT_ALLOWED/);
    expect(c.doc.info.description).toMatch(/`Allow`/);
    const envelope = c.deref({ $ref: '#/components/schemas/ErrorEnvelopeDto' });
    for (const [path, item] of Object.entries<any>(c.doc.paths)) {
      const served = METHODS.filter((m) => item[m]);
      const other = METHODS.find((m) => !item[m])!;
      const url = path.replace(/\{(\w+)\}/g, 'x');
      const r = await http(t.url + url, {
        method: other.toUpperCase(),
        headers: credentialsFor(item[served[0]]),
      });
      const where = `${other.toUpperCase()} ${path}`;
      expect({ where, status: r.status }).toEqual({ where, status: 405 });
      const allowed = served.map((m) => m.toUpperCase());
      if (served.includes('get')) allowed.push('HEAD');
      expect({ where, allow: r.headers.get('allow') }).toEqual({
        where,
        allow: allowed.sort().join(', '),
      });
      c.checkAnswer(
        where,
        'method not allowed',
        {
          content: { 'application/json': { schema: envelope } },
          headers: { 'x-request-id': { required: true, schema: { type: 'string' } } },
        },
        // The limit headers of merchant paths are not at issue here.
        { ...r, headers: withoutLimitHeaders(r.headers) },
      );
      expect(r.body.errors[0].errorCode).toBe('METHOD_NOT_ALLOWED');
    }
  });

  it('answers 500 with the envelope when something unexpected fails', async () => {
    const injected = () => Promise.reject(new Error('injected fault'));
    jest.spyOn(t.app.get(CatalogService), 'listEnabled').mockImplementationOnce(injected);
    await c.call('listCryptoPairs', 500, { headers: merchant });
    jest.spyOn(t.app.get(MerchantService), 'listMerchants').mockImplementationOnce(injected);
    await c.call('listMerchants', 500, { headers: admin });
  });

  it('answers readiness 503 with the envelope when the database ping fails', async () => {
    // Only the ping fails: the callback dispatcher queries through the same data source on its
    // own schedule, and must neither take the fault nor see one.
    const dataSource = t.app.get(DataSource);
    const query = dataSource.query.bind(dataSource);
    const spy = jest
      .spyOn(dataSource, 'query')
      .mockImplementation((sql: string, ...rest: unknown[]) =>
        sql === 'SELECT 1'
          ? Promise.reject(new Error('database down'))
          : (query as (...args: unknown[]) => Promise<unknown>)(sql, ...rest),
      );
    try {
      const r = await c.call('getReadiness', 503);
      expect(r.body.errors[0].errorCode).toBe('SERVICE_UNAVAILABLE');
    } finally {
      spy.mockRestore();
    }
  });

  it('answers 503 with Retry-After wherever the database is involved', async () => {
    const state = t.app.get(ServiceState);
    state.databaseLost = true;
    try {
      for (const { operationId, statuses } of c.documented()) {
        const { op } = c.operation(operationId);
        // What does not use the database answers as ever (the demo shop shows the gateway's 503).
        const r = await c.call(operationId, statuses.includes('503') ? 503 : expect.any(Number), {
          headers: credentialsFor(op),
          params: existing[operationId],
        });
        if (!statuses.includes('503'))
          expect([operationId, r.status]).not.toEqual([operationId, 503]);
      }
    } finally {
      state.databaseLost = false;
    }
  });

  it('answers 429 with Retry-After where limits apply', async () => {
    const spare = { key: SPARE_KEY };
    for (let i = 0; i < 3; i++) {
      await cl.call('listCryptoPairs', 200, { headers: spare });
      await cl.call('listMerchants', 401, { headers: wrongToken });
    }
    // The checkout's pages count refused requests per address.
    for (let i = 0; i < CHECKOUT_REFUSALS_LIMIT; i++) {
      await cl.call('getCheckoutState', 404, { params: { token: UNKNOWN_TOKEN } });
    }
    for (const { operationId, statuses } of cl.documented()) {
      if (!statuses.includes('429')) continue;
      // Merchants are counted per key; operator callers without a valid token per address; the
      // checkout's pages per address, once their body is read (a valid one: its first example).
      const { op } = cl.operation(operationId);
      const credentials = credentialsFor(op);
      const examples = op.requestBody?.content['application/json'].examples ?? {};
      await cl.call(operationId, 429, {
        headers: credentials === merchant ? spare : credentials === admin ? wrongToken : open,
        params: existing[operationId],
        body: (Object.values(examples)[0] as { value?: unknown } | undefined)?.value,
      });
    }
    // The status lookup's own limit: lookups that end in 404.
    const other = { key: OTHER_KEY };
    await cl.call('getPaymentStatus', 404, { headers: other, params: { validationKey: 'vk_x1' } });
    await cl.call('getPaymentStatus', 429, { headers: other, params: { validationKey: 'vk_x2' } });
    // The operator with the valid token is never limited.
    await cl.call('listMerchants', 200, { headers: admin });
    for (const operationId of PUBLIC) await cl.call(operationId, 200);
  });

  it('has answered every status the document declares (500 needs a fault: see above)', () => {
    const missing = [c, cl, cc].reduce(
      (left, contract) => left.filter((key) => !contract.exercised.has(key)),
      c
        .documented()
        .flatMap(({ operationId, statuses }) =>
          statuses.filter((s) => s !== '500').map((s) => `${operationId} ${s}`),
        ),
    );
    expect(missing).toEqual([]);
  });
});

function withoutLimitHeaders(headers: Headers): Headers {
  const copy = new Headers(headers);
  for (const name of EXACT_HEADERS) copy.delete(name);
  return copy;
}
