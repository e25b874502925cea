import { request as httpRequest } from 'node:http';
import { publishedDemoMerchant } from '../../src/sandbox/demo-merchant.js';
import { ADMIN_TOKEN, successfulResponse } from './test-app.js';

/**
 * The requests both HTTP platforms must answer alike: path spellings, queries, headers, bodies,
 * content types and methods, crossed so that each class meets the others. Deterministic: the
 * same list in the same order every run, so two applications that start alike end alike.
 */
export interface CorpusRequest {
  label: string;
  method: string;
  /**
   * Sent exactly as written (no URL parser normalises it on the way), once each `{{name}}` is
   * replaced by the value captured under that name from an earlier answer of the same platform
   * (`{{NAME}}`: the value in upper case).
   */
  path: string;
  headers: Record<string, string>;
  /** With `{{name}}` placeholders like the path. */
  body?: string;
  /** Keeps a value of the answer for later requests: a checkout token, or the page's nonce. */
  capture?: { name: string; from: 'token' | 'nonce' };
  /** A 2xx answer that is not JSON (a page, a script) is compared by its type and its text. */
  compareText?: boolean;
}

export interface CorpusAnswer {
  status: number;
  errorCodes?: string[];
  /** 2xx JSON bodies with what differs between two databases (ids, times, secrets) masked. */
  body?: unknown;
  /** With compareText: the Content-Type, and the text with captured values and nonces masked. */
  contentType?: string;
  text?: string;
}

/** The values one platform's answers gave, by name (see CorpusRequest.capture). */
export type Captured = Map<string, string>;

export const PARITY_MERCHANT_KEY = 'parity-key-0123456789-abcdefghijklmnopqrstuvwxyz';
export const PARITY_OTHER_KEY = 'parity-other-0123456789-abcdefghijklmnopqrstuvwxyz';
const SESSION = 'vk_parity_success_0001';
const PENDING = 'vk_parity_pending_0002';
const FOREIGN = 'vk_parity_foreign_0003';

export const PARITY_SEED = {
  cryptoPairs: [
    { currencyCode: 'USDT', currencyName: 'Tether', protocol: 'TRC20', countryCode: 'IE' },
    { currencyCode: 'USDT', currencyName: 'Tether', protocol: 'ERC20', countryCode: 'DE' },
    { currencyCode: 'BTC', currencyName: 'Bitcoin', protocol: 'BTC', countryCode: 'IE' },
    {
      currencyCode: 'ETH',
      currencyName: 'Ether',
      protocol: 'ERC20',
      countryCode: 'FR',
      enabled: false,
    },
  ],
  merchants: [
    { id: 'parity', name: 'Parity', apiKeys: [PARITY_MERCHANT_KEY] },
    { id: 'other', name: 'Other', apiKeys: [PARITY_OTHER_KEY] },
    // The sandbox's demo shop pays with the published demo key.
    { id: 'demo', name: 'Demo', apiKeys: [publishedDemoMerchant().apiKey] },
  ],
  paymentSessions: [
    {
      validationKey: SESSION,
      merchantId: 'parity',
      status: 'SUCCESSFUL',
      paymentResponse: successfulResponse({ customerFirstName: 'Ada' }),
    },
    { validationKey: PENDING, merchantId: 'parity', status: 'PENDING' },
    { validationKey: FOREIGN, merchantId: 'other', status: 'PENDING' },
  ],
};

const MERCHANT = { key: PARITY_MERCHANT_KEY };
const OPERATOR = { authorization: `Bearer ${ADMIN_TOKEN}` };
const NO_AUTH = {};

/** Spellings of one path that a router might read differently. */
function spellings(path: string): [string, string][] {
  const segments = path.split('/').filter(Boolean);
  const first = segments[0] ?? '';
  const rest = segments.slice(1).join('/');
  const tail = rest ? `/${rest}` : '';
  const variants: [string, string][] = [
    ['plain', path],
    ['trailing slash', `${path}/`],
    ['double slashes', `/${segments.join('//')}`],
    ['leading double slash', `/${path}`],
    ['dot segment', `/${first}/.${tail}`],
    ['dot-dot segment', `/${first}/x/..${tail}`],
    ['encoded dot segment', `/${first}/%2e${tail}`],
    ['upper-case first segment', `/${first.toUpperCase()}${tail}`],
    ['upper-case path', path.toUpperCase()],
    ['encoded first letter', `/%${first.charCodeAt(0).toString(16)}${first.slice(1)}${tail}`],
    [
      'lower-case escape',
      `/%${first.charCodeAt(0).toString(16).toLowerCase()}${first.slice(1)}${tail}`,
    ],
    ['backslash', `/${segments.join('\\')}`],
    ['semicolon parameter', `/${first};x=1${tail}`],
    ['query', `${path}?a=1`],
    ['empty query', `${path}?`],
    ['fragment-like', `${path}%23x`],
  ];
  return variants;
}

const JSON_TYPE = { 'content-type': 'application/json' };

