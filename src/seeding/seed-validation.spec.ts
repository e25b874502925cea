import { UNKNOWN_FIELD_RULE } from '../common/validation.js';
import { ZONED_DATE_TIME_RULE } from '../common/iso-time.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { successfulResponse } from '../../test/support/fixtures.js';
import { RECORD_RULE } from './seed-file.dto.js';
import { validateSeed } from './seed-validation.js';

function pair(currencyCode: string, protocol: string, countryCode: string, enabled = true) {
  return { currencyCode, currencyName: `${currencyCode} coin`, protocol, countryCode, enabled };
}

const MERCHANT = { id: 'demo', name: 'Demo', apiKeys: ['k'.repeat(32)] };

/** The errors of a file that must be refused. */
async function errorsOf(content: unknown) {
  const result = await validateSeed(content);
  if (result.ok) throw new Error('expected the seed file to be refused');
  return result.errors;
}

describe('validateSeed', () => {
  it('accepts the demo seed file', async () => {
    const demo = JSON.parse(readFileSync(join(process.cwd(), 'seeds', 'demo.json'), 'utf8'));
    const result = await validateSeed(demo);
    expect(result).toMatchObject({ ok: true });
    if (!result.ok) return;
    expect(result.seed.cryptoPairs).toHaveLength(demo.cryptoPairs.length);
    expect(result.seed.paymentSessions).toHaveLength(demo.paymentSessions.length);
  });

  it('accepts a file with every section, and an empty file (all sections optional)', async () => {
    const result = await validateSeed({
      cryptoPairs: [pair('usdt', 'trc20', 'ie')],
      merchants: [MERCHANT],
      paymentSessions: [
        {
          validationKey: 'vk_1',
          merchantId: 'demo',
          status: 'SUCCESSFUL',
          paymentResponse: successfulResponse(),
        },
        { validationKey: 'vk_2', merchantId: 'demo', status: 'PENDING' },
        { validationKey: 'vk_3', merchantId: 'demo', status: 'NOT_COMPLETED', detailedStatus: 'X' },
        { validationKey: 'vk_4', merchantId: 'demo', status: 'FAILED', errorMessage: 'Declined' },
      ],
    });
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.seed.cryptoPairs?.[0]).toMatchObject({
        currencyCode: 'USDT',
        protocol: 'TRC20',
        countryCode: 'IE',
      });
    }
    expect(await validateSeed({})).toMatchObject({ ok: true });
  });

  it('reports a bad record by its path and rule', async () => {
    const pairs = [
      pair('USDT', 'TRC20', 'IE'),
      pair('USDT', 'TRC20', 'DE'),
      pair('USDT', 'TRC20', 'FR'),
      pair('USDT', 'TRC20', 'IRL'),
    ];
    expect(await errorsOf({ cryptoPairs: pairs })).toEqual([
      { field: 'cryptoPairs[3].countryCode', message: 'must be two letters A-Z' },
    ]);
  });

  it('refuses codes with letters that only upper-case into ASCII', async () => {
    expect(
      await errorsOf({
        cryptoPairs: [pair('ſol', 'ſpl', 'ıt'), pair('USDT', 'TRC20', 'IE')],
      }),
    ).toEqual([
      { field: 'cryptoPairs[0].countryCode', message: 'must be two letters A-Z' },
      { field: 'cryptoPairs[0].currencyCode', message: 'must be 1 to 16 letters or digits' },
      {
        field: 'cryptoPairs[0].protocol',
        message: 'must be 1 to 32 of the characters A-Z a-z 0-9 _ -',
      },
    ]);
  });

  it('refuses a section it does not know, naming it and the known ones', async () => {
    expect(
      await errorsOf({
        cryptoPairs: [pair('USDT', 'TRC20', 'IE')],
        paymentSession: [],
        CryptoPairs: [],
      }),
    ).toEqual([
      {
        field: 'CryptoPairs',
        message: 'is not a known section (cryptoPairs, merchants, paymentSessions, operators)',
      },
      {
        field: 'paymentSession',
        message: 'is not a known section (cryptoPairs, merchants, paymentSessions, operators)',
      },
    ]);
  });

  it('reports every bad record, one entry each', async () => {
    const errors = await errorsOf({
      cryptoPairs: [
        pair('USDT', 'TRC20', 'IE'),
        pair('US-DT', 'TRC20', 'DE'),
        pair('USDT', 'TRC 20', 'FR'),
        pair('USDT', 'TRC20', 'I1'),
        { ...pair('USDT', 'ERC20', 'IE'), enabled: 'yes' },
        { currencyCode: 'USDT', protocol: 'ERC20', countryCode: 'DE' },
      ],
      merchants: [
        { id: '', name: 'x' },
        { id: 'ok', name: 'Ok', apiKeys: ['short'] },
      ],
    });
    expect(errors).toEqual([
      { field: 'cryptoPairs[1].currencyCode', message: 'must be 1 to 16 letters or digits' },
      {
        field: 'cryptoPairs[2].protocol',
        message: 'must be 1 to 32 of the characters A-Z a-z 0-9 _ -',
      },
      { field: 'cryptoPairs[3].countryCode', message: 'must be two letters A-Z' },
      { field: 'cryptoPairs[4].enabled', message: 'must be true or false' },
      { field: 'cryptoPairs[5].currencyName', message: expect.any(String) },
      { field: 'merchants[0].id', message: expect.any(String) },
      { field: 'merchants[1].apiKeys', message: expect.stringContaining('32') },
    ]);
  });

  it('names nested fields by their full path', async () => {
    const errors = await errorsOf({
      paymentSessions: [
        {
          validationKey: 'vk_1',
          merchantId: 'demo',
          status: 'SUCCESSFUL',
          paymentResponse: successfulResponse({
            money: { amount: 1.005, currency: 'EUR' },
            sourceMoney: { amount: 150, currency: 'E' },
            accountNumber: '',
          }),
        },
      ],
    });
    expect(errors).toEqual([
      { field: 'paymentSessions[0].paymentResponse.accountNumber', message: expect.any(String) },
      {
        field: 'paymentSessions[0].paymentResponse.money.amount',
        message: expect.stringMatching(/non-negative amount with at most two decimals/),
      },
      {
        field: 'paymentSessions[0].paymentResponse.sourceMoney.currency',
        message: expect.any(String),
      },
    ]);
  });

  it('applies the status rules to each session', async () => {
    const errors = await errorsOf({
      paymentSessions: [
        { validationKey: 'vk_ok', merchantId: 'demo', status: 'PENDING' },
        { validationKey: 'vk_s', merchantId: 'demo', status: 'SUCCESSFUL' },
        { validationKey: 'vk_f', merchantId: 'demo', status: 'FAILED' },
        {
          validationKey: 'vk_p',
          merchantId: 'demo',
          status: 'PENDING',
          errorMessage: 'x',
          detailedStatus: 'y',
        },
        {
          validationKey: 'vk_k',
          merchantId: 'demo',
          status: 'SUCCESSFUL',
          paymentResponse: successfulResponse({ validationKey: 'vk_other', traceId: undefined }),
        },
        {
          validationKey: 'vk_n',
          merchantId: 'demo',
          status: 'NOT_COMPLETED',
          paymentResponse: successfulResponse(),
        },
      ],
    });
    expect(errors).toEqual([
      {
        field: 'paymentSessions[1].paymentResponse',
        message: 'is required when status is SUCCESSFUL',
      },
      { field: 'paymentSessions[2].errorMessage', message: 'is required when status is FAILED' },
      {
        field: 'paymentSessions[3].detailedStatus',
        message: 'is only allowed when status is NOT_COMPLETED or FAILED',
      },
      {
        field: 'paymentSessions[3].errorMessage',
        message: 'is only allowed when status is FAILED',
      },
      {
        field: 'paymentSessions[4].paymentResponse.traceId',
        message: 'is required when status is SUCCESSFUL',
      },
      { field: 'paymentSessions[4].paymentResponse.validationKey', message: expect.any(String) },
      {
        field: 'paymentSessions[5].paymentResponse',
        message: 'is only allowed when status is SUCCESSFUL',
      },
    ]);
  });

  it('refuses an unknown status', async () => {
    expect(
      await errorsOf({
        paymentSessions: [{ validationKey: 'vk_1', merchantId: 'demo', status: 'DONE' }],
      }),
    ).toEqual([
      {
        field: 'paymentSessions[0].status',
        message: expect.stringContaining('SUCCESSFUL, PENDING, NOT_COMPLETED, FAILED'),
      },
    ]);
  });

  it('checks operators with the rules of POST /admin/operators, and at most 1,000 of them', async () => {
    const ok = await validateSeed({ operators: [{ name: '  alice  ', role: 'payments' }] });
    expect(ok.ok && ok.seed.operators).toEqual([{ name: 'alice', role: 'payments' }]);
    // A token cannot be chosen: like any field the format does not know, it is refused.
    expect(
      await errorsOf({ operators: [{ name: 'alice', role: 'payments', token: 'op_chosen' }] }),
    ).toEqual([{ field: 'operators[0].token', message: UNKNOWN_FIELD_RULE }]);
    expect(
      await errorsOf({
        operators: [
          { name: 'bob', role: 'root' },
          { name: '-bob', role: 'viewer' },
          { name: 'carol' },
          { name: 'bob', role: 'admin' },
        ],
      }),
    ).toEqual([
      { field: 'operators[0].role', message: 'must be one of viewer, payments, catalog, admin' },
      { field: 'operators[1].name', message: expect.stringMatching(/^must be 1 to 64/) },
      {
        field: 'operators[2].role',
        message: 'is required: it must be one of viewer, payments, catalog, admin',
      },
      { field: 'operators[3]', message: 'duplicates operators[0]' },
    ]);
    const many = Array.from({ length: 1001 }, (_, i) => ({ name: `op${i}`, role: 'viewer' }));
    expect(await errorsOf({ operators: many })).toEqual([
      { field: 'operators', message: 'must hold at most 1000 records' },
    ]);
  });

  it('refuses operator names that differ only in case, as the operators rule does', async () => {
    expect(
      await errorsOf({
        operators: [
          { name: 'Kestrel', role: 'viewer' },
          { name: 'kestrel', role: 'admin' },
        ],
      }),
    ).toEqual([{ field: 'operators[1]', message: 'duplicates operators[0]' }]);
  });

  it.each(['cryptoPairs', 'merchants', 'paymentSessions', 'operators'])(
    'refuses a record of %s that is a list, even an empty one',
    async (section) => {
      expect(await errorsOf({ [section]: [[]] })).toEqual([
        { field: `${section}[0]`, message: RECORD_RULE },
      ]);
      expect(await errorsOf({ [section]: [['x']] })).toEqual([
        { field: `${section}[0]`, message: RECORD_RULE },
      ]);
    },
  );

  it('refuses a field the format does not know, in any record and at any depth, with its path', async () => {
    const session = {
      validationKey: 'vk_typo_0001',
      merchantId: 'demo',
      status: 'SUCCESSFUL',
      paymentResponse: {
        sourceMoney: { amount: 150, currency: 'EUR' },
        destinationMoney: { amount: 161.37, currency: 'USDT' },
        totalFees: { amount: 1.5, currency: 'EUR' },
        money: { amount: 148.5, currency: 'EUR', amountMinor: 14850 },
        traceId: 'TRC-1',
        transactionReference: '3f2b8c1e-7d4a-4e5b-9c6d-1a2b3c4d5e6f',
        customerFirstname: 'Typo',
      },
      finalat: '2025-01-01T00:00:00Z',
    };
    expect(
      await errorsOf({
        cryptoPairs: [{ ...pair('USDT', 'TRC20', 'IE'), enable: false }],
        merchants: [{ ...MERCHANT, callbackUrl: 'https://example.com' }],
        paymentSessions: [session],
      }),
    ).toEqual([
      { field: 'cryptoPairs[0].enable', message: UNKNOWN_FIELD_RULE },
      { field: 'merchants[0].callbackUrl', message: UNKNOWN_FIELD_RULE },
      { field: 'paymentSessions[0].finalat', message: UNKNOWN_FIELD_RULE },
      {
        field: 'paymentSessions[0].paymentResponse.customerFirstname',
        message: UNKNOWN_FIELD_RULE,
      },
      {
        field: 'paymentSessions[0].paymentResponse.money.amountMinor',
        message: UNKNOWN_FIELD_RULE,
      },
    ]);
  });

  it('takes the times of a session moved from another system, and refuses times that cannot be', async () => {
    let n = 0;
    const session = (extra: Record<string, unknown>) => ({
      validationKey: `vk_moved_${n++}`,
      merchantId: 'demo',
      status: 'FAILED',
      errorMessage: 'Declined',
      ...extra,
    });
    const ok = await validateSeed({
      paymentSessions: [
        session({ createdAt: '2024-03-01T09:00:00Z', finalAt: '2024-03-01T10:05:00+01:00' }),
      ],
    });
    expect(ok.ok && ok.seed.paymentSessions?.[0]).toMatchObject({
      createdAt: '2024-03-01T09:00:00Z',
      finalAt: '2024-03-01T10:05:00+01:00',
    });
    const future = new Date(Date.now() + 86_400_000).toISOString();
    expect(
      await errorsOf({
        paymentSessions: [
          {
            ...session({ finalAt: '2024-03-01T09:00:00Z' }),
            status: 'PENDING',
            errorMessage: undefined,
          },
          session({ createdAt: '2024-03-02T00:00:00Z', finalAt: '2024-03-01T00:00:00Z' }),
          session({ createdAt: future }),
          session({ finalAt: '2024-03-01' }),
          session({ createdAt: '2024-02-30T00:00:00Z' }),
        ],
      }),
    ).toEqual([
      {
        field: 'paymentSessions[0].finalAt',
        message: 'is only allowed when status is SUCCESSFUL or FAILED',
      },
      { field: 'paymentSessions[1].finalAt', message: 'must not be before createdAt' },
      { field: 'paymentSessions[2].createdAt', message: 'must not be in the future' },
      { field: 'paymentSessions[3].finalAt', message: ZONED_DATE_TIME_RULE },
      { field: 'paymentSessions[4].createdAt', message: ZONED_DATE_TIME_RULE },
    ]);
  });

  it('refuses duplicates inside the file', async () => {
    const errors = await errorsOf({
      cryptoPairs: [
        pair('USDT', 'TRC20', 'IE'),
        pair('USDT', 'TRC20', 'DE'),
        pair('usdt', 'trc20', 'ie'),
      ],
      merchants: [MERCHANT, { id: 'demo', name: 'Demo again' }],
      paymentSessions: [
        { validationKey: 'vk_1', merchantId: 'demo', status: 'PENDING' },
        { validationKey: 'vk_2', merchantId: 'demo', status: 'PENDING' },
        { validationKey: 'vk_1', merchantId: 'demo', status: 'NOT_COMPLETED' },
      ],
    });
    expect(errors).toEqual([
      { field: 'cryptoPairs[2]', message: 'duplicates cryptoPairs[0]' },
      { field: 'merchants[1]', message: 'duplicates merchants[0]' },
      { field: 'paymentSessions[2]', message: 'duplicates paymentSessions[0]' },
    ]);
  });

  it.each([
    ['an array', []],
    ['null', null],
    ['a string', 'cryptoPairs'],
    ['a number', 42],
  ])('refuses a root that is %s', async (_what, content) => {
    const errors = await errorsOf(content);
    expect(errors).toHaveLength(1);
    expect(errors[0].field).toBe('(root)');
    expect(errors[0].message).toMatch(/object/);
  });

  it.each([
    ['an object', {}],
    ['a string', 'pairs'],
    ['a number', 3],
  ])('reports a section that is %s instead of a list', async (_what, value) => {
    for (const section of ['cryptoPairs', 'merchants', 'paymentSessions', 'operators']) {
      expect(await errorsOf({ [section]: value })).toEqual([
        { field: section, message: 'must be a list of records' },
      ]);
    }
  });

  it('takes a section that is null as a section left out', async () => {
    for (const section of ['cryptoPairs', 'merchants', 'paymentSessions', 'operators']) {
      expect((await validateSeed({ [section]: null })).ok).toBe(true);
    }
  });

  it('reports records that are not objects by their index', async () => {
    expect(await errorsOf({ cryptoPairs: [pair('USDT', 'TRC20', 'IE'), 42, null] })).toEqual([
      { field: 'cryptoPairs[1]', message: expect.any(String) },
      { field: 'cryptoPairs[2]', message: expect.any(String) },
    ]);
  });

  it('sorts the errors by path, indexes in numeric order', async () => {
    const pairs = Array.from({ length: 12 }, (_, i) =>
      pair('USDT', 'TRC20', String.fromCharCode(65 + i).repeat(2)),
    );
    pairs[10] = pair('USDT', 'TRC20', 'X');
    pairs[2] = pair('USDT', 'TRC20', 'Y');
    const errors = await errorsOf({
      paymentSessions: [{ validationKey: 'vk_f', merchantId: 'demo', status: 'FAILED' }],
      merchants: [{ id: 'ok', name: '' }],
      cryptoPairs: pairs,
    });
    expect(errors.map((e) => e.field)).toEqual([
      'cryptoPairs[2].countryCode',
      'cryptoPairs[10].countryCode',
      'merchants[0].name',
      'paymentSessions[0].errorMessage',
    ]);
  });
});
