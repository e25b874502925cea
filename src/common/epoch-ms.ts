import type { ValueTransformer } from 'typeorm';

/**
 * Epoch milliseconds in a `bigint` column: PostgreSQL's driver returns 64-bit integers as text, so
 * they are read back as numbers (well inside 2^53).
 */
export const EPOCH_MS: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null ? null : Number(value)),
};