/** Bodies of the routes that read one, in every content-type and shape class. */
function bodyCases(valid: object): [string, Record<string, string>, string | undefined][] {
  const json = JSON.stringify(valid);
  const deep = `${'['.repeat(40)}1${']'.repeat(40)}`;
  return [
    ['valid', JSON_TYPE, json],
    ['charset utf-8', { 'content-type': 'application/json; charset=utf-8' }, json],
    ['charset UTF-8 quoted', { 'content-type': 'application/json; charset="UTF-8"' }, json],
    ['charset utf-16', { 'content-type': 'application/json; charset=utf-16' }, json],
    ['charset latin1', { 'content-type': 'application/json; charset=iso-8859-1' }, json],
    ['vendor json', { 'content-type': 'application/vnd.gateway+json' }, json],
    ['upper-case type', { 'content-type': 'APPLICATION/JSON' }, json],
    ['text/plain', { 'content-type': 'text/plain' }, json],
    ['form', { 'content-type': 'application/x-www-form-urlencoded' }, 'a=1'],
    ['no content type', {}, json],
    ['not json', JSON_TYPE, '{"merchantId":'],
    ['empty json body', JSON_TYPE, ''],
    ['array', JSON_TYPE, '[]'],
    ['null', JSON_TYPE, 'null'],
    ['string', JSON_TYPE, '"x"'],
    ['too deep', JSON_TYPE, deep],
    [
      'proto key',
      JSON_TYPE,
      JSON.stringify({ ...valid }).replace('{', '{"__proto__":{"admin":true},'),
    ],
    [
      'constructor prototype',
      JSON_TYPE,
      json.replace('{', '{"constructor":{"prototype":{"admin":true}},'),
    ],
    ['unknown field', JSON_TYPE, JSON.stringify({ ...valid, unknownField: 1 })],
    ['byte order mark', JSON_TYPE, `\ufeff${json}`],
    ['no body', JSON_TYPE, undefined],
  ];
}

