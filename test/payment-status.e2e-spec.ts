import { readFileSync } from 'node:fs';
import {
  expectEnvelope,
  http,
  startTestApp,
  successfulResponse,
  TestApp,
} from './support/test-app.js';

const STATUS = '/api/gateway/payment-status/';
const NOT_FOUND_BODY =
  '{"errors":[{"type":"FATAL","errorCode":"TRANSACTION_FAILED","message":"Transaction declined: incorrect validation key, no records found.","field":"validationKey"}]}';

const demo = JSON.parse(readFileSync('seeds/demo.json', 'utf8'));

describe('payment status (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    await t.seed(demo);
    await t.seed({
      paymentSessions: [
        {
          validationKey: 'vk-exact-money',
          merchantId: 'demo',
          status: 'SUCCESSFUL',
          paymentResponse: successfulResponse({
            money: { amount: 1234567.5, currency: 'eur' },
            totalFees: { amount: '0.30', currency: 'EUR' },
            sourceMoney: { amount: 0, currency: 'EUR' },
            accountNumber: '12345678',
          }),
        },
        { validationKey: 'vk-nc-plain', merchantId: 'demo', status: 'NOT_COMPLETED' },
        { validationKey: 'vk with spaces & ~!*()', merchantId: 'demo', status: 'PENDING' },
      ],
    });
  });
  afterAll(() => t.close());

  it('answers SUCCESSFUL with the payment response, the session key and masked account', async () => {
    const r = await http(t.url + STATUS + 'vk_demo_successful_4f9c2a7e');
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.body.payload).toHaveLength(1);
    const [element] = r.body.payload;
    expect(Object.keys(element).sort()).toEqual(['paymentResponse', 'status']);
    expect(element.status).toBe('SUCCESSFUL');
    const response = element.paymentResponse;
    expect(response.validationKey).toBe('vk_demo_successful_4f9c2a7e');
    expect(response.sourceMoney).toEqual({
      amount: 150,
      currency: 'EUR',
      presentationAmount: 'EUR150.00',
    });
    expect(response.destinationMoney).toEqual({
      amount: 161.37,
      currency: 'USDT',
      presentationAmount: 'USDT161.37',
    });
    expect(response.totalFees).toEqual({
      amount: 1.5,
      currency: 'EUR',
      presentationAmount: 'EUR1.50',
    });
    expect(response.accountNumber).toBe('IE29XXXXXXXXXXXXXX5678');
    expect(response.transactionReference).toBe('3f2b8c1e-7d4a-4e5b-9c6d-1a2b3c4d5e6f');
    expect(Object.values(response)).not.toContain(null);
  });

  it('computes presentation amounts exactly and omits fields that were not given', async () => {
    const r = await http(t.url + STATUS + 'vk-exact-money');
    const response = r.body.payload[0].paymentResponse;
    expect(response.money).toEqual({
      amount: 1234567.5,
      currency: 'EUR',
      presentationAmount: 'EUR1234567.50',
    });
    expect(response.totalFees).toEqual({
      amount: 0.3,
      currency: 'EUR',
      presentationAmount: 'EUR0.30',
    });
    expect(response.sourceMoney).toEqual({
      amount: 0,
      currency: 'EUR',
      presentationAmount: 'EUR0.00',
    });
    expect(response.accountNumber).toBe('XXXX5678');
    expect(r.text).toContain('"amount":0.3,');
    for (const absent of ['requestedMoney', 'description', 'customerDob', 'senderEmailAddress']) {
      expect(absent in response).toBe(false);
    }
  });

  it('answers PENDING with the status alone', async () => {
    const r = await http(t.url + STATUS + 'vk_demo_pending_8b1d3c5f');
    expect(r.status).toBe(200);
    expect(r.text).toBe('{"payload":[{"status":"PENDING"}]}');
    expect(r.headers.get('cache-control')).toBe('no-store');
  });

  it('answers NOT_COMPLETED with and without detailedStatus', async () => {
    const abandoned = await http(t.url + STATUS + 'vk_demo_not_completed_2e7a9d14');
    expect(abandoned.body).toEqual({
      payload: [{ status: 'NOT_COMPLETED', detailedStatus: 'ABANDONED_BY_USER' }],
    });
    const plain = await http(t.url + STATUS + 'vk-nc-plain');
    expect(plain.text).toBe('{"payload":[{"status":"NOT_COMPLETED"}]}');
  });

  it('answers FAILED with errorMessage, and detailedStatus only when stored', async () => {
    const detailed = await http(t.url + STATUS + 'vk_demo_failed_6c0f8e3b');
    expect(detailed.body).toEqual({
      payload: [
        {
          status: 'FAILED',
          errorMessage: 'Insufficient funds in source wallet',
          detailedStatus: 'INSUFFICIENT_FUNDS',
        },
      ],
    });
    const plain = await http(t.url + STATUS + 'vk_demo_failed_plain_91a4b7c2');
    expect(plain.body).toEqual({
      payload: [{ status: 'FAILED', errorMessage: 'Payment declined by the issuer' }],
    });
  });

  it('finds a key with spaces and punctuation when it is percent-encoded', async () => {
    const r = await http(t.url + STATUS + encodeURIComponent('vk with spaces & ~!*()'));
    expect(r.status).toBe(200);
    expect(r.body.payload[0].status).toBe('PENDING');
  });

  it.each([
    ['an unknown key', 'vk_unknown'],
    ['a key of 256 characters', 'k'.repeat(256)],
    ['a key of 5000 characters', 'k'.repeat(5000)],
    ['a differently cased key', 'VK_DEMO_PENDING_8B1D3C5F'],
    ['SQL', encodeURIComponent("' OR '1'='1")],
    ['a path traversal', '..%2F..%2Fetc%2Fpasswd'],
    ['an undecodable escape', '%E0%A4%A'],
    ['a NUL byte', 'vk%00'],
    ['an extra path segment', 'vk_demo_pending_8b1d3c5f/extra'],
    ['an empty key', ''],
  ])('answers %s with the one byte-identical 404', async (_name, key) => {
    const r = await http(t.url + STATUS + key);
    expect(r.status).toBe(404);
    expect(r.text).toBe(NOT_FOUND_BODY);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('refuses an api-version other than 1, accepts 1 and its alias', async () => {
    const bad = await http(t.url + STATUS + 'vk_demo_pending_8b1d3c5f', {
      headers: { 'api-version': '2' },
    });
    expect(expectEnvelope(bad, 400, 'UNSUPPORTED_API_VERSION')[0].type).toBe('VALIDATION');
    const alias = await http(t.url + STATUS + 'vk_demo_pending_8b1d3c5f', {
      headers: { 'x-api-version': 'v1' },
    });
    expect(alias.status).toBe(400);
    const ok = await http(t.url + STATUS + 'vk_demo_pending_8b1d3c5f', {
      headers: { 'api-version': '1' },
    });
    expect(ok.status).toBe(200);
  });
});
