/**
 * The seed files of `npm run bench:seed`, written as streams: payment sessions of every status
 * shape in turn (SUCCESSFUL ones with every field of a payment response), catalog pairs and one
 * merchant; the invalid variant has other keys and a bad last record.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

export const SEED_MERCHANT_ID = 'bench';
const STATUSES = ['SUCCESSFUL', 'PENDING', 'NOT_COMPLETED', 'FAILED'];
const COUNTRIES =
  'IE DE FR ES IT PT NL BE AT PL SE DK FI NO CZ SK HU RO BG GR HR SI LT LV EE LU MT CY GB CH IS LI MC SM AD VA AL BA ME MK RS TR UA MD BY GE AM AZ KZ UZ'.split(
    ' ',
  );

/** A money field with an exact amount: two decimals, as text or number in turn. */
function money(i, currency) {
  const amount = `${1 + (i % 100_000)}.${String(i % 100).padStart(2, '0')}`;
  return { amount: i % 2 ? amount : Number(amount), currency };
}

function paymentResponse(i) {
  return {
    sourceMoney: money(i, 'EUR'),
    destinationMoney: money(i + 1, 'USDT'),
    totalFees: money(i % 7, 'EUR'),
    money: money(i + 2, 'EUR'),
    requestedMoney: money(i + 3, 'EUR'),
    traceId: `TRC-${i}`,
    description: 'Payout to wallet',
    clientReference: `order-${i}`,
    responseCode: '00',
    transactionReference: `3f2b8c1e-7d4a-4e5b-9c6d-${String(i).padStart(12, '0')}`,
    paymentType: 'PAYOUT',
    paymentMethod: 'CRYPTO',
    customerAccountNumber: `TXYZ${String(i).padStart(16, '0')}`,
    accountNumber: `IE29AIBK9311${String(i).padStart(10, '0')}`,
    customerDob: '1990-04-23',
    customerFirstName: 'Aoife',
    customerLastName: 'Murphy',
    senderEmailAddress: `customer${i}@example.com`,
    customerCountryCode: COUNTRIES[i % COUNTRIES.length],
  };
}

export function session(i, prefix = 'vk_seed_') {
  const status = STATUSES[i % 4];
  const record = {
    validationKey: `${prefix}${String(i).padStart(8, '0')}`,
    merchantId: SEED_MERCHANT_ID,
    status,
  };
  if (status === 'SUCCESSFUL') record.paymentResponse = paymentResponse(i);
  if (status === 'NOT_COMPLETED') record.detailedStatus = 'ABANDONED_BY_USER';
  if (status === 'FAILED') {
    record.errorMessage = 'Insufficient funds in source wallet';
    record.detailedStatus = 'INSUFFICIENT_FUNDS';
  }
  return record;
}

/** 5,000 pairs: 100 currency/protocol pairs in 50 countries, about 5 % disabled. */
function pair(i) {
  const k = Math.floor(i / COUNTRIES.length);
  return {
    currencyCode: `C${String(k % 25).padStart(2, '0')}`,
    currencyName: `Coin ${k % 25}`,
    protocol: `P${Math.floor(k / 25)}`,
    countryCode: COUNTRIES[i % COUNTRIES.length],
    enabled: i % 20 !== 0,
  };
}

/**
 * Writes a seed file of `sessions` sessions and `pairs` pairs. `invalid`: other keys, and the
 * last session FAILED without its errorMessage. Resolves to the path of the file's bad record.
 */
export async function writeSeedFile(path, { sessions, pairs, invalid = false }) {
  const out = createWriteStream(path);
  const write = async (text) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  const merchant = {
    id: SEED_MERCHANT_ID,
    name: 'Benchmark merchant',
    apiKeys: [`gw_${randomBytes(32).toString('base64url')}`],
  };
  await write(`{"merchants":[${JSON.stringify(merchant)}],\n"cryptoPairs":[\n`);
  for (let i = 0; i < pairs; i++) await write(`${i ? ',\n' : ''}${JSON.stringify(pair(i))}`);
  await write('],\n"paymentSessions":[\n');
  for (let i = 0; i < sessions; i++) {
    const record = session(i, invalid ? 'vk_seed_bad_' : 'vk_seed_');
    if (invalid && i === sessions - 1) {
      Object.assign(record, {
        status: 'FAILED',
        paymentResponse: undefined,
        errorMessage: undefined,
      });
    }
    await write(`${i ? ',\n' : ''}${JSON.stringify(record)}`);
  }
  await write(']}\n');
  out.end();
  await once(out, 'finish');
  return `paymentSessions[${sessions - 1}].errorMessage`;
}