export function parityCorpus(): CorpusRequest[] {
  const corpus: CorpusRequest[] = [];
  const add = (
    label: string,
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string,
  ) => corpus.push({ label, method, path, headers, body });

  // Path spellings of every kind of route, read with the credentials each needs and without.
  const readRoutes: [string, string, Record<string, string>][] = [
    ['catalog', '/api/crypto-currency-protocol-processors', MERCHANT],
    ['catalog alias', '/api/crypto-currency-protocol-processor', MERCHANT],
    ['status', `/api/gateway/payment-status/${SESSION}`, MERCHANT],
    ['status pending', `/api/gateway/payment-status/${PENDING}`, MERCHANT],
    ['status foreign', `/api/gateway/payment-status/${FOREIGN}`, MERCHANT],
    ['merchants', '/admin/merchants', OPERATOR],
    ['history', `/admin/payment-sessions/${SESSION}/history`, OPERATOR],
    ['metrics', '/metrics', OPERATOR],
    ['liveness', '/health/live', NO_AUTH],
    ['docs json', '/docs-json', NO_AUTH],
  ];
  for (const [name, path, credentials] of readRoutes) {
    for (const [spelling, spelled] of spellings(path)) {
      add(`${name}, ${spelling}`, 'GET', spelled, credentials);
      if (credentials !== NO_AUTH) add(`${name}, ${spelling}, no credentials`, 'GET', spelled, {});
    }
    for (const method of ['HEAD', 'POST', 'DELETE', 'PATCH', 'OPTIONS']) {
      add(`${name}, ${method}`, method, path, credentials);
    }
  }

  // Status lookups of keys that are odd in themselves.
  const status = '/api/gateway/payment-status/';
  const oddKeys: [string, string][] = [
    ['unknown key', 'vk_unknown_0001'],
    ['too long key', 'k'.repeat(300)],
    ['encoded slash in key', 'vk%2Fparity'],
    ['invalid escape', 'vk%zz'],
    ['truncated escape', 'vk%E0%A4%A'],
    ['non-UTF-8 escape', 'vk%C3%28'],
    ['encoded key', encodeURIComponent(SESSION)],
    ['encoded letters of the key', `%76%6b${SESSION.slice(2)}`],
    ['space escape', 'vk%20x'],
    ['extra segment', `${SESSION}/extra`],
    ['two extra segments', `${SESSION}/a/b`],
    ['empty key', ''],
    ['dot key', '.'],
    ['dot-dot key', `${SESSION}/..`],
    ['key with semicolon', `${SESSION};v=1`],
    ['key with colon', 'vk:colon'],
    ['key with plus', 'vk+plus'],
    ['upper-case key', SESSION.toUpperCase()],
  ];
  for (const [name, key] of oddKeys) {
    add(`status, ${name}`, 'GET', `${status}${key}`, MERCHANT);
    add(`status, ${name}, no key`, 'GET', `${status}${key}`, {});
  }
  add('status prefix alone', 'GET', '/api/gateway/payment-status', MERCHANT);
  add('status prefix parent', 'GET', '/api/gateway', MERCHANT);
  add('api root', 'GET', '/api', MERCHANT);
  add('api root, no key', 'GET', '/api', {});
  add('api unknown', 'GET', '/api/unknown', MERCHANT);
  add('api unknown, no key', 'GET', '/api/unknown', {});

  // Docs and unknown paths outside the API.
  for (const path of [
    '/',
    '/docs',
    '/docs/',
    '/docs/..',
    '/docs/../../../etc/passwd',
    '/docs/%2e%2e/%2e%2e/etc/passwd',
    `/docs/${'a'.repeat(5000)}`,
    '/docs/swagger-ui.css',
    '/docs/index.html',
    '/docs-json/',
    '/DOCS-JSON',
    '/unknown',
    '/health',
    '/health/ready/x',
    '/favicon.ico',
    `/${'b'.repeat(3000)}`,
    '/%',
    '/%zz',
    '/a%00b',
  ]) {
    add(`outside, ${path.slice(0, 40)}`, 'GET', path, NO_AUTH);
  }

  // Headers: keys, aliases, versions, bearer tokens.
  const catalog = '/api/crypto-currency-protocol-processors';
  const headerCases: [string, Record<string, string>][] = [
    ['alias x-api-key', { 'x-api-key': PARITY_MERCHANT_KEY }],
    ['empty key', { key: '' }],
    ['unknown key', { key: 'nope-0123456789-abcdefghijklmnopqrstuvwxyz0123' }],
    ['key too long', { key: 'k'.repeat(2000) }],
    ['key with spaces', { key: ` ${PARITY_MERCHANT_KEY} ` }],
    ['api-version 1', { ...MERCHANT, 'api-version': '1' }],
    ['api-version 2', { ...MERCHANT, 'api-version': '2' }],
    ['api-version padded', { ...MERCHANT, 'api-version': ' 1 ' }],
    ['api-version empty', { ...MERCHANT, 'api-version': '' }],
    ['x-api-version 2', { ...MERCHANT, 'x-api-version': '2' }],
    ['api-version 2 without key', { 'api-version': '2' }],
    ['bearer on merchant route', OPERATOR],
    ['if-none-match star', { ...MERCHANT, 'if-none-match': '*' }],
    ['if-none-match junk', { ...MERCHANT, 'if-none-match': '"junk"' }],
    ['accept xml', { ...MERCHANT, accept: 'application/xml' }],
    ['x-request-id', { ...MERCHANT, 'x-request-id': 'parity-1' }],
  ];
  for (const [name, headers] of headerCases) {
    add(`catalog header, ${name}`, 'GET', catalog, headers);
    add(`status header, ${name}`, 'GET', `${status}${SESSION}`, headers);
  }
  const operatorCases: [string, Record<string, string>][] = [
    ['no bearer', {}],
    ['wrong bearer', { authorization: 'Bearer wrong-token-0123456789-abcdefghijklmn' }],
    ['lower-case scheme', { authorization: `bearer ${ADMIN_TOKEN}` }],
    ['basic scheme', { authorization: `Basic ${ADMIN_TOKEN}` }],
    ['bare token', { authorization: ADMIN_TOKEN }],
    ['merchant key', MERCHANT],
    ['api-version 2', { ...OPERATOR, 'api-version': '2' }],
  ];
  for (const [name, headers] of operatorCases) {
    add(`operator header, ${name}`, 'GET', '/admin/crypto-pairs', headers);
    add(`metrics header, ${name}`, 'GET', '/metrics', headers);
  }

  // Queries of the catalog.
  for (const query of [
    'countryCode=ie',
    'countryCode=IE&size=1',
    'countryCode=IRL',
    'countryCode=%C4%B1e',
    'currencyCode=usdt&protocol=trc20',
    'protocol=ERC20',
    'protocol=bad%20protocol',
    'page=1&size=1',
    'page=-1',
    'page=1000001',
    'page=abc',
    'size=0',
    'size=101',
    'size=100',
    'size=1.5',
    'size=%201',
    'page=0&page=1',
    'countryCode=IE&countryCode=DE',
    'countryCode[]=IE',
    'countryCode[a]=IE',
    'unknown=1',
    'countryCode=',
    '=x',
    'a&b&c',
    '%zz=1',
    'size=01',
    'page=1e2',
  ]) {
    add(`catalog query ${query}`, 'GET', `${catalog}?${query}`, MERCHANT);
    add(`operator catalog query ${query}`, 'GET', `/admin/crypto-pairs?${query}`, OPERATOR);
  }

  // Bodies of the writing routes, in order: the outcomes depend on what came before.
  const report = (n: number) => `/admin/payment-sessions/vk_parity_new_${n}`;
  let n = 0;
  for (const [name, headers, body] of bodyCases({ merchantId: 'parity', status: 'PENDING' })) {
    add(`report body, ${name}`, 'PUT', report(++n), { ...OPERATOR, ...headers }, body);
  }
  for (const [name, headers, body] of bodyCases({ id: 'newmerchant', name: 'New' })) {
    const id = `m${++n}`;
    add(
      `merchant body, ${name}`,
      'POST',
      '/admin/merchants',
      { ...OPERATOR, ...headers },
      body?.replace('newmerchant', id),
    );
  }
  for (const [name, headers, body] of bodyCases({
    currencyCode: 'LTC',
    currencyName: 'Litecoin',
    protocol: 'LTC',
    countryCode: 'IE',
  })) {
    add(
      `pair body, ${name}`,
      'POST',
      '/admin/crypto-pairs',
      { ...OPERATOR, ...headers },
      body?.replace(
        '"IE"',
        `"${String.fromCharCode(65 + (++n % 26))}${String.fromCharCode(65 + (n % 7))}"`,
      ),
    );
  }
  // Bodies where a route takes none, and the state machine's answers.
  add('GET with a JSON body', 'GET', catalog, { ...MERCHANT, ...JSON_TYPE }, '{"a":1}');
  add('GET with a broken JSON body', 'GET', catalog, { ...MERCHANT, ...JSON_TYPE }, '{');
  add(
    'DELETE key with a body',
    'DELETE',
    '/admin/merchants/parity/api-keys/x',
    {
      ...OPERATOR,
      ...JSON_TYPE,
    },
    '{',
  );
  add(
    'create key with text body',
    'POST',
    '/admin/merchants/parity/api-keys',
    {
      ...OPERATOR,
      'content-type': 'text/plain',
    },
    'hello',
  );
  const moves: [string, object][] = [
    ['pending', { merchantId: 'parity', status: 'PENDING' }],
    ['not completed', { merchantId: 'parity', status: 'NOT_COMPLETED', detailedStatus: 'X' }],
    ['failed without message', { merchantId: 'parity', status: 'FAILED' }],
    ['failed', { merchantId: 'parity', status: 'FAILED', errorMessage: 'Declined' }],
    ['failed again', { merchantId: 'parity', status: 'FAILED', errorMessage: 'Declined' }],
    ['after final', { merchantId: 'parity', status: 'PENDING' }],
    ['other merchant', { merchantId: 'other', status: 'PENDING' }],
    ['unknown merchant', { merchantId: 'nobody', status: 'PENDING' }],
    ['bad status', { merchantId: 'parity', status: 'DONE' }],
    ['successful without response', { merchantId: 'parity', status: 'SUCCESSFUL' }],
  ];
  for (const [name, body] of moves) {
    add(
      `state machine, ${name}`,
      'PUT',
      '/admin/payment-sessions/vk_parity_moves',
      {
        ...OPERATOR,
        ...JSON_TYPE,
      },
      JSON.stringify(body),
    );
  }
  add('read after moves', 'GET', `${status}vk_parity_moves`, MERCHANT);
  add('history after moves', 'GET', '/admin/payment-sessions/vk_parity_moves/history', OPERATOR);
  add(
    'report with odd key',
    'PUT',
    '/admin/payment-sessions/bad%01key',
    {
      ...OPERATOR,
      ...JSON_TYPE,
    },
    '{"merchantId":"parity","status":"PENDING"}',
  );
  add(
    'report with long key',
    'PUT',
    `/admin/payment-sessions/${'k'.repeat(256)}`,
    {
      ...OPERATOR,
      ...JSON_TYPE,
    },
    '{"merchantId":"parity","status":"PENDING"}',
  );
  add(
    'patch unknown pair',
    'PATCH',
    '/admin/crypto-pairs/999999',
    {
      ...OPERATOR,
      ...JSON_TYPE,
    },
    '{"enabled":false}',
  );
  add(
    'patch pair bad id',
    'PATCH',
    '/admin/crypto-pairs/abc',
    {
      ...OPERATOR,
      ...JSON_TYPE,
    },
    '{"enabled":false}',
  );
  add('delete pair bad id', 'DELETE', '/admin/crypto-pairs/1.5', OPERATOR);
  checkoutCorpus(corpus);
  sandboxCorpus(corpus);
  return corpus;
}

