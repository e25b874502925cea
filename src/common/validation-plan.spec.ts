import { completePaymentResponse } from '../../test/support/payment-response-samples.js';
import { CryptoPairInputDto } from '../catalog/dto/crypto-pair-input.dto.js';
import { SeedMerchantDto } from '../merchants/dto/merchant.dto.js';
import { CreateOperatorDto } from '../operators/dto/operator.dto.js';
import { SeedPaymentSessionDto } from '../payment-status/dto/payment-report.dto.js';
import { Transform } from 'class-transformer';
import { IsString, getMetadataStorage } from 'class-validator';
import { validatePlain } from './validation.js';
import { ValidationPlan } from './validation-plan.js';
import { mutate, random } from '../../test/support/mutated-records.js';

const SAMPLES: [string, new () => object, Record<string, unknown>[]][] = [
  [
    'payment sessions',
    SeedPaymentSessionDto,
    [
      { validationKey: 'vk_1', merchantId: 'demo', status: 'PENDING' },
      {
        validationKey: 'vk_2',
        merchantId: 'demo',
        status: 'SUCCESSFUL',
        paymentResponse: completePaymentResponse(),
        returnUrl: 'https://merchant.example/return',
      },
      {
        validationKey: 'vk_3',
        merchantId: 'demo',
        status: 'FAILED',
        errorMessage: ' Declined ',
        detailedStatus: 'X',
        errorUrl: 'https://merchant.example/error',
      },
    ],
  ],
  [
    'crypto pairs',
    CryptoPairInputDto,
    [
      { currencyCode: 'usdt', currencyName: ' Tether ', protocol: 'trc20', countryCode: 'ie' },
      {
        currencyCode: 'BTC',
        currencyName: 'Bitcoin',
        protocol: 'BTC',
        countryCode: 'DE',
        enabled: false,
      },
    ],
  ],
  [
    'merchants',
    SeedMerchantDto,
    [
      {
        id: 'acme',
        name: ' Acme ',
        apiKeys: ['k'.repeat(32)],
        callbackSecret: 'whsec_ZGVtby1jYWxsYmFjay1zZWNyZXQtc2FuZGJveC0zMmI=',
      },
    ],
  ],
];

/** Each sample with unknown keys dropped (the HTTP pipe's way) and refused (seed files'). */
const MODES = SAMPLES.flatMap(([what, cls, bases]) =>
  [false, true].map(
    (refuseUnknown) =>
      [
        `${what}, unknown keys ${refuseUnknown ? 'refused' : 'dropped'}`,
        cls,
        bases,
        refuseUnknown,
      ] as const,
  ),
);

/** The DTO class of each section of a seed file. */
const SEED_CLASSES: (new () => object)[] = [
  CryptoPairInputDto,
  SeedMerchantDto,
  SeedPaymentSessionDto,
  CreateOperatorDto,
];

