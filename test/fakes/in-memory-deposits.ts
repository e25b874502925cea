import type { Tx } from '../../src/database/transactions.js';
import {
  DepositKeyRecord,
  DepositKeyRepository,
  gapOf,
  type KeyGap,
} from '../../src/deposits/deposit-keys.repository.js';
import type { DepositRecord } from '../../src/deposits/deposit-rules.js';
import {
  DepositAddressRecord,
  DepositChange,
  DepositRepository,
  QuotedAsset,
  QuoteRecord,
} from '../../src/deposits/deposits.repository.js';
import type { DepositNetwork } from '../../src/deposits/networks.js';
import { RateRecord, RateRepository } from '../../src/deposits/rates.repository.js';
import { Rollbackable, copy } from './in-memory-transactions.js';

/** A unique constraint broken, as the database reports it. */
function uniqueViolation(constraint: string): Error {
  return Object.assign(new Error(`UNIQUE constraint failed: ${constraint}`), {
    code: 'SQLITE_CONSTRAINT',
  });
}

/** Merchants' deposit keys, with the database's constraints. */
export class InMemoryDepositKeys extends DepositKeyRepository implements Rollbackable {
  private state: { keys: DepositKeyRecord[]; nextId: number } = { keys: [], nextId: 1 };

  async currentOf(merchantId: string): Promise<DepositKeyRecord[]> {
    return copy(
      this.state.keys
        .filter((k) => k.merchantId === merchantId && k.active)
        .sort((a, b) => a.network.localeCompare(b.network)),
    );
  }

  async currentIn(
    _tx: Tx,
    merchantId: string,
    network: DepositNetwork,
  ): Promise<DepositKeyRecord | undefined> {
    const key = this.state.keys.find(
      (k) => k.merchantId === merchantId && k.network === network && k.active,
    );
    return key && copy(key);
  }

  async findByPublicKeyIn(_tx: Tx, publicKey: string): Promise<DepositKeyRecord | undefined> {
    const key = this.state.keys.find((k) => k.publicKey === publicKey);
    return key && copy(key);
  }

  async insert(_tx: Tx, key: Omit<DepositKeyRecord, 'id'>): Promise<number> {
    if (this.state.keys.some((k) => k.publicKey === key.publicKey)) {
      throw uniqueViolation('deposit_key.public_key');
    }
    const id = this.state.nextId++;
    this.state.keys.push({ ...copy(key), id });
    return id;
  }

  async activate(_tx: Tx, id: number): Promise<void> {
    this.byId(id).active = true;
  }

  async deactivate(_tx: Tx, merchantId: string, network: DepositNetwork): Promise<void> {
    for (const key of this.state.keys) {
      if (key.merchantId === merchantId && key.network === network) key.active = false;
    }
  }

  async takeIndex(_tx: Tx, id: number): Promise<number> {
    return this.byId(id).nextIndex++;
  }

  async funded(_tx: Tx, id: number, index: number): Promise<void> {
    const key = this.byId(id);
    key.fundedThrough = Math.max(key.fundedThrough, index);
  }

  async gaps(): Promise<KeyGap[]> {
    return this.state.keys
      .filter((k) => k.active)
      .map((k) => ({ merchantId: k.merchantId, network: k.network, gap: gapOf(k) }));
  }

  private byId(id: number): DepositKeyRecord {
    const key = this.state.keys.find((k) => k.id === id);
    if (!key) throw new Error(`No deposit key ${id}`);
    return key;
  }

  snapshot(): unknown {
    return copy(this.state);
  }

  restore(snapshot: unknown): void {
    this.state = copy(snapshot as typeof this.state);
  }
}

/** The assets' rates. */
export class InMemoryRates extends RateRepository implements Rollbackable {
  private rates: RateRecord[] = [];

  async list(): Promise<RateRecord[]> {
    return copy(this.rates);
  }

  async inFiat(fiat: string): Promise<RateRecord[]> {
    return copy(this.rates.filter((r) => r.fiat === fiat));
  }

  async findIn(_tx: Tx, currencyCode: string, fiat: string): Promise<RateRecord | undefined> {
    const rate = this.rates.find((r) => r.currencyCode === currencyCode && r.fiat === fiat);
    return rate && copy(rate);
  }

  async put(_tx: Tx, rate: RateRecord): Promise<void> {
    this.rates = [
      ...this.rates.filter((r) => r.currencyCode !== rate.currencyCode || r.fiat !== rate.fiat),
      copy(rate),
    ];
  }

  snapshot(): unknown {
    return copy(this.rates);
  }