/** The sandbox's home page and demo shop (the parity apps run the sandbox). */
function sandboxCorpus(corpus: CorpusRequest[]): void {
  const add = (entry: Omit<CorpusRequest, 'headers'> & { headers?: Record<string, string> }) =>
    corpus.push({ headers: {}, ...entry });
  for (const path of ['/', '/demo', '/demo/assets/demo.js', '/demo/assets/sandbox.css']) {
    add({ label: `sandbox ${path}`, method: 'GET', path, compareText: true });
    add({ label: `sandbox ${path}, HEAD`, method: 'HEAD', path });
    add({ label: `sandbox ${path}, POST`, method: 'POST', path });
  }
  for (const [spelling, path] of spellings('/demo')) {
    add({ label: `demo shop, ${spelling}`, method: 'GET', path });
  }
  add({ label: 'sandbox asset unknown', method: 'GET', path: '/demo/assets/other.js' });
  const order = { amount: '10.00', currency: 'EUR', description: 'Tea', countryCode: 'IE' };
  for (const [name, headers, body] of bodyCases(order)) {
    add({
      label: `demo payment, body ${name}`,
      method: 'POST',
      path: '/demo/payments',
      headers,
      body,
    });
  }
  for (const [name, body] of [
    ['amount refused by init-iframe', { ...order, amount: '0' }],
    ['amount a number', { ...order, amount: 10 }],
    ['no description', { ...order, description: undefined }],
    ['long description', { ...order, description: 'd'.repeat(101) }],
    ['no pair for the country', { ...order, countryCode: 'US' }],
  ] as const) {
    add({
      label: `demo payment, ${name}`,
      method: 'POST',
      path: '/demo/payments',
      headers: JSON_TYPE,
      body: JSON.stringify(body),
    });
  }
  for (const key of ['vk_demo_unknownkey12', 'vk_other', 'vk_demo_', 'vk_demo_%zz']) {
    add({ label: `demo payment ${key}`, method: 'GET', path: `/demo/payments/${key}` });
  }
  const callback = { status: 'FAILED', validationKey: 'vk_demo_unknownkey12' };
  for (const [name, headers, body] of bodyCases(callback)) {
    add({
      label: `demo callback, body ${name}`,
      method: 'POST',
      path: '/demo/callbacks/error',
      headers: {
        ...headers,
        'webhook-id': 'msg_parity',
        'webhook-timestamp': '1700000000',
        'webhook-signature': 'v1,AAAA',
      },
      body,
    });
  }
  add({
    label: 'demo callback, unknown kind',
    method: 'POST',
    path: '/demo/callbacks/elsewhere',
    headers: JSON_TYPE,
    body: '{}',
  });
}

