import { CallbackOutbox, type NewCallback } from '../../src/callbacks/callback-outbox.js';
import type { Tx } from '../../src/database/transactions.js';
import { Rollbackable, copy } from './in-memory-transactions.js';

/** The callbacks transitions left, kept only when their transaction commits. */
export class InMemoryCallbackOutbox extends CallbackOutbox implements Rollbackable {
  callbacks: NewCallback[] = [];
  /** URLs refused, as production refuses plain http. */
  refuse?: (url: string) => string | undefined;

  async enqueue(_tx: Tx, callbacks: readonly NewCallback[]): Promise<void> {
    this.callbacks.push(...callbacks.map(copy));
  }

  urlRefusal(url: string): string | undefined {
    return this.refuse?.(url);
  }

  async rewriteBodies(
    _tx: Tx,
    validationKey: string,
    rewrite: (body: string) => string | undefined,
  ): Promise<void> {
    for (const callback of this.callbacks) {
      if (callback.validationKey !== validationKey) continue;
      callback.body = rewrite(callback.body) ?? callback.body;
    }
  }

  snapshot(): unknown {
    return copy(this.callbacks);
  }

  restore(snapshot: unknown): void {
    this.callbacks = copy(snapshot as NewCallback[]);
  }
}