describe('ValidationPlan', () => {
  it.each(MODES)(
    'accepts only what plainToInstance + validate accept, as the same instance (%s)',
    async (_what, cls, bases, refuseUnknown) => {
      const plan = ValidationPlan.of(cls, { refuseUnknown });
      expect(plan.compiled).toBe(true);
      const next = random(20261124);
      let accepted = 0;
      let refused = 0;
      const crashed: string[] = [];
      for (let i = 0; i < 3000; i++) {
        const base = bases[i % bases.length];
        const plain = i < bases.length ? base : mutate(base, next);
        const quick = plan.accept(viaJson(plain));
        const slow = await validatePlain(cls, viaJson(plain), { refuseUnknown }).catch(
          (error: Error) => error,
        );
        if (slow instanceof Error) {
          // plainToInstance itself fails on some shapes (a record crashes today's seed too).
          expect({ case: i, quick }).toEqual({ case: i, quick: undefined });
          crashed.push(JSON.stringify(plain));
          continue;
        }
        const { value, errors } = slow;
        if (quick === undefined) {
          if (errors.length > 0) refused++;
          continue;
        }
        accepted++;
        expect({ case: i, errors }).toEqual({ case: i, errors: [] });
        expect(quick).toStrictEqual(value);
        expect(quick).toBeInstanceOf(cls);
      }
      // Both kinds were exercised, and the plan took the valid records off class-validator's hands.
      expect(accepted).toBeGreaterThan(100);
      expect(refused).toBeGreaterThan(300);
    },
  );

  it('takes every valid sample, transformed as plainToInstance does', () => {
    const plan = ValidationPlan.of(CryptoPairInputDto);
    expect(
      plan.accept({
        currencyCode: 'usdt',
        currencyName: ' Tether ',
        protocol: 'trc20',
        countryCode: 'ie',
        unknown: 1,
      }),
    ).toStrictEqual(
      Object.assign(new CryptoPairInputDto(), {
        currencyCode: 'USDT',
        currencyName: 'Tether',
        protocol: 'TRC20',
        countryCode: 'IE',
        enabled: undefined,
      }),
    );
  });

  it('refuses an unknown key when told to, leaving the words to class-validator', () => {
    const plan = ValidationPlan.of(CryptoPairInputDto, { refuseUnknown: true });
    const pair = { currencyCode: 'USDT', currencyName: 'Tether', protocol: 'P', countryCode: 'IE' };
    expect(plan.accept(pair)).toBeInstanceOf(CryptoPairInputDto);
    expect(plan.accept({ ...pair, enable: true })).toBeUndefined();
  });

  it('leaves a refusal to class-validator', () => {
    const plan = ValidationPlan.of(CryptoPairInputDto);
    expect(
      plan.accept({ currencyCode: 'US-DT', currencyName: 'x', protocol: 'P', countryCode: 'IE' }),
    ).toBeUndefined();
    expect(plan.accept(42)).toBeUndefined();
  });

  it('builds the instance itself for the transforms of validators.ts only', async () => {
    class Shouting {
      @IsString()
      @Transform(({ value }) => (typeof value === 'string' ? `${value}!` : value))
      word!: string;
    }
    // A transform the plan does not know of: plainToInstance builds the instance, alike.
    const plan = ValidationPlan.of(Shouting);
    const quick = plan.accept({ word: 'hey', other: 1 });
    const { value, errors } = await validatePlain(Shouting, { word: 'hey', other: 1 });
    expect(errors).toEqual([]);
    expect(quick).toStrictEqual(value);
    expect(quick).toMatchObject({ word: 'hey!' });
    expect(plan.buildsDirectly).toBe(false);
  });

  // The plan reads the rules through class-validator's exported getMetadataStorage(), whose
  // methods its README does not describe (docs/decisions.md, "Documented APIs only"): a release
  // that changes them fails here, by name, before any seed file is read.
  it("compiles every seed section's rules through class-validator's getMetadataStorage() (getTargetValidationMetadatas, groupByPropertyName, getTargetValidatorConstraints)", () => {
    const storage = getMetadataStorage();
    for (const method of [
      'getTargetValidationMetadatas',
      'groupByPropertyName',
      'getTargetValidatorConstraints',
    ] as const) {
      expect({ method, type: typeof storage[method] }).toEqual({ method, type: 'function' });
    }
    for (const cls of SEED_CLASSES) {
      expect({ cls: cls.name, compiled: ValidationPlan.of(cls).compiled }).toEqual({
        cls: cls.name,
        compiled: true,
      });
    }
  });

  it("builds the seed sections' instances itself (a fifth of the cost of class-validator)", () => {
    for (const cls of SEED_CLASSES) {
      expect({ cls: cls.name, direct: ValidationPlan.of(cls).buildsDirectly }).toEqual({
        cls: cls.name,
        direct: true,
      });
    }
  });
});

/** A record as the seed file reader hands it over: parsed from JSON text. */
function viaJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}