/** Shaped like a checkout token, opening nothing. */
const UNKNOWN_TOKEN = `ct_${'u'.repeat(43)}`;
const INIT_IFRAME = '/api/gateway/init-iframe';
/** Nothing listens there: the callbacks of these payments stay to be retried, alike. */
const NOWHERE = 'http://127.0.0.1:9';

/** The body existing integrations send to init-iframe. */
function initIframeJson(validationKey: string, overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    money: { amount: '10.00', currency: 'EUR' },
    client: {
      firstName: 'Ann',
      lastName: 'Lee',
      phone: '871234567',
      dialingCode: '+353',
      nationality: 'IE',
      emailAddress: 'ann@example.org',
      dob: '1990-01-31',
    },
    address: { addressLine1: '1 Main St', countryCode: 'IE', city: 'Dublin' },
    validationKey,
    clientReference: 'cust-42',
    traceId: 'order-9001',
    description: 'order-9001',
    destinationAccountNumber: '5001000001223369',
    brandId: '001',
    returnUrl: `${NOWHERE}/return`,
    errorUrl: `${NOWHERE}/error`,
    languagePreference: 'EN',
    ...overrides,
  });
}

/**
 * The checkout (init-iframe, the widget, the checkout page and its actions) and the operator's
 * session routes. Refused checkout page requests count per address (30 a minute): the corpus
 * makes fewer than that, so each request is judged for itself.
 */
