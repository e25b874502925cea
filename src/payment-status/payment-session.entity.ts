import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { EPOCH_MS } from '../common/epoch-ms.js';
import type { PaymentStatus } from './payment-status.types.js';

/**
 * A payment session as the gateway reports it to its merchant. The payment response is kept as
 * JSON text with money in integer minor units and the account number already masked.
 */
@Entity('payment_session')
@Index('ix_payment_session_personal_final', ['finalAt'], {
  where: 'holds_personal_data = TRUE',
})
export class PaymentSession {
  @PrimaryColumn({ name: 'validation_key', type: 'varchar', length: 255 })
  validationKey: string;

  @Index('ix_payment_session_merchant')
  @Column({ name: 'merchant_id', type: 'varchar', length: 64 })
  merchantId: string;

  @Column({ type: 'varchar', length: 16 })
  status: PaymentStatus;

  @Column({ name: 'detailed_status', type: 'varchar', length: 64, nullable: true })
  detailedStatus: string | null;

  @Column({ name: 'error_message', type: 'varchar', length: 1000, nullable: true })
  errorMessage: string | null;

  @Column({ name: 'payment_response', type: 'text', nullable: true })
  paymentResponse: string | null;

  /** Where the gateway calls the merchant back; never shown by the status lookup. */
  @Column({ name: 'return_url', type: 'varchar', length: 2048, nullable: true })
  returnUrl: string | null;

  @Column({ name: 'error_url', type: 'varchar', length: 2048, nullable: true })
  errorUrl: string | null;

  /** Grows by one on every transition; conditional updates on it make concurrent reports safe. */
  @Column({ type: 'integer', default: 1 })
  version: number;

  /** When the session became final (epoch ms): the retention of its personal data counts from it. */
  @Index('ix_payment_session_final_at')
  @Column({ name: 'final_at', type: 'bigint', nullable: true, transformer: EPOCH_MS })
  finalAt: number | null;

  /**
   * Whether its payment response holds personal data now: the sessions the retention erases
   * (found through the partial index ix_payment_session_personal_final).
   */
  @Column({ name: 'holds_personal_data', type: 'boolean', default: false })
  holdsPersonalData: boolean;

  /** When its personal data was erased (epoch ms); null while it is kept, or if it held none. */
  @Column({
    name: 'personal_data_erased_at',
    type: 'bigint',
    nullable: true,
    transformer: EPOCH_MS,
  })
  personalDataErasedAt: number | null;

  @CreateDateColumn({ name: 'created_at' })
  createdAt: Date;

  /** Who created the session (an Actor as JSON); null for sessions older than the column. */
  @Column({ name: 'created_by', type: 'varchar', length: 300, nullable: true })
  createdBy: string | null;

  /** When the session was created (epoch ms): the order of the operator's list. */
  @Column({ name: 'created_at_ms', type: 'bigint', nullable: true, transformer: EPOCH_MS })
  createdAtMs: number | null;

  @UpdateDateColumn({ name: 'updated_at' })
  updatedAt: Date;
}

/** One transition of a payment session, in the order it happened. */
@Entity('payment_session_transition')
@Index('ix_transition_session', ['validationKey', 'version'], { unique: true })
export class PaymentSessionTransition {
  @Column({ name: 'id', type: 'integer', primary: true, generated: 'increment' })
  id: number;

  @Column({ name: 'validation_key', type: 'varchar', length: 255 })
  validationKey: string;

  /** The session version this transition produced. */
  @Column({ type: 'integer' })
  version: number;

  @Column({ name: 'from_status', type: 'varchar', length: 16, nullable: true })
  fromStatus: PaymentStatus | null;

  @Column({ name: 'to_status', type: 'varchar', length: 16 })
  toStatus: PaymentStatus;

  @Column({ name: 'detailed_status', type: 'varchar', length: 64, nullable: true })
  detailedStatus: string | null;

  /** Who made the transition (an Actor as JSON); null for transitions older than the column. */
  @Column({ type: 'varchar', length: 300, nullable: true })
  actor: string | null;

  @CreateDateColumn({ name: 'at' })
  at: Date;
}
