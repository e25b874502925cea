import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ApiKeyService } from '../merchants/api-key.service.js';
import type { CallbackSecretService } from '../merchants/callback-secret.service.js';
import { DEMO_MERCHANT_ID } from '../merchants/merchant-id.js';

/** The sandbox's demo data: its catalog, its sessions, and the demo merchant with its keys. */
export const DEMO_SEED_FILE = fileURLToPath(new URL('../../seeds/demo.json', import.meta.url));

/** What the sandbox publishes of its demo merchant: the API key and the callback secret. */
export interface PublishedDemoMerchant {
  apiKey: string;
  callbackSecret: string;
}

let published: PublishedDemoMerchant | undefined;

/** The demo merchant's published key and secret, as seeds/demo.json gives them (read once). */
export function publishedDemoMerchant(): PublishedDemoMerchant {
  if (published) return published;
  const seed = JSON.parse(readFileSync(DEMO_SEED_FILE, 'utf8')) as {
    merchants?: { id?: unknown; apiKeys?: unknown[]; callbackSecret?: unknown }[];
  };
  const demo = seed.merchants?.find((m) => m.id === DEMO_MERCHANT_ID);
  const [apiKey] = demo?.apiKeys ?? [];
  if (typeof apiKey !== 'string' || typeof demo?.callbackSecret !== 'string') {
    throw new Error(`${DEMO_SEED_FILE} gives no key and callback secret of "${DEMO_MERCHANT_ID}"`);
  }
  published = { apiKey, callbackSecret: demo.callbackSecret };
  return published;
}

/**
 * Whether the published demo key works in this database: `active`; `revoked` by an operator;
 * or `absent` (a database seeded from elsewhere), with whether the merchant has other keys.
 */
export async function demoKeyState(
  apiKeys: ApiKeyService,
  plaintext: string,
): Promise<{ state: 'active' | 'revoked' | 'absent'; otherKeysActive: boolean }> {
  const state = await apiKeys.keyState(DEMO_MERCHANT_ID, plaintext);
  if (state === 'active') return { state, otherKeysActive: false };
  return {
    state: state === 'revoked' ? 'revoked' : 'absent',
    otherKeysActive: await apiKeys.demoKeyActive(),
  };
}

/** Whether the published secret still signs the demo merchant's callbacks (not rotated away). */
export async function demoSecretCurrent(
  secrets: CallbackSecretService,
  published: string,
): Promise<boolean> {
  const [current] = await secrets.signingSecrets(DEMO_MERCHANT_ID);
  return current === published;
}
