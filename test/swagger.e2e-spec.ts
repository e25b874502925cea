import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore, { type RulesetDefinition } from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import spectralRulesets from '@stoplight/spectral-rulesets';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectEnvelope, http, startTestApp, TestApp } from './support/test-app.js';
import { PROCESS_TEST_TIMEOUT_MS, startMain } from './support/main-process.js';
import { ErrorKind } from '../src/common/errors/error-catalog.js';
import { API_VERSION_HEADER, REQUEST_ID_HEADER } from '../src/openapi/endpoint-docs.js';
import {
  PAYMENT_RESPONSE_FIELDS,
  SUCCESSFUL_REQUIRED_FIELDS,
} from '../src/payment-status/payment-response.fields.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Doc = any;

const CATALOG_PATHS = [
  '/api/crypto-currency-protocol-processors',
  '/api/crypto-currency-protocol-processor',
];
const STATUS_PATH = '/api/gateway/payment-status/{validationKey}';

/** Every route of the contract, as method and OpenAPI path (without CONTEXT_PATH). */
const ROUTES: [string, string][] = [
  ['get', CATALOG_PATHS[0]],
  ['get', CATALOG_PATHS[1]],
  ['get', STATUS_PATH],
  ['get', '/health/live'],
  ['get', '/health/ready'],
  ['get', '/admin/crypto-pairs'],
  ['post', '/admin/crypto-pairs'],
  ['patch', '/admin/crypto-pairs/{id}'],
  ['delete', '/admin/crypto-pairs/{id}'],
  ['put', '/admin/payment-sessions/{validationKey}'],
  ['get', '/admin/payment-sessions/{validationKey}/history'],
  ['get', '/admin/payment-sessions/{validationKey}/callbacks'],
  ['post', '/admin/callbacks/{id}/redeliver'],
  ['get', '/admin/merchants'],
  ['post', '/admin/merchants'],
  ['get', '/admin/merchants/{id}/api-keys'],
  ['post', '/admin/merchants/{id}/api-keys'],
  ['delete', '/admin/merchants/{id}/api-keys/{keyId}'],
  ['post', '/admin/merchants/{id}/callback-secret'],
  ['delete', '/admin/payment-sessions/{validationKey}/personal-data'],
  ['post', '/admin/operators'],
  ['get', '/admin/operators'],
  ['delete', '/admin/operators/{id}'],
  ['get', '/admin/audit-events'],
  ['get', '/admin/audit-events/verify'],
  ['get', '/admin/audit-events/head'],
  ['get', '/metrics'],
  ['post', '/api/gateway/init-iframe'],
  ['get', '/widgets/sgpg.js'],
  ['get', '/widgets/{script}'],
  ['get', '/checkout/{token}'],
  ['get', '/checkout/{token}/status'],
  ['post', '/checkout/{token}/pair'],
  ['post', '/checkout/{token}/outcome'],
  ['post', '/checkout/{token}/cancel'],
  ['get', '/checkout/assets/checkout.js'],
  ['get', '/checkout/assets/checkout.css'],
  ['get', '/admin/payment-sessions'],
  ['get', '/admin/payment-sessions/{validationKey}'],
  ['patch', '/admin/merchants/{id}'],
  ['put', '/admin/merchants/{id}/deposit-keys/{network}'],
  ['get', '/admin/merchants/{id}/deposit-keys'],
  ['delete', '/admin/merchants/{id}/deposit-keys/{network}'],
  ['put', '/admin/rates/{currencyCode}'],
  ['get', '/admin/rates'],
  ['post', '/admin/deposits'],
  ['get', '/admin/deposits'],
  ['get', '/admin/deposit-addresses'],
  ['post', '/checkout/{token}/deposit'],
  ['get', '/checkout/{token}/qr.svg'],
];

