/** Test data shared by unit and e2e tests; no application code is imported here. */

/** A valid SUCCESSFUL payment response: the six required fields. */
export function successfulResponse(
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    sourceMoney: { amount: 150, currency: 'EUR' },
    destinationMoney: { amount: 161.37, currency: 'USDT' },
    totalFees: { amount: 1.5, currency: 'EUR' },
    money: { amount: 148.5, currency: 'EUR' },
    traceId: 'TRC-1',
    transactionReference: '3f2b8c1e-7d4a-4e5b-9c6d-1a2b3c4d5e6f',
    ...overrides,
  };
}