function checkoutCorpus(corpus: CorpusRequest[]): void {
  const add = (entry: Omit<CorpusRequest, 'headers'> & { headers?: Record<string, string> }) =>
    corpus.push({ headers: {}, ...entry });
  const init = (label: string, body: string | undefined, headers: Record<string, string>) =>
    add({
      label: `init-iframe, ${label}`,
      method: 'POST',
      path: INIT_IFRAME,
      headers: { 'x-api-version': '1', ...headers },
      body,
    });
  const page = (label: string, token: string, extra: Partial<CorpusRequest> = {}) =>
    add({
      label: `checkout page, ${label}`,
      method: 'GET',
      path: `/checkout/${token}`,
      compareText: true,
      ...extra,
    });
  /** A page action with the nonce of the page last read. */
  const act = (label: string, token: string, action: string, body: object | string) =>
    add({
      label: `page action ${action}, ${label}`,
      method: 'POST',
      path: `/checkout/${token}/${action}`,
      headers: JSON_TYPE,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const fresh = (token: string) =>
    page(`fresh nonce of ${token}`, `{{${token}}}`, {
      capture: { name: `${token}n`, from: 'nonce' },
    });

  // init-iframe: the body in every content-type and shape class, then each field's rules.
  add({
    label: 'init-iframe, first',
    method: 'POST',
    path: INIT_IFRAME,
    headers: { ...MERCHANT, 'x-api-version': '1', ...JSON_TYPE },
    body: initIframeJson('vk_parity_checkout'),
    capture: { name: 'paid', from: 'token' },
  });
  for (const [name, headers, body] of bodyCases(JSON.parse(initIframeJson('vk_parity_checkout')))) {
    init(`body ${name}`, body, { ...MERCHANT, ...headers });
  }
  const refused: [string, Record<string, unknown>][] = [
    ['zero amount', { money: { amount: '0', currency: 'EUR' } }],
    ['three decimals', { money: { amount: '10.005', currency: 'EUR' } }],
    ['exponent amount', { money: { amount: '1e3', currency: 'EUR' } }],
    ['number amount', { money: { amount: 10, currency: 'eur' } }],
    ['long currency', { money: { amount: '10.00', currency: 'EURO' } }],
    ['no client', { client: undefined }],
    ['bad email', { client: { emailAddress: 'nope' } }],
    ['address without country', { address: { addressLine1: '1 Main St', city: 'Dublin' } }],
    ['ftp return URL', { returnUrl: 'ftp://shop.example/return' }],
    ['return URL with credentials', { returnUrl: 'https://user:pw@shop.example/return' }],
    ['no error URL', { errorUrl: undefined, validationKey: 'vk_parity_no_error_url' }],
    ['odd key', { validationKey: 'vk/slash' }],
    ['long key', { validationKey: 'k'.repeat(256) }],
    ['language', { languagePreference: 'english!' }],
    ['another description', { description: 'another order' }],
  ];
  for (const [name, overrides] of refused) {
    init(name, initIframeJson('vk_parity_checkout', overrides), { ...MERCHANT, ...JSON_TYPE });
  }
  init('another merchant', initIframeJson('vk_parity_checkout'), {
    key: PARITY_OTHER_KEY,
    ...JSON_TYPE,
  });
  init('no key', initIframeJson('vk_parity_checkout'), JSON_TYPE);
  init('api-version 2', initIframeJson('vk_parity_checkout'), {
    ...MERCHANT,
    ...JSON_TYPE,
    'x-api-version': '2',
  });
  init('key of a seeded session', initIframeJson(PENDING), { ...MERCHANT, ...JSON_TYPE });
  for (const method of ['GET', 'PUT', 'DELETE']) {
    add({ label: `init-iframe, ${method}`, method, path: INIT_IFRAME, headers: MERCHANT });
  }

  // The widget, from any query string, and the page's own files.
  for (const query of ['', '?v=1', '?v=1&v=2', '?%zz', `?q=${'a'.repeat(2000)}`, '?a=%00']) {
    add({
      label: `widget${query.slice(0, 20)}`,
      method: 'GET',
      path: `/widgets/sgpg.js${query}`,
      compareText: true,
    });
  }
  for (const [spelling, path] of spellings('/widgets/sgpg.js')) {
    add({ label: `widget, ${spelling}`, method: 'GET', path });
  }
  for (const path of ['/widgets/other.js', '/widgets', '/widgets/', '/widgets/sgpg.js/x']) {
    add({ label: `widget path ${path}`, method: 'GET', path });
  }
  for (const method of ['HEAD', 'POST', 'DELETE', 'OPTIONS']) {
    add({ label: `widget, ${method}`, method, path: '/widgets/sgpg.js' });
  }
  for (const file of ['checkout.js', 'checkout.css', 'other.js']) {
    add({
      label: `page file ${file}`,
      method: 'GET',
      path: `/checkout/assets/${file}`,
      compareText: true,
    });
  }

  // The page: odd spellings and tokens first (a page read makes a new nonce).
  for (const [spelling, path] of spellings('/checkout/{{paid}}')) {
    page(spelling, path.slice('/checkout/'.length), { path });
  }
  for (const [name, token] of [
    ['unknown token', UNKNOWN_TOKEN],
    ['malformed token', 'nope'],
    ['long token', `ct_${'x'.repeat(300)}`],
    ['escaped token', '%63t_{{paid}}'],
    ['invalid escape', 'ct_%zz'],
  ]) {
    page(name, token);
  }
  page('allowed parent origin', `{{paid}}?origin=${encodeURIComponent(NOWHERE)}`);
  page('other parent origin', '{{paid}}?origin=https%3A%2F%2Fevil.example');
  page('long parent origin', `{{paid}}?origin=${'o'.repeat(301)}`);
  page('HEAD', '{{paid}}', { method: 'HEAD' });
  for (const method of ['POST', 'DELETE', 'PATCH']) page(method, '{{paid}}', { method });
  for (const token of ['{{paid}}', UNKNOWN_TOKEN]) {
    add({
      label: `checkout state, ${token.slice(0, 8)}`,
      method: 'GET',
      path: `/checkout/${token}/status`,
    });
  }

  // The actions, in the order a page takes them; refusals leave the nonce unspent.
  fresh('paid');
  act('outcome before a pair', '{{paid}}', 'outcome', { nonce: '{{paidn}}', outcome: 'paid' });
  act('pair not offered', '{{paid}}', 'pair', {
    nonce: '{{paidn}}',
    currencyCode: 'ETH',
    protocol: 'ERC20',
  });
  act('malformed pair', '{{paid}}', 'pair', {
    nonce: '{{paidn}}',
    currencyCode: 'us dt',
    protocol: 'TRC20',
  });
  act('wrong nonce', '{{paid}}', 'pair', {
    nonce: 'A'.repeat(32),
    currencyCode: 'USDT',
    protocol: 'TRC20',
  });
  act('no nonce', '{{paid}}', 'pair', { currencyCode: 'USDT', protocol: 'TRC20' });
  act('unknown token', UNKNOWN_TOKEN, 'pair', {
    nonce: '{{paidn}}',
    currencyCode: 'USDT',
    protocol: 'TRC20',
  });
  // Every body class, with a nonce of the right shape that is not the page's: nothing changes.
  for (const [name, headers, body] of bodyCases({
    nonce: 'B'.repeat(32),
    currencyCode: 'USDT',
    protocol: 'TRC20',
  })) {
    add({
      label: `page action pair, body ${name}`,
      method: 'POST',
      path: '/checkout/{{paid}}/pair',
      headers,
      body,
    });
  }
  act('chosen', '{{paid}}', 'pair', {
    nonce: '{{paidn}}',
    currencyCode: 'USDT',
    protocol: 'TRC20',
  });
  act('spent nonce', '{{paid}}', 'outcome', { nonce: '{{paidn}}', outcome: 'paid' });
  fresh('paid');
  act('unknown outcome', '{{paid}}', 'outcome', { nonce: '{{paidn}}', outcome: 'maybe' });
  act('unknown reason', '{{paid}}', 'outcome', {
    nonce: '{{paidn}}',
    outcome: 'failed',
    reason: 'NOPE',
  });
  act('paid', '{{paid}}', 'outcome', { nonce: '{{paidn}}', outcome: 'paid' });
  act('after the end', '{{paid}}', 'cancel', { nonce: '{{paidn}}' });
  page('ended', '{{paid}}');
  add({ label: 'checkout state, ended', method: 'GET', path: '/checkout/{{paid}}/status' });
  init('the same request once final', initIframeJson('vk_parity_checkout'), {
    ...MERCHANT,
    ...JSON_TYPE,
  });
  add({
    label: 'status lookup after the payment',
    method: 'GET',
    path: `${'/api/gateway/payment-status/'}vk_parity_checkout`,
    headers: MERCHANT,
  });

  // A cancelled payment, opened again by the same request; a failed one.
  add({
    label: 'init-iframe, to cancel',
    method: 'POST',
    path: INIT_IFRAME,
    headers: { ...MERCHANT, ...JSON_TYPE },
    body: initIframeJson('vk_parity_cancelled'),
    capture: { name: 'cancelled', from: 'token' },
  });
  fresh('cancelled');
  act('cancel', '{{cancelled}}', 'cancel', { nonce: '{{cancelledn}}' });
  init('reopened', initIframeJson('vk_parity_cancelled'), { ...MERCHANT, ...JSON_TYPE });
  add({
    label: 'init-iframe, to fail',
    method: 'POST',
    path: INIT_IFRAME,
    headers: { ...MERCHANT, ...JSON_TYPE },
    body: initIframeJson('vk_parity_failed', { languagePreference: 'de-AT' }),
    capture: { name: 'failed', from: 'token' },
  });
  fresh('failed');
  act('chosen', '{{failed}}', 'pair', {
    nonce: '{{failedn}}',
    currencyCode: 'BTC',
    protocol: 'BTC',
  });
  fresh('failed');
  act('failed', '{{failed}}', 'outcome', {
    nonce: '{{failedn}}',
    outcome: 'failed',
    reason: 'DECLINED',
  });
  page('failed, in German', '{{failed}}');

  // The operator's session routes.
  const sessions = '/admin/payment-sessions';
  for (const query of [
    '',
    'merchantId=parity',
    'merchantId=parity&status=PENDING',
    'status=SUCCESSFUL&size=1',
    'createdFrom=2000-01-01T00:00:00Z',
    'createdTo=2000-01-01T00:00:00Z',
    'createdFrom=yesterday',
    'status=DONE',
    'size=0',
    'size=101',
    'cursor=bad!',
    'merchantId=-x',
    'status=PENDING&status=FAILED',
  ]) {
    add({
      label: `sessions ${query}`,
      method: 'GET',
      path: `${sessions}?${query}`,
      headers: OPERATOR,
    });
  }
  add({ label: 'sessions, no credentials', method: 'GET', path: sessions });
  for (const [spelling, path] of spellings(sessions)) {
    add({ label: `sessions, ${spelling}`, method: 'GET', path, headers: OPERATOR });
  }
  for (const key of [
    'vk_parity_checkout',
    'vk_parity_cancelled',
    'vk_parity_failed',
    SESSION,
    'vk_unknown',
    'vk%7F',
    'k'.repeat(300),
  ]) {
    add({
      label: `session ${key.slice(0, 24)}`,
      method: 'GET',
      path: `${sessions}/${key}`,
      headers: OPERATOR,
    });
  }
  add({
    label: 'session, no credentials',
    method: 'GET',
    path: `${sessions}/vk_parity_checkout`,
  });
  const merchant = '/admin/merchants/parity';
  for (const [name, headers, body] of bodyCases({
    name: 'Parity Ltd',
    checkoutOrigins: ['https://shop.example'],
  })) {
    add({
      label: `merchant patch, body ${name}`,
      method: 'PATCH',
      path: merchant,
      headers: { ...OPERATOR, ...headers },
      body,
    });
  }
  for (const [name, body] of [
    ['bad origin', { checkoutOrigins: ['not an origin'] }],
    ['origin with a path', { checkoutOrigins: ['https://shop.example/path'] }],
    ['empty name', { name: '' }],
    ['empty', {}],
  ] as const) {
    add({
      label: `merchant patch, ${name}`,
      method: 'PATCH',
      path: merchant,
      headers: { ...OPERATOR, ...JSON_TYPE },
      body: JSON.stringify(body),
    });
  }
  add({
    label: 'merchant patch, unknown merchant',
    method: 'PATCH',
    path: '/admin/merchants/nobody',
    headers: { ...OPERATOR, ...JSON_TYPE },
    body: '{"name":"Nobody"}',
  });
}

/** The request's `{{name}}` placeholders filled with what this platform's answers gave. */
function filled(text: string, captured: Captured): string {
  return text.replace(/\{\{(\w+)\}\}/g, (placeholder, name: string) => {
    const value = captured.get(name.toLowerCase());
    if (value === undefined) return placeholder;
    return name === name.toLowerCase() ? value : value.toUpperCase();
  });
}

/** A page's text with this platform's captured values and the page's nonce masked. */
function maskedText(text: string, captured: Captured, origin: string): string {
  let masked = text
    .replace(/data-nonce="[^"]*"/g, 'data-nonce="<nonce>"')
    .split(origin)
    .join('<origin>');
  for (const [name, value] of captured) masked = masked.split(value).join(`{{${name}}}`);
  return masked;
}

/**
 * Sends one corpus request as written (its placeholders filled from `captured`) and reads what a
 * client would compare; keeps what the entry asks to capture.
 */
export function sendCorpusRequest(
  baseUrl: string,
  entry: CorpusRequest,
  captured: Captured = new Map(),
): Promise<CorpusAnswer> {
  const { hostname, port, pathname, origin } = new URL(baseUrl);
  const prefix = pathname === '/' ? '' : pathname;
  const body = entry.body === undefined ? undefined : filled(entry.body, captured);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...entry.headers, connection: 'close' };
    if (body !== undefined) headers['content-length'] = Buffer.byteLength(body);
    const outgoing = httpRequest(
      {
        host: hostname,
        port: Number(port),
        method: entry.method,
        path: prefix + filled(entry.path, captured),
        headers,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = response.statusCode ?? 0;
          const answer: CorpusAnswer = { status };
          const parsed = parseJson(text);
          if (status >= 400) {
            const errors = (parsed as { errors?: { errorCode?: string }[] } | undefined)?.errors;
            answer.errorCodes = errors?.map((e) => String(e.errorCode));
          } else if (parsed !== undefined && entry.method !== 'HEAD') {
            answer.body = masked(parsed, origin);
          } else if (entry.compareText && status < 300) {
            answer.contentType = response.headers['content-type'];
            answer.text = maskedText(text, captured, origin);
          }
          capture(entry, status, parsed, text, captured);
          resolve(answer);
        });
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

function capture(
  entry: CorpusRequest,
  status: number,
  parsed: unknown,
  text: string,
  captured: Captured,
): void {
  if (!entry.capture || status !== 200) return;
  const value =
    entry.capture.from === 'token'
      ? (parsed as { payload?: { initializationToken?: string }[] }).payload?.[0]
          ?.initializationToken
      : /data-nonce="([^"]+)"/.exec(text)?.[1];
  if (value) captured.set(entry.capture.name.toLowerCase(), value);
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

const VOLATILE =
  /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d{4}-\d\d-\d\dT[\d:.]+Z|gw_[\w-]+|whsec_[\w+/=]+|ct_[\w-]{43}|vk_demo_[\w-]{12}|order-[0-9a-z]+-\d+)$/;

/**
 * Ids, times, keys and secrets differ between two databases, and so do the demo shop's keys and
 * orders it makes up; everything else must not.
 */
function masked(value: unknown, origin: string): unknown {
  if (typeof value === 'string') {
    // The platforms listen on ports of their own (the demo shop's callback URLs name it).
    return VOLATILE.test(value) ? '<volatile>' : value.split(origin).join('<origin>');
  }
  if (Array.isArray(value)) return value.map((item) => masked(item, origin));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      // The OpenAPI document and metrics differ only in what they count and where they run.
      // A cursor carries the time its session was created.
      out[k] = ['last4', 'responseTime', 'nextCursor'].includes(k)
        ? '<volatile>'
        : masked(v, origin);
    }
    return out;
  }
  return value;
}
