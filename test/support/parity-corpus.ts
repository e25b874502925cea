import { request as httpRequest } from 'node:http';
import { ADMIN_TOKEN, successfulResponse } from './test-app.js';

/**
 * The requests both HTTP platforms must answer alike: path spellings, queries, headers, bodies,
 * content types and methods, crossed so that each class meets the others. Deterministic: the
 * same list in the same order every run, so two applications that start alike end alike.
 */
export interface CorpusRequest {
  label: string;
  method: string;
  /** Sent exactly as written: no URL parser normalises it on the way. */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface CorpusAnswer {
  status: number;
  errorCodes?: string[];
  /** 2xx JSON bodies with what differs between two databases (ids, times, secrets) masked. */
  body?: unknown;
}

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
  return corpus;
}

/** Sends one corpus request as written and reads what a client would compare. */
export function sendCorpusRequest(baseUrl: string, entry: CorpusRequest): Promise<CorpusAnswer> {
  const { hostname, port, pathname } = new URL(baseUrl);
  const prefix = pathname === '/' ? '' : pathname;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...entry.headers, connection: 'close' };
    if (entry.body !== undefined) headers['content-length'] = Buffer.byteLength(entry.body);
    const outgoing = httpRequest(
      {
        host: hostname,
        port: Number(port),
        method: entry.method,
        path: prefix + entry.path,
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
            answer.body = masked(parsed);
          }
          resolve(answer);
        });
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(entry.body);
  });
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

const VOLATILE =
  /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d{4}-\d\d-\d\dT[\d:.]+Z|gw_[\w-]+|whsec_[\w+/=]+)$/;

/** Ids, times, keys and secrets differ between two databases; everything else must not. */
function masked(value: unknown): unknown {
  if (typeof value === 'string') return VOLATILE.test(value) ? '<volatile>' : value;
  if (Array.isArray(value)) return value.map(masked);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      // The OpenAPI document and metrics differ only in what they count and where they run.
      out[k] = k === 'last4' || k === 'responseTime' ? '<volatile>' : masked(v);
    }
    return out;
  }
  return value;
}