/** Served at the host root even under CONTEXT_PATH (their path item has a server `/`). */
const AT_HOST_ROOT = ['/widgets/sgpg.js'];
/** The sandbox's routes (CHECKOUT_SANDBOX=true only): its home page and demo shop. */
const SANDBOX_ROUTES: [string, string][] = [
  ['get', '/'],
  ['get', '/demo'],
  ['get', '/demo/assets/demo.js'],
  ['get', '/demo/assets/sandbox.css'],
  ['get', '/demo/assets/favicon.svg'],
  ['post', '/demo/payments'],
  ['get', '/demo/payments/{validationKey}'],
  ['post', '/demo/callbacks/{kind}'],
];

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** The sandbox's data, as `npm start` seeds it. */
const DEMO = JSON.parse(readFileSync('seeds/demo.json', 'utf8'));

/**
 * Warnings of the `recommended` ruleset that are accepted, with the reason. The service is not
 * published under a licence, so its licence object has a name and no URL.
 */
const ACCEPTED_LINT_WARNINGS = ['info-license-strict'];

/** Errors, and warnings other than the accepted ones, of the redocly `recommended` ruleset. */
async function redoclyFindings(doc: Doc): Promise<string[]> {
  const problems = await lintFromString({
    source: JSON.stringify(doc),
    absoluteRef: 'docs-json.json',
    config: await createConfig({ extends: ['recommended'] }),
  });
  return problems
    .filter((p) => p.severity === 'error' || !ACCEPTED_LINT_WARNINGS.includes(p.ruleId))
    .map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
}

/** Findings of the Spectral `spectral:oas` ruleset. */
async function spectralFindings(doc: Doc): Promise<string[]> {
  const { Spectral, Document } = spectralCore;
  const spectral = new Spectral();
  spectral.setRuleset({ extends: [[spectralRulesets.oas as RulesetDefinition, 'recommended']] });
  const results = await spectral.run(
    new Document(JSON.stringify(doc), spectralParsers.Json, 'docs-json.json'),
  );
  return results.map((r) => `${r.code}: ${r.message} at ${r.path.join('.')}`);
}

/** Every operation of the document, with its path and method. */
function operations(doc: Doc): { path: string; method: string; op: any }[] {
  return Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => HTTP_METHODS.includes(key))
      .map((method) => ({ path, method, op: item[method] })),
  );
}

