import { randomBytes } from 'node:crypto';
import { Resvg } from '@resvg/resvg-js';
import jsqr from 'jsqr';
import { HDKey } from '@scure/bip32';
import { versionsOf } from '../../src/deposits/extended-key-versions.js';
import { SANDBOX_DEPOSIT_KEYS } from '../../src/deposits/sandbox-keys.js';
import { adminHeaders, http, type HttpResult } from './test-app.js';

/**
 * The standard test phrase's account keys (src/deposits/sandbox-keys.ts) and their first receive
 * addresses as BIP84 and the wallets print them: the vectors the gateway's answers are held to.
 */
export const PUBLISHED = {
  bitcoin: {
    key: SANDBOX_DEPOSIT_KEYS.bitcoin,
    addresses: [
      'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
      'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g',
      'bc1qp59yckz4ae5c4efgw2s5wfyvrz0ala7rgvuz8z',
    ],
  },
  evm: {
    key: SANDBOX_DEPOSIT_KEYS.evm,
    addresses: [
      '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
      '0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0',
      '0xb6716976A3ebe8D39aCEB04372f22Ff8e6802D7A',
    ],
  },
  tron: {
    key: SANDBOX_DEPOSIT_KEYS.tron,
    addresses: [
      'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH',
      'TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK',
      'TYJPRrdB5APNeRs4R7fYZSwW3TcrTKw2gx',
    ],
  },
} as const;

const ACCOUNT_PATHS = { bitcoin: "m/84'/0'/0'", evm: "m/44'/60'/0'", tron: "m/44'/195'/0'" };

/** A fresh wallet's account: its watch-only key for the network, and its private node. */
export function freshAccount(network: keyof typeof ACCOUNT_PATHS): {
  publicKey: string;
  node: HDKey;
} {
  const versions = versionsOf(network === 'bitcoin' ? 'zpub' : 'xpub');
  const node = HDKey.fromMasterSeed(randomBytes(32), versions).derive(ACCOUNT_PATHS[network]);
  return { publicKey: node.publicExtendedKey, node };
}

/** PUT a merchant's deposit key with the admin token. */
export function putDepositKey(
  baseUrl: string,
  merchantId: string,
  network: string,
  extendedPublicKey: unknown,
): Promise<HttpResult> {
  return http(`${baseUrl}/admin/merchants/${merchantId}/deposit-keys/${network}`, {
    method: 'PUT',
    headers: adminHeaders,
    body: { extendedPublicKey },
  });
}

/** Draws a QR code's SVG as a renderer would (resvg) and reads it with a QR decoder (jsqr). */
export function decodeQrCode(svg: string): string | undefined {
  const modules = Number(/viewBox="0 0 (\d+) \1"/.exec(svg)![1]);
  const image = new Resvg(svg, { fitTo: { mode: 'width', value: modules * 8 } }).render();
  // jsqr is a CommonJS module whose types declare its function as the default export.
  return jsqr.default(new Uint8ClampedArray(image.pixels), image.width, image.height)?.data;
}
