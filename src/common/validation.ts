import { ValidationPipe } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { ValidationError, validate } from 'class-validator';
import { ApiError } from './errors/api-error.js';

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
    if (messages.length > 0) {
      result.push({ field: path, message: messages[0] });
    } else if (error.children?.length) {
      result.push(...flattenValidationErrors(error.children, path, indexStyle));
    }
  }
  return result;
}

/** Validator options shared by the HTTP pipe and the seed file validation. */
export const VALIDATOR_OPTIONS = {
  whitelist: true,
  forbidNonWhitelisted: false,
  stopAtFirstError: true,
  validationError: { target: false, value: false },
} as const;

export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    ...VALIDATOR_OPTIONS,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: (errors) => ApiError.invalidParameters(flattenValidationErrors(errors)),
  });
}

/** Validates a plain object against a DTO class outside of HTTP (seed files). */
export async function validatePlain<T extends object>(
  cls: new () => T,
  plain: unknown,
): Promise<{ value: T; errors: FieldError[] }> {
  const value = plainToInstance(cls, plain ?? {}) as T;
  const errors = await validate(value, VALIDATOR_OPTIONS);
  return { value, errors: flattenValidationErrors(errors, '', 'brackets') };
}
