import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import type { OperatorRole } from '../access/operator-role.js';
import { EPOCH_MS } from '../common/epoch-ms.js';

/** A person or program with a credential of its own for the operator API, and a role. */
@Entity('operator')
@Index('ux_operator_working_name', ['nameKey'], { unique: true, where: 'revoked_at IS NULL' })
export class Operator {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Index('ix_operator_name')
  @Column({ type: 'varchar', length: 64 })
  name: string;

  /** The name in lower case: unique among working operators, so no two differ only by case. */
  @Column({ name: 'name_key', type: 'varchar', length: 64 })
  nameKey: string;

  @Column({ type: 'varchar', length: 16 })
  role: OperatorRole;

  /** SHA-256 of the token, hex: the token itself is never stored. */
  @Index('ix_operator_token_hash', { unique: true })
  @Column({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash: string;

  @CreateDateColumn({ name: 'created_at' })
  createdAt: Date;

  /** ISO time of revocation; null while the token works. */
  @Column({ name: 'revoked_at', type: 'varchar', length: 24, nullable: true })
  revokedAt: string | null;

  /** Epoch milliseconds of the last request made with the token, to the minute. */
  @Column({ name: 'last_used_at', type: 'bigint', nullable: true, transformer: EPOCH_MS })
  lastUsedAt: number | null;
}
