/**
 * The codes the catalog, the checkout and the payment responses share: a country (ISO 3166-1
 * alpha-2), a currency or asset, a transfer protocol. Given in any case, stored upper case.
 */
export const COUNTRY_CODE_PATTERN = /^[A-Z]{2}$/;
export const CURRENCY_CODE_PATTERN = /^[A-Z0-9]{1,16}$/;
export const PROTOCOL_PATTERN = /^[A-Z0-9_-]{1,32}$/;
export const COUNTRY_CODE_RULE = 'must be two letters A-Z';
export const CURRENCY_CODE_RULE = 'must be 1 to 16 letters or digits';
export const PROTOCOL_RULE = 'must be 1 to 32 of the characters A-Z a-z 0-9 _ -';
