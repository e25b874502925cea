import { InMemoryAuditEvents } from '../../test/fakes/in-memory-audit.js';
import { InMemoryMerchants } from '../../test/fakes/in-memory-merchants.js';
import { InMemoryPaymentSessions } from '../../test/fakes/in-memory-payment-sessions.js';
import { InMemoryCallbackOutbox } from '../../test/fakes/in-memory-callback-outbox.js';
import { InMemoryTransactions } from '../../test/fakes/in-memory-transactions.js';
import { apiErrorOf } from '../../test/support/api-error-of.js';
import { createValidationPipe, validatePlain } from '../common/validation.js';
import { ValidationKeyParams } from '../admin/dto/admin-params.dto.js';
import { ApiError } from '../common/errors/api-error.js';
import { merchantServices } from '../../test/fakes/merchant-services.js';
import { INIT_IFRAME_EXAMPLE, InitIframeDto } from '../checkout/dto/init-iframe.dto.js';
import { SeedPaymentSessionDto } from './dto/payment-report.dto.js';
import { VALIDATION_KEY_RULE, isValidationKey } from './payment-status.types.js';
import { testAuditTrail, testPaymentSessionService } from '../../test/fakes/no-op-ports.js';

/**
 * Keys the rule refuses: empty, too long, `/`, control characters, non-ASCII (the contract), and
 * the two that no URL can carry as a segment.
 */
const IMPOSSIBLE_KEYS: [string, string][] = [
  ['empty', ''],
  ['256 characters', 'k'.repeat(256)],
  ['a slash', 'vk/1'],
  ['only a slash', '/'],
  ['NUL', 'vk\u00001'],
  ['a tab', 'vk\t1'],
  ['a newline', 'vk\n1'],
  ['DEL', 'vk\u007f1'],
  ['an umlaut', 'vk_ünicode'],
  ['a dotless ı', 'vk_ı'],
  ['an emoji', 'vk_😀'],
  ['a no-break space', 'vk\u00a01'],
  ['only a dot', '.'],
  ['only two dots', '..'],
];

const POSSIBLE_KEYS: [string, string][] = [
  ['one character', 'k'],
  ['255 characters', 'k'.repeat(255)],
  ['every printable ASCII character but the slash', printableAsciiWithoutSlash()],
  ['spaces', 'vk with spaces'],
  ['punctuation', 'vk.1-2_3~4%5?6#7'],
  ['three dots', '...'],
  ['a dot and more', '.vk'],
];

async function setup() {
  const merchantStore = new InMemoryMerchants();
  const sessions = new InMemoryPaymentSessions();
  const outbox = new InMemoryCallbackOutbox();
  const events = new InMemoryAuditEvents();
  const transactions = new InMemoryTransactions(sessions, merchantStore, outbox, events);
  const { merchants } = merchantServices(merchantStore, transactions);
  await merchants.createMerchant({ id: 'acme', name: 'Acme' });
  const audit = testAuditTrail(events, transactions);
  return {
    service: testPaymentSessionService(sessions, merchants, transactions, outbox, audit),
    sessions,
  };
}

function printableAsciiWithoutSlash(): string {
  let text = '';
  for (let code = 0x20; code <= 0x7e; code++) if (code !== 0x2f) text += String.fromCharCode(code);
  return text;
}

describe('the validation key rule', () => {
  it.each(POSSIBLE_KEYS)('accepts a key with %s', (_what, key) => {
    expect(isValidationKey(key)).toBe(true);
  });

  it.each(IMPOSSIBLE_KEYS)('refuses a key with %s', (_what, key) => {
    expect(isValidationKey(key)).toBe(false);
  });

  it('refuses what is not a string', () => {
    for (const value of [undefined, null, 12, ['vk'], { key: 'vk' }]) {
      expect(isValidationKey(value)).toBe(false);
    }
  });

  it('says what it wants in its message', () => {
    expect(VALIDATION_KEY_RULE).toBe(
      'must be 1 to 255 printable ASCII characters without "/", and not "." or ".."',
    );
  });
});

describe('every place that takes a validation key applies the rule', () => {
  const pipe = createValidationPipe();

  it.each(IMPOSSIBLE_KEYS)('the operator path parameter refuses a key with %s', async (_w, key) => {
    const error = await pipe
      .transform({ validationKey: key }, { type: 'param', metatype: ValidationKeyParams })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).items).toEqual([
      expect.objectContaining({ field: 'validationKey', message: VALIDATION_KEY_RULE }),
    ]);
  });

  it.each(IMPOSSIBLE_KEYS)('a seed session refuses a key with %s', async (_w, key) => {
    const { errors } = await validatePlain(SeedPaymentSessionDto, {
      validationKey: key,
      merchantId: 'acme',
      status: 'PENDING',
    });
    expect(errors).toEqual([{ field: 'validationKey', message: VALIDATION_KEY_RULE }]);
  });

  it.each(IMPOSSIBLE_KEYS)('init-iframe refuses a key with %s', async (_w, key) => {
    const { errors } = await validatePlain(InitIframeDto, {
      ...INIT_IFRAME_EXAMPLE,
      validationKey: key,
    });
    expect(errors).toEqual([{ field: 'validationKey', message: VALIDATION_KEY_RULE }]);
  });

  it('init-iframe takes the example as it is', async () => {
    expect((await validatePlain(InitIframeDto, INIT_IFRAME_EXAMPLE)).errors).toEqual([]);
  });

  it.each(IMPOSSIBLE_KEYS)(
    'the service refuses a key with %s and stores nothing',
    async (_w, key) => {
      const { service, sessions } = await setup();
      const error = await apiErrorOf(
        service.report(key, { merchantId: 'acme', status: 'PENDING' }),
      );
      expect(error.code).toBe('INVALID_PARAMETER');
      expect(error.items[0]).toMatchObject({
        field: 'validationKey',
        message: VALIDATION_KEY_RULE,
      });
      expect(sessions.stored(key)).toBeUndefined();
      expect(await service.history(key)).toBeUndefined();
    },
  );

  it.each(POSSIBLE_KEYS)('the service stores a key with %s', async (_w, key) => {
    const { service } = await setup();
    const result = await service.report(key, { merchantId: 'acme', status: 'PENDING' });
    expect(result.outcome).toBe('created');
    expect(await service.status(key)).toEqual({ status: 'PENDING' });
  });
});
