/** The catalog, and its singular alias served by the same handler. */
export const CATALOG_PATH = 'api/crypto-currency-protocol-processors';
export const CATALOG_ALIAS_PATH = 'api/crypto-currency-protocol-processor';

/** The operator's view of the catalog. */
export const CATALOG_ADMIN_PATH = 'admin/crypto-pairs';
