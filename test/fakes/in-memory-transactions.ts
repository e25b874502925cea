import { randomBytes } from 'node:crypto';
import { CallbackSecretBox } from '../../src/merchants/callback-secrets.js';
import { Transactions, type Tx } from '../../src/database/transactions.js';

/** A store whose state a transaction can save and put back. */
export interface Rollbackable {
  snapshot(): unknown;
  restore(snapshot: unknown): void;
}

/**
 * Transactions over in-memory stores: one at a time, and a unit of work that throws leaves every
 * registered store exactly as it found it.
 */
export class InMemoryTransactions extends Transactions {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly stores: Rollbackable[];
  committed = 0;
  rolledBack = 0;

  constructor(...stores: Rollbackable[]) {
    super();
    this.stores = stores;
  }

  /** One unit after another, in the order asked (`ahead` changes nothing here). */
  run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const result = this.tail.then(async () => {
      const saved = this.stores.map((store) => store.snapshot());
      try {
        const value = await work({ inTransaction: true });
        this.committed++;
        return value;
      } catch (error) {
        this.stores.forEach((store, index) => store.restore(saved[index]));
        this.rolledBack++;
        throw error;
      }
    });
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Nothing runs outside a transaction in memory. */
  async outside(): Promise<void> {}
}

/** Deep copy of plain data (records hold strings, numbers, booleans, null and dates). */
export function copy<T>(value: T): T {
  return structuredClone(value);
}

/** A box for callback secrets under a key that lives as long as the test. */
export function testSecretBox(): CallbackSecretBox {
  return new CallbackSecretBox(randomBytes(32));
}
