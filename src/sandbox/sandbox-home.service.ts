import { Injectable } from '@nestjs/common';
import { ApiKeyService } from '../merchants/api-key.service.js';
import { CallbackSecretService } from '../merchants/callback-secret.service.js';
import { DEMO_MERCHANT_ID } from '../merchants/merchant-id.js';
import { demoKeyState, demoSecretCurrent, publishedDemoMerchant } from './demo-merchant.js';
import type { HomeView } from './sandbox-pages.js';
import type { ShopAddress } from './shop-address.js';

/** What the home page tells a newcomer: the demo merchant's key and secret, while they work. */
@Injectable()
export class SandboxHome {
  constructor(
    private readonly apiKeys: ApiKeyService,
    private readonly secrets: CallbackSecretService,
  ) {}

  async view(at: ShopAddress): Promise<HomeView> {
    const { apiKey, callbackSecret } = publishedDemoMerchant();
    const [key, secretCurrent] = await Promise.all([
      demoKeyState(this.apiKeys, apiKey),
      demoSecretCurrent(this.secrets, callbackSecret),
    ]);
    const keys = `/admin/merchants/${DEMO_MERCHANT_ID}/api-keys`;
    const keyProblem =
      key.state === 'active'
        ? undefined
        : `The published key is ${key.state === 'revoked' ? 'revoked' : 'not in this database'}: ` +
          (key.otherKeysActive
            ? `the merchant "${DEMO_MERCHANT_ID}" has other keys (GET ${keys}).`
            : `create one with POST ${keys}.`);
    return {
      origin: at.browser ?? at.local,
      apiKey,
      ...(keyProblem ? { keyProblem } : {}),
      callbackSecret,
      secretCurrent,
    };
  }
}