/** Follows a local `#/components/...` reference. */
function deref(doc: Doc, schema: any): any {
  if (schema && typeof schema.$ref === 'string') {
    const parts = schema.$ref.replace(/^#\//, '').split('/');
    return deref(
      doc,
      parts.reduce((node: any, part: string) => node?.[part], doc),
    );
  }
  return schema;
}

function operation(doc: Doc, method: string, path: string): any {
  const op = doc.paths?.[path]?.[method];
  if (!op) throw new Error(`${method.toUpperCase()} ${path} is not documented`);
  return op;
}

function queryParameter(doc: Doc, path: string, name: string): any {
  const parameter = (operation(doc, 'get', path).parameters ?? [])
    .map((p: any) => deref(doc, p))
    .find((p: any) => p.in === 'query' && p.name === name);
  if (!parameter) throw new Error(`query parameter ${name} of ${path} is not documented`);
  return { ...parameter, schema: deref(doc, parameter.schema) };
}

/** Asserts that a documented response is the error envelope. */
function expectEnvelopeSchema(doc: Doc, response: any, where: string): void {
  const resolved = deref(doc, response);
  const schema = deref(doc, resolved?.content?.['application/json']?.schema);
  if (!schema) throw new Error(`${where} has no application/json schema`);
  expect(schema.type).toBe('object');
  expect(schema.required).toContain('errors');
  expect(schema.properties.errors.type).toBe('array');
  const item = deref(doc, schema.properties.errors.items);
  expect(item.type).toBe('object');
  expect([...item.required].sort()).toEqual(['errorCode', 'message', 'type']);
  for (const name of ['type', 'errorCode', 'message', 'field']) {
    expect(item.properties[name]?.type).toBe('string');
  }
}

describe('OpenAPI document (e2e)', () => {
  let t: TestApp;
  let doc: Doc;

  beforeAll(async () => {
    t = await startTestApp();
    const r = await http(t.url + '/docs-json');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    doc = r.body;
  });
  afterAll(() => t.close());

  it('is a valid OpenAPI 3 document', async () => {
    expect(String(doc.openapi)).toMatch(/^3\./);
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
  });

  it.each(ROUTES)('documents %s %s', (method, path) => {
    const op = operation(doc, method, path);
    expect(Object.keys(op.responses ?? {}).some((status) => /^2\d\d$/.test(status))).toBe(true);
  });

  it('documents no route beyond those of the contract', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, item]: [string, any]) =>
      Object.keys(item)
        .filter((key) => HTTP_METHODS.includes(key))
        .map((method) => `${method} ${path}`),
    );
    expect(documented.sort()).toEqual(ROUTES.map(([m, p]) => `${m} ${p}`).sort());
  });

  it.each(CATALOG_PATHS)('documents the query parameter rules of %s', (path) => {
    const countryCode = queryParameter(doc, path, 'countryCode');
    const currencyCode = queryParameter(doc, path, 'currencyCode');
    const protocol = queryParameter(doc, path, 'protocol');
    const page = queryParameter(doc, path, 'page');
    const size = queryParameter(doc, path, 'size');

    for (const parameter of [countryCode, currencyCode, protocol, page, size]) {
      expect(parameter.required ?? false).toBe(false);
    }

    const matches = (parameter: any, value: string) =>
      new RegExp(parameter.schema.pattern).test(value);
    expect(countryCode.schema.type).toBe('string');
    expect(matches(countryCode, 'IE')).toBe(true);
    expect(matches(countryCode, 'ie')).toBe(true);
    expect(matches(countryCode, 'IRL')).toBe(false);
    expect(matches(countryCode, 'I1')).toBe(false);
    expect(matches(countryCode, '')).toBe(false);

    expect(matches(currencyCode, 'usdt')).toBe(true);
    expect(matches(currencyCode, 'A'.repeat(16))).toBe(true);
    expect(matches(currencyCode, 'A'.repeat(17))).toBe(false);
    expect(matches(currencyCode, 'US-DT')).toBe(false);

    expect(matches(protocol, 'sol_net-2')).toBe(true);
    expect(matches(protocol, 'P'.repeat(32))).toBe(true);
    expect(matches(protocol, 'P'.repeat(33))).toBe(false);
    expect(matches(protocol, 'TRC 20')).toBe(false);

    expect(page.schema).toMatchObject({ type: 'integer', minimum: 0, maximum: 1000000 });
    expect(page.schema.default ?? 0).toBe(0);
    expect(size.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(size.schema.default ?? 10).toBe(10);
  });

  it('documents the validationKey path parameter of the payment status', () => {
    const parameters = (operation(doc, 'get', STATUS_PATH).parameters ?? []).map((p: any) =>
      deref(doc, p),
    );
    expect(parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'validationKey', in: 'path', required: true }),
      ]),
    );
  });

  it('documents the payment status 200 as one of four shapes, discriminated by status', () => {
    const ok = deref(doc, operation(doc, 'get', STATUS_PATH).responses['200']);
    const envelope = deref(doc, ok.content['application/json'].schema);
    expect(envelope.required).toContain('payload');
    const payload = envelope.properties.payload;
    expect(payload.type).toBe('array');
    expect(payload.minItems).toBe(1);
    expect(payload.maxItems).toBe(1);
    const items = payload.items;
    expect(items.oneOf).toHaveLength(4);
    expect(items.discriminator.propertyName).toBe('status');

    const mapping = items.discriminator.mapping as Record<string, string>;
    expect(Object.keys(mapping).sort()).toEqual([
      'FAILED',
      'NOT_COMPLETED',
      'PENDING',
      'SUCCESSFUL',
    ]);
    const refs = items.oneOf.map((s: any) => s.$ref).sort();
    expect(Object.values(mapping).sort()).toEqual(refs);

    const shapes = Object.fromEntries(
      Object.entries(mapping).map(([status, ref]) => [status, deref(doc, { $ref: ref })]),
    );
    for (const [status, shape] of Object.entries<any>(shapes)) {
      expect(shape.properties.status.enum).toEqual([status]);
      expect(shape.required).toContain('status');
    }
    const required = (status: string) => [...(shapes[status].required ?? [])].sort();
    const properties = (status: string) => Object.keys(shapes[status].properties).sort();
    expect(properties('SUCCESSFUL')).toEqual(['paymentResponse', 'status']);
    expect(required('SUCCESSFUL')).toEqual(['paymentResponse', 'status']);
    expect(properties('PENDING')).toEqual(['status']);
    expect(properties('NOT_COMPLETED')).toEqual(['detailedStatus', 'status']);
    expect(required('NOT_COMPLETED')).toEqual(['status']);
    expect(properties('FAILED')).toEqual(['detailedStatus', 'errorMessage', 'status']);
    expect(required('FAILED')).toEqual(['errorMessage', 'status']);

    const response = deref(doc, shapes.SUCCESSFUL.properties.paymentResponse);
    // What the service always returns is required, so generated clients need no checks for it;
    // the rest, personal fields included (they can be erased), stays optional.
    expect([...response.required].sort()).toEqual(
      ['validationKey', ...SUCCESSFUL_REQUIRED_FIELDS].sort(),
    );
    expect(Object.keys(response.properties)).toEqual(Object.keys(PAYMENT_RESPONSE_FIELDS));
    for (const [field, kind] of Object.entries(PAYMENT_RESPONSE_FIELDS)) {
      if (kind === 'money') {
        const money = deref(doc, response.properties[field]);
        expect(Object.keys(money.properties).sort()).toEqual([
          'amount',
          'currency',
          'presentationAmount',
        ]);
      } else {
        expect(response.properties[field]?.type).toBe('string');
      }
    }
  });

  it('documents the error envelope for 400, 401, 429 and 500 on every API and operator route', () => {
    const credentialed = (p: string) => /^\/(api|admin|metrics)/.test(p);
    for (const [method, path] of ROUTES.filter(([, p]) => credentialed(p))) {
      const responses = operation(doc, method, path).responses;
      for (const status of ['400', '401', '429', '500']) {
        expect({ route: `${method} ${path}`, status, documented: status in responses }).toEqual({
          route: `${method} ${path}`,
          status,
          documented: true,
        });
        expectEnvelopeSchema(doc, responses[status], `${method} ${path} ${status}`);
      }
    }
  });

  it('documents the 404 of the payment status with the exact body of the contract', () => {
    const notFound = deref(doc, operation(doc, 'get', STATUS_PATH).responses['404']);
    expectEnvelopeSchema(doc, notFound, 'payment status 404');
    const content = notFound.content['application/json'];
    const examples = [
      content.example,
      ...Object.values<any>(content.examples ?? {}).map((e) => e.value),
    ].filter(Boolean);
    expect(examples).toContainEqual({
      errors: [
        {
          type: 'FATAL',
          errorCode: 'TRANSACTION_FAILED',
          message: 'Transaction declined: incorrect validation key, no records found.',
          field: 'validationKey',
        },
      ],
    });
  });

  it('documents every error response of every route as the error envelope', () => {
    let checked = 0;
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const method of Object.keys(item).filter((key) => HTTP_METHODS.includes(key))) {
        for (const [status, response] of Object.entries<any>(item[method].responses ?? {})) {
          if (!/^[45]\d\d$/.test(status)) continue;
          expectEnvelopeSchema(doc, response, `${method} ${path} ${status}`);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(ROUTES.length * 4);
  });

  it('documents the API key header and the operator bearer token', () => {
    const schemes = Object.values<any>(doc.components.securitySchemes ?? {});
    expect(schemes).toContainEqual(
      expect.objectContaining({ type: 'apiKey', in: 'header', name: 'key' }),
    );
    expect(schemes).toContainEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
  });

  it('has zero errors from the redocly `recommended` ruleset (what `redocly lint` runs)', async () => {
    expect(await redoclyFindings(doc)).toEqual([]);
  });

  it('has no finding from the Spectral `spectral:oas` ruleset', async () => {
    expect(await spectralFindings(doc)).toEqual([]);
  });

  it('describes each group of operations in the top-level tags, and no other group', () => {
    const used = new Set(operations(doc).flatMap(({ op }) => op.tags ?? []));
    expect(doc.tags.map((tag: any) => tag.name).sort()).toEqual([...used].sort());
    for (const tag of doc.tags) expect(tag.description).toMatch(/\S/);
  });

  it('names every operation for the domain, once; the singular catalog path is an alias', () => {
    const ids = operations(doc).map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(
      [
        'listCryptoPairs',
        'listCryptoPairsSingularAlias',
        'getPaymentStatus',
        'getLiveness',
        'getReadiness',
        'listAllCryptoPairs',
        'createCryptoPair',
        'updateCryptoPair',
        'deleteCryptoPair',
        'reportPaymentSession',
        'getPaymentSessionHistory',
        'listMerchants',
        'createMerchant',
        'listApiKeys',
        'createApiKey',
        'revokeApiKey',
        'rotateCallbackSecret',
        'listPaymentSessionCallbacks',
        'redeliverCallback',
        'erasePaymentSessionPersonalData',
        'createOperator',
        'listOperators',
        'revokeOperator',
        'listAuditEvents',
        'verifyAuditTrail',
        'getAuditHead',
        'getMetrics',
        'initIframe',
        'getWidgetScriptAtHostRoot',
        'getWidgetScript',
        'getCheckoutPage',
        'getCheckoutState',
        'chooseCheckoutPair',
        'decideCheckoutOutcome',
        'cancelCheckout',
        'getCheckoutPageScript',
        'getCheckoutPageStylesheet',
        'listPaymentSessions',
        'getPaymentSession',
        'updateMerchant',
        'putDepositKey',
        'listDepositKeys',
        'deleteDepositKey',
        'putRate',
        'listRates',
        'reportDeposit',
        'listDeposits',
        'listWatchedAddresses',
        'sendSandboxDeposit',
        'getCheckoutQrCode',
      ].sort(),
    );
    const canonical = operation(doc, 'get', CATALOG_PATHS[0]);
    const alias = operation(doc, 'get', CATALOG_PATHS[1]);
    expect(canonical['x-alias-of']).toBeUndefined();
    expect(alias).toMatchObject({
      operationId: 'listCryptoPairsSingularAlias',
      'x-alias-of': 'listCryptoPairs',
    });
    expect(alias.description).toContain(`Alias of \`GET ${CATALOG_PATHS[0]}\``);
    // The contract keeps the alias as a supported path.
    expect(alias.deprecated ?? false).toBe(false);
    expect(alias.parameters).toEqual(canonical.parameters);
    expect(alias.responses).toEqual(canonical.responses);
  });

  it('carries CONTEXT_PATH in `servers` only (none here)', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    expect(Object.keys(doc.paths).sort()).toEqual([...new Set(ROUTES.map(([, p]) => p))].sort());
  });

  it('declares `api-version` and `x-request-id` on every request and `x-request-id` on every answer', () => {
    for (const { path, method, op } of operations(doc)) {
      const headers = (op.parameters ?? [])
        .map((p: any) => deref(doc, p))
        .filter((p: any) => p.in === 'header')
        .map((p: any) => p.name);
      expect({ route: `${method} ${path}`, headers }).toEqual({
        route: `${method} ${path}`,
        headers: expect.arrayContaining([API_VERSION_HEADER, REQUEST_ID_HEADER]),
      });
      for (const [status, response] of Object.entries<any>(op.responses)) {
        expect({
          route: `${method} ${path} ${status}`,
          required: response.headers?.[REQUEST_ID_HEADER]?.required,
        }).toEqual({
          route: `${method} ${path} ${status}`,
          required: true,
        });
      }
    }
  });

  it('lists the error catalog in the envelope schema: every errorCode, both types', () => {
    const item = deref(doc, { $ref: '#/components/schemas/ErrorItemDto' });
    expect([...item.properties.errorCode.enum].sort()).toEqual(Object.keys(ErrorKind).sort());
    expect([...item.properties.type.enum].sort()).toEqual(['FATAL', 'VALIDATION']);
  });

  it("quotes this deployment's settings, with no placeholder left", () => {
    expect(JSON.stringify(doc)).not.toMatch(/\{\{\w+\}\}/);
    const cacheControl = operation(doc, 'get', CATALOG_PATHS[0]).responses['200'].headers[
      'Cache-Control'
    ];
    expect(cacheControl.schema.enum).toEqual([
      `private, max-age=${t.config.catalogCacheTtlSeconds}`,
    ]);
    expect(cacheControl.description).toContain(
      `private, max-age=${t.config.catalogCacheTtlSeconds}`,
    );
  });

  it('documents readiness as it answers: its own 200, and the error envelope on 503', () => {
    const ready = operation(doc, 'get', '/health/ready');
    expectEnvelopeSchema(doc, ready.responses['503'], 'readiness 503');
    expect(ready.responses['503'].headers['Retry-After'].required).toBe(true);
    expect(
      deref(doc, ready.responses['200'].content['application/json'].schema).properties.status.enum,
    ).toEqual(['ok']);
    expect(operation(doc, 'get', '/health/live').responses['503']).toBeUndefined();
  });

  it('pre-fills no optional filter of "Try it out" (no example, examples or default)', () => {
    for (const path of [...CATALOG_PATHS, '/admin/crypto-pairs']) {
      for (const name of ['countryCode', 'currencyCode', 'protocol']) {
        const parameter = path.startsWith('/admin')
          ? (operation(doc, 'get', path).parameters ?? []).find((p: any) => p.name === name)
          : queryParameter(doc, path, name);
        const schema = deref(doc, parameter.schema);
        expect({
          path,
          name,
          values: [parameter.example, parameter.examples, schema.example, schema.default],
        }).toEqual({
          path,
          name,
          values: [undefined, undefined, undefined, undefined],
        });
      }
    }
  });

  it("offers every one of the sandbox's demo sessions and its demo key, as seeds/demo.json and the README have them", () => {
    const sessions = new Map<string, string>(
      DEMO.paymentSessions.map((s: any) => [s.validationKey, s.status]),
    );
    const readme = readFileSync('README.md', 'utf8');
    const listedInReadme = [...new Set(readme.match(/vk_demo_\w+/g))].sort();
    expect(listedInReadme).toEqual([...sessions.keys()].sort());
    for (const path of [
      STATUS_PATH,
      '/admin/payment-sessions/{validationKey}/history',
      '/admin/payment-sessions/{validationKey}/callbacks',
    ]) {
      const parameter = (operation(doc, 'get', path).parameters ?? []).find(
        (p: any) => p.name === 'validationKey',
      );
      const offered = Object.values<any>(parameter.examples).map((e) => e.value);
      expect(offered.sort()).toEqual([...sessions.keys()].sort());
      for (const [name, e] of Object.entries<any>(parameter.examples)) {
        expect({ name, status: sessions.get(e.value) }).toEqual({
          name,
          status: name.replace(/_PLAIN$/, ''),
        });
      }
    }
    // The PUT example creates a session: it must not be one the sandbox already has.
    const put = operation(doc, 'put', '/admin/payment-sessions/{validationKey}');
    for (const e of Object.values<any>(
      put.parameters.find((p: any) => p.name === 'validationKey').examples,
    )) {
      expect(sessions.has(e.value)).toBe(false);
    }
    const demoKey = DEMO.merchants.find((m: any) => m.id === 'demo').apiKeys[0];
    expect(doc.components.securitySchemes.apiKey.description).toContain(`\`${demoKey}\``);
  });

  it('describes the operator token as an opaque bearer token, not a JWT', () => {
    const scheme = doc.components.securitySchemes.adminToken;
    expect(scheme).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(scheme.bearerFormat).toBeUndefined();
  });

  it("tells Swagger UI not to keep tokens in the browser's storage", async () => {
    const init = await http(t.url + '/docs/swagger-ui-init.js');
    expect(init.status).toBe(200);
    expect(init.text).toMatch(/"persistAuthorization":\s*false/);
    // Outside the sandbox the page is not authorized with the published demo key.
    expect(swaggerUiOptions(init.text).authAction).toBeUndefined();
  });

  it(
    'is the same document when served by the built entry point (node dist/main.js)',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'gateway-docs-'));
      const main = await startMain({
        DATABASE_URL: `sqlite:${join(dir, 'gateway.sqlite')}`,
        LOG_LEVEL: 'silent',
      });
      try {
        const built = await http(`${main.url}/docs-json`);
        expect(built.status).toBe(200);
        expect(built.body).toEqual(doc);
      } finally {
        main.child.kill('SIGKILL');
        await main.exited;
        rmSync(dir, { recursive: true, force: true });
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it('serves the Swagger UI page at /docs with its assets', async () => {
    const page = await http(t.url + '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toMatch(/<html/i);
    expect(page.text).toMatch(/swagger-ui/i);
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+\.(?:js|css))"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      const r = await http(new URL(asset, t.url + '/docs').toString());
      expect({ asset, status: r.status }).toEqual({ asset, status: 200 });
    }
  });
});

