import type { Tx } from '../../src/database/transactions.js';
import {
  CheckoutRecord,
  CheckoutRepository,
  CheckoutRequest,
  TokenCheckout,
} from '../../src/checkout/checkout.repository.js';
import { Rollbackable, copy } from './in-memory-transactions.js';

interface State {
  checkouts: Map<string, CheckoutRecord>;
  /** Token hash → the checkout it opens and until when. */
  tokens: Map<string, { validationKey: string; expiresAt: number }>;
}

/** Checkouts and their tokens (hashes only), as the database keeps them. */
export class InMemoryCheckouts extends CheckoutRepository implements Rollbackable {
  private state: State = { checkouts: new Map(), tokens: new Map() };

  async findIn(_tx: Tx, validationKey: string): Promise<CheckoutRecord | undefined> {
    return this.stored(validationKey);
  }

  async insert(_tx: Tx, checkout: CheckoutRecord): Promise<boolean> {
    if (this.state.checkouts.has(checkout.validationKey)) return false;
    this.state.checkouts.set(checkout.validationKey, copy(checkout));
    return true;
  }

  async addToken(
    _tx: Tx,
    tokenHash: string,
    validationKey: string,
    expiresAt: number,
  ): Promise<void> {
    if (this.state.tokens.has(tokenHash)) throw new Error('duplicate token');
    this.state.tokens.set(tokenHash, { validationKey, expiresAt });
    const checkout = this.state.checkouts.get(validationKey);
    if (checkout && checkout.expiresAt < expiresAt) checkout.expiresAt = expiresAt;
  }

  async findByToken(tokenHash: string): Promise<TokenCheckout | undefined> {
    return this.byToken(tokenHash);
  }

  async findByTokenIn(_tx: Tx, tokenHash: string): Promise<TokenCheckout | undefined> {
    return this.byToken(tokenHash);
  }

  async replaceNonce(
    _tx: Tx,
    validationKey: string,
    expected: string | null,
    next: string,
  ): Promise<boolean> {
    const checkout = this.state.checkouts.get(validationKey);
    if (!checkout || (expected !== null && checkout.pageNonceHash !== expected)) return false;
    checkout.pageNonceHash = next;
    return true;
  }

  async setChosenPair(_tx: Tx, validationKey: string, pair: string): Promise<void> {
    this.required(validationKey).chosenPair = pair;
  }

  async postpone(_tx: Tx, validationKey: string, until: number): Promise<void> {
    const checkout = this.state.checkouts.get(validationKey);
    if (checkout) checkout.expiresAt = until;
  }

  async setState(_tx: Tx, validationKey: string, state: 'open' | 'ended'): Promise<void> {
    this.required(validationKey).state = state;
  }

  async dueForExpiry(_tx: Tx, now: number, limit: number): Promise<string[]> {
    return this.due((c) => c.state === 'open' && c.expiresAt <= now, limit);
  }

  async dueForErasure(_tx: Tx, before: number, limit: number): Promise<string[]> {
    return this.due((c) => c.personalDataErasedAt === null && c.expiresAt <= before, limit);
  }

  async storeErasure(
    _tx: Tx,
    validationKey: string,
    request: CheckoutRequest,
    erasedAt: number,
  ): Promise<void> {
    const checkout = this.required(validationKey);
    checkout.request = copy(request);
    checkout.personalDataErasedAt = erasedAt;
  }

  /** The checkout as stored (a copy), for assertions. */
  stored(validationKey: string): CheckoutRecord | undefined {
    const checkout = this.state.checkouts.get(validationKey);
    return checkout && copy(checkout);
  }

  /** The hashes of every token issued. */
  tokenHashes(): string[] {
    return [...this.state.tokens.keys()];
  }

  snapshot(): unknown {
    return copy(this.state);
  }

  restore(snapshot: unknown): void {
    this.state = copy(snapshot as State);
  }

  private byToken(tokenHash: string): TokenCheckout | undefined {
    const token = this.state.tokens.get(tokenHash);
    const checkout = token && this.state.checkouts.get(token.validationKey);
    return checkout ? { checkout: copy(checkout), tokenExpiresAt: token.expiresAt } : undefined;
  }

  private due(selected: (checkout: CheckoutRecord) => boolean, limit: number): string[] {
    return [...this.state.checkouts.values()]
      .filter(selected)
      .sort((a, b) => a.expiresAt - b.expiresAt)
      .slice(0, limit)
      .map((c) => c.validationKey);
  }

  private required(validationKey: string): CheckoutRecord {
    const checkout = this.state.checkouts.get(validationKey);
    if (!checkout) throw new Error(`no checkout ${validationKey}`);
    return checkout;
  }
}
