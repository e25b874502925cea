import { ApiError } from '../common/errors/api-error.js';
import type { Tx } from '../database/transactions.js';
import type { MerchantRepository } from './merchant.repository.js';

/** Merchant ids: short, URL-safe, starting with a letter or digit. */
export const MERCHANT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const MERCHANT_ID_RULE =
  'must be 1 to 64 of the characters A-Z a-z 0-9 _ . - (starting with a letter or digit)';

/** The merchant whose keys the sandbox quick start publishes; production refuses it. */
export const DEMO_MERCHANT_ID = 'demo';

/** Throws NOT_FOUND for an unknown merchant (an operator resource). */
export async function requireMerchant(
  merchants: MerchantRepository,
  tx: Tx,
  merchantId: string,
): Promise<void> {
  if (!(await merchants.find(tx, merchantId))) throw merchantNotFound(merchantId);
}

/** NOT_FOUND for an unknown merchant (an operator resource). */
export function merchantNotFound(merchantId: string): ApiError {
  return new ApiError('NOT_FOUND', {
    message: `Merchant ${merchantId} not found.`,
    field: 'merchantId',
  });
}
