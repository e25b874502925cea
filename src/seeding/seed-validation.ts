import type { FieldError } from '../common/validation.js';
import { SeedCheck, keyOf } from './seed-check.js';
import { SeedFileDto, type SeedSection } from './seed-file.dto.js';

export type SeedValidation = { ok: true; seed: SeedFileDto } | { ok: false; errors: FieldError[] };

/**
 * Checks a whole seed file already in memory (the quick start's demo file, tests) with the checks
 * of a streamed file: its sections, the per-field rules, the status rules of each session, and
 * duplicates inside the file.
 */
export async function validateSeed(content: unknown): Promise<SeedValidation> {
  const check = new SeedCheck();
  const seed = new SeedFileDto();
  if (typeof content !== 'object' || content === null || Array.isArray(content)) {
    check.refuseRoot();
  } else {
    for (const [name, value] of Object.entries(content)) {
      if (!check.section(name)) continue;
      if (!Array.isArray(value)) {
        await check.value(name, value);
        seed[name] = undefined;
        continue;
      }
      const records: unknown[] = [];
      for (const [index, plain] of value.entries()) {
        records.push((await check.record(name, index, plain)).instance);
      }
      (seed as Record<SeedSection, unknown[]>)[name] = records;
    }
  }
  const errors = await check.errors(async (name, indexes) => {
    const records = (seed[name] ?? []) as unknown[];
    return new Map(indexes.map((index) => [index, keyOf(name, records[index])!]));
  });
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, seed };
}
