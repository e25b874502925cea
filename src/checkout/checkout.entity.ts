import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EPOCH_MS } from '../common/epoch-ms.js';

/**
 * The checkout of a payment session created by init-iframe: what the merchant asked for (the
 * customer and address in it are personal data), until when its page is open, the pair the
 * customer chose, and the hash of the page's current single-use nonce.
 */
@Entity('checkout')
@Index('ix_checkout_open', ['state', 'expiresAt'])
@Index('ix_checkout_personal_data', ['personalDataErasedAt', 'expiresAt'])
export class Checkout {
  @PrimaryColumn({ name: 'validation_key', type: 'varchar', length: 255 })
  validationKey: string;

  @Column({ name: 'merchant_id', type: 'varchar', length: 64 })
  merchantId: string;

  /** The init-iframe request, normalised, as JSON (see CheckoutRequest). */
  @Column({ type: 'text' })
  request: string;

  /** When the last token issued expires (epoch ms): past it, the session expires. */
  @Column({ name: 'expires_at', type: 'bigint', transformer: EPOCH_MS })
  expiresAt: number;

  /** `open` while the expiry job must watch it; `ended` once its session left PENDING. */
  @Column({ type: 'varchar', length: 8 })
  state: 'open' | 'ended';

  /** `CURRENCY/PROTOCOL` once the customer has chosen a pair. */
  @Column({ name: 'chosen_pair', type: 'varchar', length: 64, nullable: true })
  chosenPair: string | null;

  @Column({ name: 'page_nonce_hash', type: 'varchar', length: 64, nullable: true })
  pageNonceHash: string | null;

  @Column({
    name: 'personal_data_erased_at',
    type: 'bigint',
    nullable: true,
    transformer: EPOCH_MS,
  })
  personalDataErasedAt: number | null;
}

/** A checkout token, stored only as the SHA-256 hash of what the merchant was given. */
@Entity('checkout_token')
export class CheckoutToken {
  @PrimaryColumn({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash: string;

  @Index('ix_checkout_token_session')
  @Column({ name: 'validation_key', type: 'varchar', length: 255 })
  validationKey: string;

  @Column({ name: 'expires_at', type: 'bigint', transformer: EPOCH_MS })
  expiresAt: number;
}
