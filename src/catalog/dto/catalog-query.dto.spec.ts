import { ApiError } from '../../common/errors/api-error.js';
import { createValidationPipe } from '../../common/validation.js';
import { CatalogQueryDto, catalogQueryKey } from './catalog-query.dto.js';

const pipe = createValidationPipe();

/** Runs a raw query object through the same pipe as the HTTP layer. */
function normalise(plain: Record<string, unknown>): Promise<CatalogQueryDto> {
  return pipe.transform(plain, { type: 'query', metatype: CatalogQueryDto, data: undefined });
}

/** The error entries of a refused query. */
async function refusal(plain: Record<string, unknown>) {
  const error = await normalise(plain).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  const apiError = error as ApiError;
  expect(apiError.status).toBe(400);
  expect(apiError.code).toBe('INVALID_PARAMETER');
  return apiError.items;
}

describe('CatalogQueryDto through the validation pipe', () => {
  it('defaults to page 0 and size 10 with no filter', async () => {
    const query = await normalise({});
    expect(query).toBeInstanceOf(CatalogQueryDto);
    expect(query.page).toBe(0);
    expect(query.size).toBe(10);
    expect(query.countryCode).toBeUndefined();
    expect(query.currencyCode).toBeUndefined();
    expect(query.protocol).toBeUndefined();
  });

  it('normalises lower- and mixed-case codes to upper case', async () => {
    const query = await normalise({
      countryCode: 'ie',
      currencyCode: 'usdt',
      protocol: 'Sol_net-2',
    });
    expect(query.countryCode).toBe('IE');
    expect(query.currencyCode).toBe('USDT');
    expect(query.protocol).toBe('SOL_NET-2');
  });

  it('turns digit strings into integers', async () => {
    const query = await normalise({ page: '3', size: '25' });
    expect(query.page).toBe(3);
    expect(query.size).toBe(25);
    expect(typeof query.page).toBe('number');
    expect(typeof query.size).toBe('number');
  });

  it('accepts the bounds themselves', async () => {
    expect(await normalise({ page: '0', size: '1' })).toMatchObject({ page: 0, size: 1 });
    expect(await normalise({ page: '1000000', size: '100' })).toMatchObject({
      page: 1000000,
      size: 100,
    });
  });

  it('drops unknown parameters', async () => {
    const query = await normalise({ foo: 'bar', countryCode: 'DE' });
    expect('foo' in query).toBe(false);
    expect(query.countryCode).toBe('DE');
  });

  it.each([
    ['page', ['1', '2']],
    ['size', ['5', '5']],
    ['countryCode', ['IE', 'DE']],
    ['currencyCode', ['usdt', 'usdc']],
    ['protocol', ['TRC20', 'TRC20']],
  ])('refuses %s given twice with "must be given only once"', async (field, values) => {
    expect(await refusal({ [field]: values })).toEqual([
      expect.objectContaining({ field, message: 'must be given only once', type: 'VALIDATION' }),
    ]);
  });

  it.each([
    ['page', '-1'],
    ['page', '1.5'],
    ['page', 'abc'],
    ['page', ''],
    ['page', '1000001'],
    ['page', '1e3'],
    ['size', '0'],
    ['size', '101'],
    ['size', '1e1'],
  ])('refuses %s=%j', async (field, value) => {
    const items = await refusal({ [field]: value });
    expect(items).toEqual([expect.objectContaining({ field })]);
    expect(items[0].message).toMatch(/integer/);
  });

  it.each([
    ['countryCode', 'IRL', 'must be two letters A-Z'],
    ['countryCode', 'I1', 'must be two letters A-Z'],
    ['countryCode', '', 'must be two letters A-Z'],
    ['currencyCode', 'US-DT', 'must be 1 to 16 letters or digits'],
    ['currencyCode', 'A'.repeat(17), 'must be 1 to 16 letters or digits'],
    ['protocol', 'TRC 20', 'must be 1 to 32 of the characters A-Z a-z 0-9 _ -'],
    ['protocol', 'P'.repeat(33), 'must be 1 to 32 of the characters A-Z a-z 0-9 _ -'],
  ])('refuses %s=%j with "%s"', async (field, value, message) => {
    expect(await refusal({ [field]: value })).toEqual([
      expect.objectContaining({ field, message }),
    ]);
  });

  it.each([
    ['countryCode', 'ıe', 'must be two letters A-Z'],
    ['countryCode', 'ıE', 'must be two letters A-Z'],
    ['countryCode', 'ﬀ', 'must be two letters A-Z'],
    ['currencyCode', 'uſdt', 'must be 1 to 16 letters or digits'],
    ['currencyCode', 'éur', 'must be 1 to 16 letters or digits'],
    ['protocol', 'ſol', 'must be 1 to 32 of the characters A-Z a-z 0-9 _ -'],
    ['protocol', 'ſpl', 'must be 1 to 32 of the characters A-Z a-z 0-9 _ -'],
  ])(
    'refuses %s=%j, a non-ASCII letter that upper-cases into ASCII',
    async (field, value, message) => {
      expect(await refusal({ [field]: value })).toEqual([
        expect.objectContaining({ field, message }),
      ]);
    },
  );

  it('reports one error per bad field', async () => {
    const items = await refusal({ countryCode: 'X', size: '0', page: ['1', '2'], protocol: ' ' });
    expect(items.map((item) => item.field).sort()).toEqual([
      'countryCode',
      'page',
      'protocol',
      'size',
    ]);
    expect(items.find((item) => item.field === 'page')?.message).toBe('must be given only once');
  });
});

describe('catalogQueryKey', () => {
  const keyOf = async (plain: Record<string, unknown>) => catalogQueryKey(await normalise(plain));

  it('gives the same key for equivalent queries', async () => {
    expect(await keyOf({ countryCode: 'ie' })).toBe(await keyOf({ countryCode: 'IE' }));
    expect(await keyOf({ protocol: 'trc20', currencyCode: 'Usdt' })).toBe(
      await keyOf({ currencyCode: 'USDT', protocol: 'TRC20' }),
    );
    expect(await keyOf({})).toBe(await keyOf({ page: '0', size: '10' }));
    expect(await keyOf({ page: '007' })).toBe(await keyOf({ page: '7' }));
    expect(await keyOf({ countryCode: 'IE', foo: 'bar' })).toBe(await keyOf({ countryCode: 'IE' }));
  });

  it('gives different keys for different queries', async () => {
    const keys = await Promise.all([
      keyOf({}),
      keyOf({ countryCode: 'IE' }),
      keyOf({ countryCode: 'DE' }),
      keyOf({ currencyCode: 'IE' }),
      keyOf({ protocol: 'IE' }),
      keyOf({ page: '1' }),
      keyOf({ size: '20' }),
      keyOf({ page: '1', size: '1' }),
      keyOf({ page: '11' }),
    ]);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