/** The options the docs page's script hands Swagger UI (its `customOptions`). */
function swaggerUiOptions(script: string): {
  authAction?: Record<string, unknown>;
  persistAuthorization?: boolean;
} {
  const options = /let options = (\{[\s\S]*?\});\n/.exec(script);
  expect(options).not.toBeNull();
  return (JSON.parse(options![1]) as { customOptions: Record<string, unknown> }).customOptions;
}

describe('OpenAPI document of the sandbox (e2e)', () => {
  let t: TestApp;
  let doc: Doc;

  beforeAll(async () => {
    t = await startTestApp({ CHECKOUT_SANDBOX: 'true' });
    doc = (await http(t.url + '/docs-json')).body;
  });
  afterAll(() => t.close());

  it('documents the sandbox routes beside those of the contract, in a group of their own', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
    const documented = operations(doc).map(({ method, path }) => `${method} ${path}`);
    expect(documented.sort()).toEqual(
      [...ROUTES, ...SANDBOX_ROUTES].map(([m, p]) => `${m} ${p}`).sort(),
    );
    const sandbox = operations(doc).filter(({ op }) => op.tags.includes('Sandbox'));
    expect(sandbox.map(({ method, path }) => [method, path]).sort()).toEqual(
      [...SANDBOX_ROUTES].sort(),
    );
    const used = new Set(operations(doc).flatMap(({ op }) => op.tags ?? []));
    expect(doc.tags.map((tag: any) => tag.name).sort()).toEqual([...used].sort());
  });

  it('lints as cleanly as the production document (redocly, Spectral)', async () => {
    expect(await redoclyFindings(doc)).toEqual([]);
    expect(await spectralFindings(doc)).toEqual([]);
  });

  it('opens Swagger UI authorized with the demo key, where keys are asked for', async () => {
    // Without keys (AUTH_MODE=none) there is nothing to authorize.
    const open = await http(t.url + '/docs/swagger-ui-init.js');
    expect(swaggerUiOptions(open.text).authAction).toBeUndefined();
    const keyed = await startTestApp({ CHECKOUT_SANDBOX: 'true', AUTH_MODE: 'api-key' });
    const init = await http(keyed.url + '/docs/swagger-ui-init.js').finally(() => keyed.close());
    expect(init.status).toBe(200);
    const customOptions = swaggerUiOptions(init.text);
    expect(customOptions.persistAuthorization).toBe(false);
    expect(customOptions.authAction).toEqual({
      apiKey: {
        name: 'apiKey',
        schema: { type: 'apiKey', in: 'header', name: 'key' },
        value: 'gw_demo_sandbox_key_do_not_use_in_production',
      },
    });
  });
});

