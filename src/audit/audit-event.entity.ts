import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { ActorKind } from './audit-chain.js';

/** One event of the audit trail: who did what to what, when, with what outcome and changes. */
@Entity('audit_event')
export class AuditEventRow {
  /** Position in the one chain (1, 2, 3…), also the event's id. */
  @PrimaryColumn({ type: 'integer' })
  seq: number;

  /** ISO 8601, milliseconds, UTC: text, so the hash reads it the same on every database. */
  @Index('ix_audit_event_at')
  @Column({ type: 'varchar', length: 24 })
  at: string;

  /** `root`, `system`, `operator` or `unknown`. */
  @Column({ name: 'actor_kind', type: 'varchar', length: 8 })
  actorKind: ActorKind;

  @Index('ix_audit_event_operator')
  @Column({ name: 'operator_id', type: 'varchar', length: 64, nullable: true })
  operatorId: string | null;

  @Column({ name: 'operator_name', type: 'varchar', length: 64 })
  operatorName: string;

  @Index('ix_audit_event_action')
  @Column({ type: 'varchar', length: 64 })
  action: string;

  @Index('ix_audit_event_target')
  @Column({ type: 'varchar', length: 300, nullable: true })
  target: string | null;

  @Column({ type: 'integer' })
  outcome: number;

  @Column({ name: 'request_id', type: 'varchar', length: 128, nullable: true })
  requestId: string | null;

  /** Canonical JSON of the changed fields. */
  @Column({ type: 'text' })
  changes: string;

  /** Why a refused request was refused; null for a change. */
  @Column({ type: 'varchar', length: 32, nullable: true })
  reason: string | null;

  /** The audit key that made the link (see auditKeyId); null for a link made before keys. */
  @Column({ name: 'key_id', type: 'varchar', length: 16, nullable: true })
  keyId: string | null;

  @Column({ name: 'prev_hash', type: 'varchar', length: 64 })
  prevHash: string;

  /** HMAC-SHA256 of the event's content (its previous link included) under the key `keyId`, hex. */
  @Column({ type: 'varchar', length: 64 })
  hash: string;
}
