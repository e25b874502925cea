import SwaggerParser from '@apidevtools/swagger-parser';
import { expectEnvelope, http, startTestApp, TestApp } from './support/test-app.js';
import { PAYMENT_RESPONSE_FIELDS } from '../src/payment-status/payment-response.fields.js';

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
  ['get', '/metrics'],
];

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

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
    expect(response.required).toContain('validationKey');
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
    for (const [method, path] of ROUTES.filter(([, p]) => !p.startsWith('/health'))) {
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

describe('OpenAPI document under CONTEXT_PATH (e2e)', () => {
  let t: TestApp;
  let origin: string;

  beforeAll(async () => {
    t = await startTestApp({ CONTEXT_PATH: '/pegasus-ci' });
    origin = new URL(t.url).origin;
  });
  afterAll(() => t.close());

  it('serves the document at /pegasus-ci/docs-json with every route under the prefix', async () => {
    expect(t.url).toBe(`${origin}/pegasus-ci`);
    const r = await http(origin + '/pegasus-ci/docs-json');
    expect(r.status).toBe(200);
    const doc = r.body;
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
    const base = doc.servers?.[0]?.url ?? '';
    const effective = Object.keys(doc.paths).map((path) => `${base}${path}`);
    expect(effective.sort()).toEqual(
      [...new Set(ROUTES.map(([, path]) => `/pegasus-ci${path}`))].sort(),
    );
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