  restore(snapshot: unknown): void {
    this.rates = copy(snapshot as RateRecord[]);
  }
}

interface DepositState {
  addresses: DepositAddressRecord[];
  quotes: Map<string, QuoteRecord>;
  deposits: DepositRecord[];
  nextId: number;
}

/** Deposit addresses and quotes, with the database's constraints. */
export class InMemoryDeposits extends DepositRepository implements Rollbackable {
  protected state: DepositState = { addresses: [], quotes: new Map(), deposits: [], nextId: 1 };

  async addressOfIn(
    _tx: Tx,
    validationKey: string,
    network: DepositNetwork,
  ): Promise<DepositAddressRecord | undefined> {
    const address = this.state.addresses.find(
      (a) => a.validationKey === validationKey && a.network === network,
    );
    return address && copy(address);
  }

  async addressByIdIn(_tx: Tx, id: number): Promise<DepositAddressRecord | undefined> {
    const address = this.state.addresses.find((a) => a.id === id);
    return address && copy(address);
  }

  async insertAddress(_tx: Tx, address: Omit<DepositAddressRecord, 'id'>): Promise<number> {
    const clash = this.state.addresses.find(
      (a) =>
        (a.validationKey === address.validationKey && a.network === address.network) ||
        (a.keyId === address.keyId && a.addressIndex === address.addressIndex) ||
        (a.network === address.network && a.lookup === address.lookup),
    );
    if (clash) throw uniqueViolation('deposit_address');
    const id = this.state.nextId++;
    this.state.addresses.push({ ...copy(address), id });
    return id;
  }

  async setAddressAsset(_tx: Tx, id: number, asset: QuotedAsset): Promise<void> {
    const address = this.state.addresses.find((a) => a.id === id);
    if (address) Object.assign(address, copy(asset));
  }

  async quoteIn(_tx: Tx, validationKey: string): Promise<QuoteRecord | undefined> {
    const quote = this.state.quotes.get(validationKey);
    return quote && copy(quote);
  }

  async putQuote(_tx: Tx, quote: QuoteRecord): Promise<void> {
    this.state.quotes.set(quote.validationKey, copy(quote));
  }

  async quotesOfIn(_tx: Tx, validationKeys: readonly string[]): Promise<QuoteRecord[]> {
    return copy(validationKeys.flatMap((key) => this.state.quotes.get(key) ?? []));
  }

  async lockAddressIn(
    _tx: Tx,
    network: DepositNetwork,
    lookup: string,
  ): Promise<DepositAddressRecord | undefined> {
    const address = this.state.addresses.find((a) => a.network === network && a.lookup === lookup);
    return address && copy(address);
  }

  async lockAddressesOfIn(
    _tx: Tx,
    validationKeys: readonly string[],
  ): Promise<DepositAddressRecord[]> {
    return copy(this.state.addresses.filter((a) => validationKeys.includes(a.validationKey)));
  }

  async depositIn(
    _tx: Tx,
    network: DepositNetwork,
    txid: string,
    outputIndex: number,
  ): Promise<DepositRecord | undefined> {
    const deposit = this.state.deposits.find(
      (d) => d.network === network && d.txid === txid && d.outputIndex === outputIndex,
    );
    return deposit && copy(deposit);
  }

  async depositsOfIn(_tx: Tx, validationKeys: readonly string[]): Promise<DepositRecord[]> {
    return copy(this.state.deposits.filter((d) => validationKeys.includes(d.validationKey)));
  }

  async insertDeposit(tx: Tx, deposit: Omit<DepositRecord, 'id'>): Promise<number> {
    if (await this.depositIn(tx, deposit.network, deposit.txid, deposit.outputIndex)) {
      throw uniqueViolation('deposit.network, deposit.txid, deposit.output_index');
    }
    const id = this.state.nextId++;
    this.state.deposits.push({ ...copy(deposit), id });
    return id;
  }

  async updateDeposit(_tx: Tx, id: number, change: DepositChange): Promise<void> {
    const deposit = this.state.deposits.find((d) => d.id === id);
    if (deposit) Object.assign(deposit, copy(change));
  }

  /** Every deposit stored, in the order first seen. */
  deposits(): DepositRecord[] {
    return copy(this.state.deposits);
  }

  /** Every address given, in the order given. */
  addresses(): DepositAddressRecord[] {
    return copy(this.state.addresses);
  }

  snapshot(): unknown {
    return copy(this.state);
  }

  restore(snapshot: unknown): void {
    this.state = copy(snapshot as DepositState);
  }
}
