import { Inject, Injectable, Logger } from '@nestjs/common';
import { hex } from '@scure/base';
import type { OperatorCall } from '../access/operator-call.js';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { ApiError } from '../common/errors/api-error.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { isUniqueViolation } from '../database/dialect.js';
import { Transactions, type Tx } from '../database/transactions.js';
import { MerchantRepository } from '../merchants/merchant.repository.js';
import { DEMO_MERCHANT_ID, merchantNotFound, requireMerchant } from '../merchants/merchant-id.js';
import { boundedCache } from '../common/cache/bounded-cache.js';
import { receiveAddressOn, receiveChain, type ReceiveChain } from './deposit-address.js';
import {
  DepositKeyRecord,
  DepositKeyRepository,
  GAP_LIMIT,
  gapOf,
} from './deposit-keys.repository.js';
import type { DepositKeyDto } from './dto/deposit-key.dto.js';
import {
  accountNode,
  classifyAccountKey,
  storedAccountKey,
  type AccountKey,
} from './extended-keys.js';
import { NETWORK_RULES, type DepositNetwork } from './networks.js';
import { SANDBOX_DEPOSIT_KEYS } from './sandbox-keys.js';

/** Receive addresses the merchant's view shows, to compare with the wallet. */
const SHOWN_ADDRESSES = 3;

const KEY_FIELD = 'extendedPublicKey';

/**
 * Memory for the keys' external chains kept derived: with one, an address costs one BIP32 step
 * instead of two and the key's parsing (bench/README.md, "Deposit addresses").
 */
const CHAIN_CACHE_BYTES = 2 * 1024 * 1024;
/** What a kept chain costs, roughly: its node (keys, chain code, points) and the key text. */
const CHAIN_BYTES = 2048;

/**
 * Merchants' watch-only deposit keys (docs/operators.md, "Deposit keys"): registered, shown with
 * their first addresses, replaced and removed by an operator, audited by fingerprint. A key is
 * one merchant's, on one network, for good; its index sequence survives its removal. A private
 * key is refused by kind and its text kept nowhere: not in the answer, the audit trail, a log
 * line or a row.
 */