describe('OpenAPI document under CONTEXT_PATH (e2e)', () => {
  let t: TestApp;
  let origin: string;

  beforeAll(async () => {
    t = await startTestApp({ CONTEXT_PATH: '/pegasus-ci', CATALOG_CACHE_TTL_SECONDS: '45' });
    origin = new URL(t.url).origin;
  });
  afterAll(() => t.close());

  it('serves the document at /pegasus-ci/docs-json with every route under the prefix', async () => {
    expect(t.url).toBe(`${origin}/pegasus-ci`);
    const r = await http(origin + '/pegasus-ci/docs-json');
    expect(r.status).toBe(200);
    const doc = r.body;
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
    // The prefix is in `servers`, never in the paths.
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/pegasus-ci' })]);
    const base = doc.servers[0].url;
    const effective = Object.entries<any>(doc.paths).map(
      ([path, item]) => `${item.servers?.[0]?.url === '/' ? '' : base}${path}`,
    );
    expect(effective.sort()).toEqual(
      [
        ...new Set(
          ROUTES.map(([, path]) => (AT_HOST_ROOT.includes(path) ? path : `/pegasus-ci${path}`)),
        ),
      ].sort(),
    );
    // And they answer there: the widget at the host root and below the prefix.
    for (const url of [`${origin}/widgets/sgpg.js`, `${origin}/pegasus-ci/widgets/sgpg.js`]) {
      const script = await http(url);
      expect(script.status).toBe(200);
      expect(script.text).toContain('"/pegasus-ci"');
    }
  });

  it('quotes the configured catalog cache lifetime, as the catalog answers it', async () => {
    const doc = (await http(origin + '/pegasus-ci/docs-json')).body;
    const documented = operation(doc, 'get', CATALOG_PATHS[0]).responses['200'].headers[
      'Cache-Control'
    ].schema.enum;
    expect(documented).toEqual(['private, max-age=45']);
    const catalog = await http(origin + '/pegasus-ci' + CATALOG_PATHS[0]);
    expect(documented).toContain(catalog.headers.get('cache-control'));
  });

  it('serves the Swagger UI page at /pegasus-ci/docs', async () => {
    const page = await http(origin + '/pegasus-ci/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('answers the API under the prefix', async () => {
    const catalog = await http(origin + '/pegasus-ci' + CATALOG_PATHS[0]);
    expect(catalog.status).toBe(200);
    expect(catalog.body).toEqual({ payload: [], page: { size: 10, page: 0, total: 0 } });
    expect((await http(origin + '/pegasus-ci/health/live')).status).toBe(200);
    const status = await http(origin + '/pegasus-ci/api/gateway/payment-status/vk_unknown');
    expectEnvelope(status, 404, 'TRANSACTION_FAILED');
  });

  it.each([
    CATALOG_PATHS[0],
    '/health/live',
    '/docs-json',
    '/api/gateway/payment-status/vk_unknown',
  ])('does not answer %s without the prefix (404 error envelope)', async (path) => {
    const r = await http(origin + path);
    expectEnvelope(r, 404, 'NOT_FOUND');
  });
});
