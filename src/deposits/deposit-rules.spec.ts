import {
  CONFIRMATION_HOLD_MS,
  DepositRecord,
  expiryVerdict,
  flagAfterEnd,
  flagAtFirstSight,
  progressOf,
  QuoteTerms,
  settlementOf,
} from './deposit-rules.js';

const USDT = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
const T0 = 1_765_000_000_000;

/** USDT on Ethereum: 10.712346 USDT at address 7, 12 confirmations. */
const quote: QuoteTerms = {
  addressId: 7,
  network: 'evm',
  chainId: 1,
  tokenContract: USDT,
  amount: '10712346',
  confirmations: 12,
};

let nextId = 1;
function deposit(amount: string, confirmations: number, extra: Partial<DepositRecord> = {}) {
  return {
    id: nextId++,
    network: 'evm',
    txid: `0x${String(nextId).padStart(64, '0')}`,
    outputIndex: 0,
    addressId: 7,
    validationKey: 'vk_1',
    chainId: 1,
    asset: USDT,
    amount,
    confirmations,
    counted: false,
    flag: null,
    flaggedAmount: null,
    firstSeenAt: T0,
    updatedAt: T0,
    ...extra,
  } satisfies DepositRecord;
}

describe('deposit rules: what a transfer is when first seen', () => {
  const transfer = { addressId: 7, asset: USDT, amount: '10712346', confirmations: 0 };

  it('may count: the quoted asset (any case on EVM), chain and address, while the session is open', () => {
    expect(flagAtFirstSight(transfer, quote, false)).toBeNull();
    expect(
      flagAtFirstSight({ ...transfer, asset: USDT.toLowerCase(), chainId: 1 }, quote, false),
    ).toBeNull();
  });

  it('sets apart another asset, another chain, another address and a late transfer', () => {
    expect(flagAtFirstSight({ ...transfer, asset: 'native' }, quote, false)).toBe('OTHER_ASSET');
    expect(flagAtFirstSight({ ...transfer, chainId: 137 }, quote, false)).toBe('OTHER_CHAIN');
    expect(flagAtFirstSight({ ...transfer, addressId: 8 }, quote, false)).toBe('OTHER_ASSET');
    expect(flagAtFirstSight(transfer, undefined, false)).toBe('OTHER_ASSET');
    expect(flagAtFirstSight(transfer, quote, true)).toBe('LATE');
  });

  it("takes `native` for a network's own coin; chains only on EVM", () => {
    const tron = { ...quote, network: 'tron' as const, chainId: null, tokenContract: null };
    expect(flagAtFirstSight({ ...transfer, asset: 'native' }, tron, false)).toBeNull();
    expect(
      flagAtFirstSight({ ...transfer, asset: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' }, tron, false),
    ).toBe('OTHER_ASSET');
  });
});

describe('deposit rules: counting and settlement', () => {
  it('pays when confirmed deposits reach the quote, exactly', () => {
    expect(settlementOf(quote, [deposit('10712346', 11)])).toEqual({ paid: false });
    expect(settlementOf(quote, [deposit('10712346', 12)])).toEqual({
      paid: true,
      received: 10712346n,
      excess: 0n,
    });
  });

  it('adds up several confirmed deposits, and reports the excess of an overpayment', () => {
    const parts = [deposit('5000000', 12), deposit('5712346', 30)];
    expect(settlementOf(quote, parts)).toMatchObject({ paid: true, excess: 0n });
    expect(settlementOf(quote, [deposit('11000000', 12)])).toEqual({
      paid: true,
      received: 11000000n,
      excess: 287654n,
    });
  });

  it('never counts a flagged deposit, however large and confirmed', () => {
    for (const flag of ['OTHER_ASSET', 'OTHER_CHAIN', 'LATE'] as const) {
      expect(settlementOf(quote, [deposit('99999999', 100, { flag })])).toEqual({ paid: false });
    }
  });

  it('stops counting a deposit whose confirmations dropped to 0 (a reorganisation)', () => {
    const reorged = deposit('10712346', 0, { counted: true });
    expect(settlementOf(quote, [reorged])).toEqual({ paid: false });
    expect(progressOf(quote, [reorged], 'PENDING')).toMatchObject({
      state: 'seen',
      confirmations: 0,
    });
  });

  it('makes a deposit confirming after the end extra (paid session) or late (ended otherwise)', () => {
    expect(flagAfterEnd('SUCCESSFUL')).toBe('OVERPAID');
    expect(flagAfterEnd('FAILED')).toBe('LATE');
    expect(flagAfterEnd('NOT_COMPLETED')).toBe('LATE');
  });
});

describe('deposit rules: expiry', () => {
  it('holds a session while a deposit that may count confirms, up to the limit', () => {
    const confirming = [deposit('10712346', 3, { firstSeenAt: T0 })];
    expect(expiryVerdict(quote, confirming, T0 + CONFIRMATION_HOLD_MS - 1)).toEqual({
      kind: 'hold',
    });
    expect(expiryVerdict(quote, confirming, T0 + CONFIRMATION_HOLD_MS)).toEqual({ kind: 'expire' });
  });

  it('fails an underpaid session: confirmed deposits short of the quote', () => {
    expect(expiryVerdict(quote, [deposit('5000000', 12)], T0)).toEqual({
      kind: 'underpaid',
      received: 5000000n,
      due: 10712346n,
    });
    // Underpaid and still confirming more: held first.
    const more = [deposit('5000000', 12), deposit('5712346', 2)];
    expect(expiryVerdict(quote, more, T0)).toEqual({ kind: 'hold' });
  });

  it('expires a session with nothing that counts: no deposit, another asset, no quote', () => {
    expect(expiryVerdict(quote, [], T0)).toEqual({ kind: 'expire' });
    expect(expiryVerdict(quote, [deposit('10712346', 12, { flag: 'OTHER_ASSET' })], T0)).toEqual({
      kind: 'expire',
    });
    expect(expiryVerdict(undefined, [], T0)).toEqual({ kind: 'expire' });
  });
});

describe('deposit rules: progress on the page', () => {
  it('goes waiting → seen (n of N) → paid', () => {
    expect(progressOf(quote, [], 'PENDING')).toEqual({
      state: 'waiting',
      received: 0n,
      remaining: 10712346n,
    });
    expect(progressOf(quote, [deposit('10712346', 4)], 'PENDING')).toEqual({
      state: 'seen',
      confirmations: 4,
      received: 0n,
      remaining: 10712346n,
    });
    expect(progressOf(quote, [deposit('11000000', 12, { counted: true })], 'SUCCESSFUL')).toEqual({
      state: 'paid',
      received: 11000000n,
      remaining: 0n,
    });
  });

  it('shows what arrived and what is left when underpaid, and the least confirmed deposit while seen', () => {
    expect(progressOf(quote, [deposit('5000000', 12)], 'PENDING')).toEqual({
      state: 'underpaid',
      received: 5000000n,
      remaining: 5712346n,
    });
    const two = [deposit('5000000', 12), deposit('1000000', 7), deposit('1000000', 9)];
    expect(progressOf(quote, two, 'PENDING')).toEqual({
      state: 'seen',
      confirmations: 7,
      received: 5000000n,
      remaining: 5712346n,
    });
    expect(
      progressOf(quote, [deposit('5000000', 12, { counted: true, flag: 'UNDERPAID' })], 'FAILED'),
    ).toMatchObject({ state: 'underpaid', received: 5000000n });
  });
});
