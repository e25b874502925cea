import {
  type ArgumentMetadata,
  Body,
  Param,
  Query,
  ValidationPipe,
  type ValidationPipeOptions,
} from '@nestjs/common';
import type { LRUCache } from 'lru-cache';
import { boundedCache } from './cache/bounded-cache.js';
import { plainToInstance } from 'class-transformer';
import { ValidationError, validate } from 'class-validator';
import { ApiError } from './errors/api-error.js';
import { ValidationPlan } from './validation-plan.js';

export interface FieldError {
  field: string;
  message: string;
}

/**
 * Flattens class-validator errors into one entry per field, named by its dotted path
 * (`paymentResponse.money.amount`, `items[2].countryCode` when `indexStyle` is 'brackets').
 */
export function flattenValidationErrors(
  errors: ValidationError[],
  parent = '',
  indexStyle: 'dots' | 'brackets' = 'dots',
): FieldError[] {
  const result: FieldError[] = [];
  for (const error of errors) {
    const isIndex = /^\d+$/.test(error.property);
    const path =
      parent === ''
        ? error.property
        : isIndex && indexStyle === 'brackets'
          ? `${parent}[${error.property}]`
          : `${parent}.${error.property}`;
    const messages = Object.values(error.constraints ?? {});
    if (error.constraints?.whitelistValidation !== undefined) {
      result.push({ field: path, message: UNKNOWN_FIELD_RULE });
    } else if (messages.length > 0) {
      // A field left out that its rules check is one they require (an optional one is skipped).
      result.push({
        field: path,
        message: error.value === undefined ? requiredRule(messages[0]) : messages[0],
      });
    } else if (error.children?.length) {
      result.push(...flattenValidationErrors(error.children, path, indexStyle));
    }
  }
  return result;
}

/** What a required field left out is told: that it is required, then its rule. */
export function requiredRule(rule: string): string {
  return `is required: it ${rule}`;
}

/** A field that no rule knows, where those are refused (seed files). */
export const UNKNOWN_FIELD_RULE = 'is not a field of this record: check its spelling';

/** Validator options shared by the HTTP pipe and the seed file validation. */
export const VALIDATOR_OPTIONS = {
  whitelist: true,
  forbidNonWhitelisted: false,
  stopAtFirstError: true,
  // The value tells a field left out (required) from one given wrong; it goes in no message.
  validationError: { target: false, value: true },
} as const;

/** The options of the HTTP pipe: Nest's ValidationPipe's, which CompiledValidationPipe keeps. */
export const VALIDATION_PIPE_OPTIONS: ValidationPipeOptions = {
  ...VALIDATOR_OPTIONS,
  transform: true,
  transformOptions: { enableImplicitConversion: false },
  exceptionFactory: (errors) => ApiError.invalidParameters(flattenValidationErrors(errors)),
};

export function createValidationPipe(): ValidationPipe {
  return new CompiledValidationPipe(VALIDATION_PIPE_OPTIONS);
}

/** Memory the remembered queries of one DTO may take. */
const REMEMBERED_QUERY_BYTES = 1024 * 1024;

/**
 * Nest's ValidationPipe, with two shortcuts to what it would accept anyway:
 *
 * - **The DTO's rules compiled once** (ValidationPlan, src/common/validation-plan.ts): a value the
 *   plan finds certainly valid becomes the instance plainToInstance would build, without
 *   class-validator's validate, which looks up the class's metadata again and builds an error list
 *   for every value. Anything else (a value the plan does not model, a rule that fails) goes to
 *   ValidationPipe itself, so every refusal and its words still come from class-validator.
 *   Measured: 4 against 23 µs for a report's body and key; 627 against 808 µs of CPU a write
 *   under the write benchmark on Express (bench/README.md, "The DTOs' rules compiled for the HTTP
 *   pipe").
 * - **Accepted queries remembered**: clients repeat the same few query strings. The same query
 *   (as parsed from the same query string) gets the same validated, frozen DTO back. Refused
 *   queries are not remembered: each is judged afresh. Measured against the plan alone: a catalog
 *   request costs 0.35–0.66 × the CPU with the memo on Express, 0.81–0.97 × on Fastify (same
 *   bench/README.md entry).
 */
class CompiledValidationPipe extends ValidationPipe {
  /** The plan of each DTO class; null when it could not be made (ValidationPipe judges alone). */
  private readonly plans = new Map<unknown, ValidationPlan<object> | null>();
  private readonly accepted = new Map<unknown, LRUCache<string, object>>();

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { metatype } = metadata;
    if (!metatype || !this.toValidate(metadata)) return super.transform(value, metadata);
    if (metadata.type !== 'query') return this.judge(value, metadata, metatype);
    const key = JSON.stringify(value ?? null);
    let remembered = this.accepted.get(metatype);
    if (!remembered) {
      remembered = boundedCache<object>({ maxBytes: REMEMBERED_QUERY_BYTES });
      this.accepted.set(metatype, remembered);
    }
    const known = remembered.get(key);
    if (known) return known;
    const validated = (await this.judge(value, metadata, metatype)) as object;
    remembered.set(key, Object.freeze(validated));
    return validated;
  }

  /**
   * The plan's instance when it finds the value certainly valid; ValidationPipe's verdict else,
   * also when the plan cannot be made or throws (a transform of the DTO that throws on a probe).
   */
  private judge(
    value: unknown,
    metadata: ArgumentMetadata,
    metatype: NonNullable<ArgumentMetadata['metatype']>,
  ): Promise<unknown> {
    let plan = this.plans.get(metatype);
    if (plan === undefined) {
      try {
        plan = ValidationPlan.of(metatype as new () => object);
      } catch {
        plan = null;
      }
      this.plans.set(metatype, plan);
    }
    let instance: object | undefined;
    try {
      instance = plan?.accept(value);
    } catch {
      instance = undefined;
    }
    return instance === undefined ? super.transform(value, metadata) : Promise.resolve(instance);
  }
}

/**
 * The pipe of the DTO parameters (below): bound to them, not global. A global pipe runs on every
 * parameter of every route, the status lookup's key and caller included, through Nest's
 * asynchronous pipe chain; bound to the DTOs only, a route without one runs no pipe (measured:
 * bench/README.md, "Results"). eslint.config.mjs refuses `@Body()`, `@Query()` and `@Param()`
 * without a pipe, so a DTO cannot miss it.
 */
const VALIDATION_PIPE = createValidationPipe();

/** The request body, transformed to its DTO class and validated. */
export const ValidBody = (): ParameterDecorator => Body(VALIDATION_PIPE);
/** The query, transformed to its DTO class and validated (an accepted query is remembered). */
export const ValidQuery = (): ParameterDecorator => Query(VALIDATION_PIPE);
/** The path parameters, transformed to their DTO class and validated. */
export const ValidParams = (): ParameterDecorator => Param(VALIDATION_PIPE);

/**
 * Validates a plain object against a DTO class outside of HTTP (seed files); with
 * `refuseUnknown`, a field no rule knows is an error of its own rather than dropped.
 */
export async function validatePlain<T extends object>(
  cls: new () => T,
  plain: unknown,
  options: { refuseUnknown?: boolean } = {},
): Promise<{ value: T; errors: FieldError[] }> {
  const value = plainToInstance(cls, plain ?? {}) as T;
  const errors = await validate(value, {
    ...VALIDATOR_OPTIONS,
    forbidNonWhitelisted: options.refuseUnknown ?? false,
  });
  return { value, errors: flattenValidationErrors(errors, '', 'brackets') };
}
