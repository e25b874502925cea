import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import { EPOCH_MS } from '../common/epoch-ms.js';

/** A merchant owns API keys and payment sessions. */
@Entity('merchant')
export class Merchant {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @CreateDateColumn({ name: 'created_at' })
  createdAt: Date;

  /** The secret signing this merchant's callbacks, encrypted (see CallbackSecretBox). */
  @Column({ name: 'callback_secret', type: 'text', nullable: true })
  callbackSecret: string | null;

  /** The secret before the last rotation, still signing for a day after it. */
  @Column({ name: 'previous_callback_secret', type: 'text', nullable: true })
  previousCallbackSecret: string | null;

  @Column({
    name: 'callback_secret_rotated_at',
    type: 'bigint',
    nullable: true,
    transformer: EPOCH_MS,
  })
  callbackSecretRotatedAt: number | null;

  /** Origins besides those of a session's callback URLs that may frame its checkout page (JSON). */
  @Column({ name: 'checkout_origins', type: 'text', nullable: true })
  checkoutOrigins: string | null;
}

/** An API key, stored only as the SHA-256 hash of its plaintext. */
@Entity('api_key')
export class ApiKey {
  @PrimaryColumn({ name: 'id', type: 'varchar', length: 36 })
  id: string;

  @Index('ix_api_key_merchant')
  @Column({ name: 'merchant_id', type: 'varchar', length: 64 })
  merchantId: string;

  @Index('uq_api_key_hash', { unique: true })
  @Column({ name: 'key_hash', type: 'varchar', length: 64 })
  keyHash: string;

  @CreateDateColumn({ name: 'created_at' })
  createdAt: Date;

  @Column({ name: 'revoked_at', type: 'varchar', length: 32, nullable: true })
  revokedAt: string | null;

  /** The plaintext's last 4 characters, so the operator can tell keys apart; null when unknown. */
  @Column({ name: 'last4', type: 'varchar', length: 4, nullable: true })
  last4: string | null;
}
