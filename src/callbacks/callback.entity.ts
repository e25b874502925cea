import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import { EPOCH_MS } from '../common/epoch-ms.js';

export const CALLBACK_STATES = ['pending', 'delivered', 'failed'] as const;
export type CallbackState = (typeof CALLBACK_STATES)[number];

/**
 * One callback to a merchant, written in the transaction of the transition that caused it (an
 * outbox): its signed body is fixed then, and every attempt sends the same bytes under the same
 * webhook id.
 */
@Entity('callback')
@Index('ix_callback_due', ['state', 'nextAttemptAt'])
export class Callback {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'webhook_id', type: 'varchar', length: 64, unique: true })
  webhookId: string;

  @Index('ix_callback_session')
  @Column({ name: 'validation_key', type: 'varchar', length: 255 })
  validationKey: string;

  @Column({ name: 'merchant_id', type: 'varchar', length: 64 })
  merchantId: string;

  /** The session status that caused the callback. */
  @Column({ type: 'varchar', length: 16 })
  status: string;

  @Column({ type: 'varchar', length: 2048 })
  url: string;

  @Column({ type: 'text' })
  body: string;

  @Column({ type: 'varchar', length: 16 })
  state: CallbackState;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'first_attempt_at', type: 'bigint', nullable: true, transformer: EPOCH_MS })
  firstAttemptAt: number | null;

  @Column({ name: 'next_attempt_at', type: 'bigint', transformer: EPOCH_MS })
  nextAttemptAt: number;

  /** The instance making the current attempt, until `leaseUntil`. */
  @Column({ name: 'lease_owner', type: 'varchar', length: 64, nullable: true })
  leaseOwner: string | null;

  @Column({ name: 'lease_until', type: 'bigint', nullable: true, transformer: EPOCH_MS })
  leaseUntil: number | null;

  /** Set by a redelivery of a delivered or failed callback: its state if that attempt fails. */
  @Column({ name: 'state_after_redelivery', type: 'varchar', length: 16, nullable: true })
  stateAfterRedelivery: CallbackState | null;

  @CreateDateColumn({ name: 'created_at' })
  createdAt: Date;
}

/** One delivery attempt of a callback. */
@Entity('callback_attempt')
@Index('ix_callback_attempt_callback', ['callbackId', 'id'])
export class CallbackAttempt {
  @Column({ name: 'id', type: 'integer', primary: true, generated: 'increment' })
  id: number;

  @Column({ name: 'callback_id', type: 'varchar', length: 36 })
  callbackId: string;

  @Column({ type: 'bigint', transformer: EPOCH_MS })
  at: number;

  @Column({ name: 'http_status', type: 'integer', nullable: true })
  httpStatus: number | null;

  @Column({ type: 'varchar', length: 200, nullable: true })
  error: string | null;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs: number;
}
