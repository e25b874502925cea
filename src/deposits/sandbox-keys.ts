import { DepositNetwork } from './networks.js';

/**
 * The demo merchant's published sandbox keys: the account keys of the standard test phrase
 * "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
 * (BIP39's best-known test phrase; BIP84 and SLIP-132 print its keys). Its private keys are
 * public knowledge and anyone can spend what these addresses receive: sandbox and tests only,
 * never for real funds.
 */
export const SANDBOX_DEPOSIT_KEYS: { readonly [N in DepositNetwork]: string } = {
  // m/84'/0'/0' (BIP84: bc1q... addresses)
  bitcoin:
    'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs',
  // m/44'/60'/0'
  evm: 'xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt',
  // m/44'/195'/0'
  tron: 'xpub6D1AabNHCupeiLM65ZR9UStMhJ1vCpyV4XbZdyhMZBiJXALQtmn9p42VTQckoHVn8WNqS7dqnJokZHAHcHGoaQgmv8D45oNUKx6DZMNZBCd',
};
