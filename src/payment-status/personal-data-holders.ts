import { Injectable } from '@nestjs/common';
import type { Tx } from '../database/transactions.js';

/**
 * Erases what one holder keeps of a session's personal data, inside the caller's transaction;
 * the dotted names of the fields it erased (none when it held nothing).
 */
export type PersonalDataEraser = (tx: Tx, validationKey: string) => Promise<string[]>;

/**
 * Whatever else holds a session's personal data besides the session and its callbacks (the
 * checkout's copy of the customer and address) registers here, so that every erasure, on
 * request or by retention, reaches it in the same transaction.
 */
@Injectable()
export class PersonalDataHolders {
  private readonly erasers: PersonalDataEraser[] = [];

  register(eraser: PersonalDataEraser): void {
    this.erasers.push(eraser);
  }

  async eraseIn(tx: Tx, validationKey: string): Promise<string[]> {
    const erased: string[] = [];
    for (const erase of this.erasers) erased.push(...(await erase(tx, validationKey)));
    return erased;
  }
}