@Injectable()
export class DepositKeyService {
  private readonly logger = new Logger('Deposits');
  /** The keys' external chains, by key text (a key's text never changes). */
  private readonly chains = boundedCache<ReceiveChain>({
    maxBytes: CHAIN_CACHE_BYTES,
    sizeOf: () => CHAIN_BYTES,
  });

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly keys: DepositKeyRepository,
    private readonly merchants: MerchantRepository,
    private readonly transactions: Transactions,
    private readonly audit: AuditTrail,
  ) {}

  /** Registers `text` as the merchant's current key for the network (replacing the one before). */
  async put(
    merchantId: string,
    network: DepositNetwork,
    text: string,
    call?: OperatorCall,
  ): Promise<DepositKeyDto> {
    const verdict = classifyAccountKey(network, text);
    if (verdict.refusal) {
      throw ApiError.invalidParameters([{ field: KEY_FIELD, message: verdict.refusal.message }]);
    }
    const account = verdict.key;
    if (this.config.nodeEnv === 'production' && isSandboxKey(account)) {
      throw ApiError.invalidParameters([
        {
          field: KEY_FIELD,
          message:
            "This is the sandbox's published key of the standard test phrase: anyone can spend what its addresses receive. Give the merchant's own key.",
        },
      ]);
    }
    const publicKey = hex.encode(accountNode(account).publicKey!);
    try {
      const stored = await this.transactions.run(async (tx) => {
        await requireMerchant(this.merchants, tx, merchantId);
        const current = await this.keys.currentIn(tx, merchantId, network);
        const known = await this.keys.findByPublicKeyIn(tx, publicKey);
        if (known && (known.merchantId !== merchantId || known.network !== network)) {
          throw new ApiError('CONFLICT', {
            message:
              known.merchantId === merchantId
                ? `This key is registered for ${known.network}: a key serves one network.`
                : 'This key is registered to another merchant: two merchants on one key would be given the same addresses.',
            field: KEY_FIELD,
          });
        }
        if (known && current?.id === known.id) return known;
        if (current) await this.keys.deactivate(tx, merchantId, network);
        let record: DepositKeyRecord;
        if (known) {
          await this.keys.activate(tx, known.id);
          record = { ...known, active: true };
        } else {
          record = await this.insert(tx, merchantId, account, publicKey);
        }
        await this.audit.record(tx, call, {
          target: `${merchantId}/${network}`,
          changes: { fingerprint: { old: current?.fingerprint ?? null, new: record.fingerprint } },
        });
        return record;
      });
      return this.viewOf(stored);
    } catch (error) {
      // Another request registered the same key, or another key for this merchant, first.
      if (isUniqueViolation(error)) {
        throw new ApiError('CONFLICT', {
          message: 'The key or the merchant’s keys changed meanwhile; retry.',
          field: KEY_FIELD,
        });
      }
      throw error;
    }
  }

  /** The merchant's current keys, one per network at most. */
  async list(merchantId: string): Promise<DepositKeyDto[]> {
    const keys = await this.keys.currentOf(merchantId);
    if (keys.length === 0) {
      const known = await this.transactions.run((tx) => this.merchants.find(tx, merchantId));
      if (!known) throw merchantNotFound(merchantId);
    }
    return keys.map((key) => this.viewOf(key));
  }

  /**
   * The merchant has no key for the network any more: no new checkout is offered its pairs.
   * Addresses already given keep their sessions; the key's sequence continues if it comes back.
   */
  async remove(merchantId: string, network: DepositNetwork, call?: OperatorCall): Promise<void> {
    await this.transactions.run(async (tx) => {
      await requireMerchant(this.merchants, tx, merchantId);
      const current = await this.keys.currentIn(tx, merchantId, network);
      if (!current) {
        throw new ApiError('NOT_FOUND', {
          message: `Merchant ${merchantId} has no ${network} deposit key.`,
          field: 'network',
        });
      }
      await this.keys.deactivate(tx, merchantId, network);
      await this.audit.record(tx, call, {
        target: `${merchantId}/${network}`,
        changes: { fingerprint: { old: current.fingerprint, new: null } },
      });
    });
  }

  /**
   * The merchant's current key for the network, or undefined. In the sandbox the demo merchant
   * without a key of its own is given the published sandbox key (src/deposits/sandbox-keys.ts),
   * registered then like any key.
   */
  async currentIn(
    tx: Tx,
    merchantId: string,
    network: DepositNetwork,
  ): Promise<DepositKeyRecord | undefined> {
    const current = await this.keys.currentIn(tx, merchantId, network);
    if (current || !this.config.checkout.sandbox || merchantId !== DEMO_MERCHANT_ID) {
      return current;
    }
    const account = storedAccountKey(network, SANDBOX_DEPOSIT_KEYS[network]);
    const publicKey = hex.encode(accountNode(account).publicKey!);
    const known = await this.keys.findByPublicKeyIn(tx, publicKey);
    if (known) return known.merchantId === merchantId ? known : undefined;
    return this.insert(tx, merchantId, account, publicKey);
  }

  /** Stores a key new to the gateway as the merchant's current one, its sequence at 0. */
  private async insert(
    tx: Tx,
    merchantId: string,
    account: AccountKey,
    publicKey: string,
  ): Promise<DepositKeyRecord> {
    const fresh: Omit<DepositKeyRecord, 'id'> = {
      merchantId,
      network: account.network,
      extendedPublicKey: account.extendedPublicKey,
      publicKey,
      fingerprint: account.fingerprint,
      active: true,
      nextIndex: 0,
      fundedThrough: -1,
      createdAt: Date.now(),
    };
    return { ...fresh, id: await this.keys.insert(tx, fresh) };
  }

  /** Which networks the merchant has a current key for (the sandbox's demo merchant: all). */
  async networksOf(merchantId: string): Promise<Set<DepositNetwork>> {
    if (this.config.checkout.sandbox && merchantId === DEMO_MERCHANT_ID) {
      return new Set(Object.keys(NETWORK_RULES) as DepositNetwork[]);
    }
    return new Set((await this.keys.currentOf(merchantId)).map((key) => key.network));
  }

  /**
   * The key's next receive address and its index, taken inside the caller's transaction (see
   * DepositKeyRepository.takeIndex); a warning in the log when the key's gap reaches the
   * wallets' usual limit.
   */
  async nextAddress(tx: Tx, key: DepositKeyRecord): Promise<{ index: number; address: string }> {
    const index = await this.keys.takeIndex(tx, key.id);
    const gap = gapOf({ nextIndex: index + 1, fundedThrough: key.fundedThrough });
    if (gap === GAP_LIMIT) {
      this.logger.warn(
        { merchantId: key.merchantId, network: key.network, fingerprint: key.fingerprint, gap },
        'Deposit address gap reached the wallets’ usual limit',
      );
    }
    return { index, address: receiveAddressOn(this.chainOf(key), index) };
  }

  /** Records that the key's address at `index` received a deposit (the gap starts after it). */
  funded(tx: Tx, keyId: number, index: number): Promise<void> {
    return this.keys.funded(tx, keyId, index);
  }

  private chainOf(key: Pick<DepositKeyRecord, 'network' | 'extendedPublicKey'>): ReceiveChain {
    let chain = this.chains.get(key.extendedPublicKey);
    if (!chain) {
      chain = receiveChain(storedAccountKey(key.network, key.extendedPublicKey));
      this.chains.set(key.extendedPublicKey, chain);
    }
    return chain;
  }

  private viewOf(key: DepositKeyRecord): DepositKeyDto {
    const chain = this.chainOf(key);
    const gap = gapOf(key);
    return {
      network: key.network,
      format: chain.key.format.prefix,
      standard: chain.key.format.standard,
      extendedPublicKey: key.extendedPublicKey,
      fingerprint: key.fingerprint,
      firstAddresses: Array.from({ length: SHOWN_ADDRESSES }, (_, i) => receiveAddressOn(chain, i)),
      addressesGiven: key.nextIndex,
      gap,
      ...(gap >= GAP_LIMIT
        ? {
            gapWarning: `The last ${gap} addresses given received nothing: a wallet restored from this key may not look beyond ${GAP_LIMIT} unused addresses (raise its gap limit).`,
          }
        : {}),
      createdAt: new Date(key.createdAt).toISOString(),
    };
  }
}

function isSandboxKey(account: AccountKey): boolean {
  return SANDBOX_DEPOSIT_KEYS[account.network] === account.extendedPublicKey;
}
