import { type ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { initIframeBody } from '../../test/support/checkout.js';
import { mutate, random } from '../../test/support/mutated-records.js';
import { completePaymentResponse } from '../../test/support/payment-response-samples.js';
import { ValidationKeyParams } from '../admin/dto/admin-params.dto.js';
import { VerifyQueryDto } from '../audit/dto/audit.dto.js';
import { SessionListQueryDto } from '../admin/dto/admin-sessions.dto.js';
import { CatalogQueryDto } from '../catalog/dto/catalog-query.dto.js';
import { InitIframeDto } from '../checkout/dto/init-iframe.dto.js';
import { CreateMerchantDto } from '../merchants/dto/merchant.dto.js';
import { PaymentReportDto } from '../payment-status/dto/payment-report.dto.js';
import { ApiError } from './errors/api-error.js';
import { VALIDATION_PIPE_OPTIONS, createValidationPipe } from './validation.js';
import { ValidationPlan } from './validation-plan.js';

const QUERY: ArgumentMetadata = { type: 'query', metatype: CatalogQueryDto, data: undefined };

describe('validation pipe', () => {
  it('answers a query it accepted before with the same validated, frozen DTO', async () => {
    const pipe = createValidationPipe();
    const first = (await pipe.transform({ countryCode: 'ie', size: '5' }, QUERY)) as object;
    const second = await pipe.transform({ countryCode: 'ie', size: '5' }, QUERY);
    expect(first).toBeInstanceOf(CatalogQueryDto);
    expect(first).toMatchObject({ countryCode: 'IE', size: 5 });
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('keeps different queries apart', async () => {
    const pipe = createValidationPipe();
    const ie = await pipe.transform({ countryCode: 'ie' }, QUERY);
    const de = await pipe.transform({ countryCode: 'de' }, QUERY);
    expect(ie).toMatchObject({ countryCode: 'IE' });
    expect(de).toMatchObject({ countryCode: 'DE' });
  });

  it('refuses a bad query every time it comes back', async () => {
    const pipe = createValidationPipe();
    for (let i = 0; i < 2; i++) {
      await expect(pipe.transform({ countryCode: 'IRL' }, QUERY)).rejects.toBeInstanceOf(ApiError);
    }
  });

  it('does not remember bodies: each is validated into its own object', async () => {
    const pipe = createValidationPipe();
    const body: ArgumentMetadata = { type: 'body', metatype: CatalogQueryDto, data: undefined };
    const first = await pipe.transform({ countryCode: 'ie' }, body);
    const second = await pipe.transform({ countryCode: 'ie' }, body);
    expect(second).not.toBe(first);
  });
});

/** DTOs of several shapes (nested objects, lists, queries, path parameters) and valid values. */
const CASES: [ArgumentMetadata['type'], new () => object, Record<string, unknown>[]][] = [
  [
    'body',
    PaymentReportDto,
    [
      { merchantId: 'demo', status: 'PENDING' },
      {
        merchantId: 'demo',
        status: 'SUCCESSFUL',
        paymentResponse: completePaymentResponse(),
        returnUrl: 'https://merchant.example/return',
      },
      {
        merchantId: 'demo',
        status: 'FAILED',
        errorMessage: ' Declined ',
        detailedStatus: 'X',
        errorUrl: 'https://merchant.example/error',
      },
    ],
  ],
  ['body', InitIframeDto, [initIframeBody('vk_1', 'https://shop.example')]],
  [
    'body',
    CreateMerchantDto,
    [{ id: 'acme', name: ' Acme ', checkoutOrigins: ['https://shop.example'] }],
  ],
  ['param', ValidationKeyParams, [{ validationKey: 'vk_1' }]],
  ['query', CatalogQueryDto, [{ countryCode: 'ie', size: '5' }, { page: '2' }, {}]],
  ['query', VerifyQueryDto, [{ head: 'AB'.repeat(32), events: '12' }, {}]],
  [
    'query',
    SessionListQueryDto,
    [{ merchantId: 'demo', status: 'PENDING', createdFrom: '2026-11-01T00:00:00Z' }],
  ],
];

/** An empty prototype whose own prototype is null, as `fast-querystring` (Fastify) gives. */
function FastQuery(): void {}
FastQuery.prototype = Object.create(null) as object;

/**
 * The value as a platform hands it over: a body from JSON; a query in turn as JSON would give it,
 * as Node's `querystring` does (Express: prototype null) and as `fast-querystring` does.
 */
function asParsed(text: string, type: ArgumentMetadata['type'], i: number): unknown {
  const value: unknown = JSON.parse(text);
  if (type !== 'query' || typeof value !== 'object' || value === null || Array.isArray(value)) {
    return value;
  }
  const shapes = [
    () => value,
    () => Object.assign(Object.create(null) as object, value),
    () => Object.assign(new (FastQuery as unknown as new () => object)(), value),
  ];
  return shapes[i % shapes.length]();
}

/** What a pipe made of a value: the instance, or the error's status, code and items. */
async function outcome(pipe: ValidationPipe, value: unknown, metadata: ArgumentMetadata) {
  try {
    return { accepted: await pipe.transform(value, metadata) };
  } catch (error) {
    if (!(error instanceof ApiError)) return { threw: String(error) };
    return { refused: { status: error.status, code: error.code, items: error.items } };
  }
}

describe("validation pipe against Nest's ValidationPipe with the same options", () => {
  it.each(CASES.map(([type, cls, bases]) => [`${type} ${cls.name}`, type, cls, bases] as const))(
    'accepts exactly what it accepts, as the same instance, and refuses with the same words (%s)',
    async (_name, type, metatype, bases) => {
      const ours = createValidationPipe();
      const nests = new ValidationPipe(VALIDATION_PIPE_OPTIONS);
      const metadata: ArgumentMetadata = { type, metatype, data: undefined };
      const next = random(20261128);
      const plan = ValidationPlan.of(metatype);
      let accepted = 0;
      let refused = 0;
      let shortcut = 0;
      for (let i = 0; i < 2000; i++) {
        const base = bases[i % bases.length];
        const text = JSON.stringify(i < bases.length ? base : mutate(base, next));
        // Each pipe gets its own copy: both may change what they are given (whitelisting).
        const quick = await outcome(ours, asParsed(text, type, i), metadata);
        const slow = await outcome(nests, asParsed(text, type, i), metadata);
        expect({ case: text, ...quick }).toStrictEqual({ case: text, ...slow });
        if ('accepted' in quick) accepted++;
        else refused++;
        if (plan.accept(asParsed(text, type, i)) !== undefined) shortcut++;
      }
      // Both kinds were exercised, and most of what was accepted took the shortcut.
      expect(accepted).toBeGreaterThan(100);
      expect(refused).toBeGreaterThan(100);
      expect(shortcut).toBeGreaterThan(accepted / 2);
    },
  );
});

describe('validation pipe on a list with gaps', () => {
  it('leaves it to ValidationPipe, which closes the gaps first: the same instance either way', async () => {
    const metadata: ArgumentMetadata = {
      type: 'body',
      metatype: CreateMerchantDto,
      data: undefined,
    };
    const sparse = () => {
      const checkoutOrigins: string[] = [];
      checkoutOrigins[1] = 'https://shop.example'; // index 0 is a gap
      return { id: 'acme', name: 'Acme', checkoutOrigins };
    };
    expect(ValidationPlan.of(CreateMerchantDto).accept(sparse())).toBeUndefined();
    const ours = await outcome(createValidationPipe(), sparse(), metadata);
    const nests = await outcome(new ValidationPipe(VALIDATION_PIPE_OPTIONS), sparse(), metadata);
    expect(ours).toStrictEqual(nests);
  });
});
