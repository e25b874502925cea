/**
 * The sandbox's demo prices (one unit of the asset in a fiat currency), used with
 * CHECKOUT_SANDBOX=true where no fresh rate was put: round numbers of about the market's order,
 * so the sandbox quotes without a price feed. Never used in production.
 */
export const SANDBOX_RATES: { readonly [asset: string]: { readonly [fiat: string]: string } } = {
  BTC: { EUR: '90000', USD: '100000', GBP: '78000' },
  ETH: { EUR: '3000', USD: '3300', GBP: '2600' },
  TRX: { EUR: '0.25', USD: '0.27', GBP: '0.21' },
  USDT: { EUR: '0.92', USD: '1', GBP: '0.79' },
  USDC: { EUR: '0.92', USD: '1', GBP: '0.79' },
};
