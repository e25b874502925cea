import { Transform } from 'class-transformer';
import { ValidateBy, ValidationOptions, buildMessage } from 'class-validator';
import { toMinorUnits } from './money.js';

/**
 * A query parameter given twice arrives as an array on every platform; the contract makes
 * that a 400. Put this decorator closest to the property so it is checked first.
 */
export function NotRepeated(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'notRepeated',
      validator: {
        validate: (value: unknown) => !Array.isArray(value),
        defaultMessage: buildMessage(() => 'must be given only once', options),
      },
    },
    options,
  );
}

/** A non-negative amount with at most two decimals (JSON number or decimal string). */
export function IsMoneyAmount(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isMoneyAmount',
      validator: {
        validate: (value: unknown) => toMinorUnits(value) !== undefined,
        defaultMessage: buildMessage(
          () => 'must be a non-negative amount with at most two decimals, at most 999999999999.99',
          options,
        ),
      },
    },
    options,
  );
}

/**
 * Upper-cases the ASCII letters a-z and nothing else. String.prototype.toUpperCase maps some
 * other letters onto ASCII (`ı` → `I`, `ſ` → `S`, `ﬀ` → `FF`), which would let `ıe` pass as `IE`;
 * left alone, such characters fail the code's ASCII pattern.
 */
export function asciiUpperCase(value: string): string {
  return value.replace(/[a-z]+/g, (letters) => letters.toUpperCase());
}

/** Codes: upper-cases the ASCII letters of a string value; anything else is left for the validators. */
export const AsciiUpperCase = (): PropertyDecorator =>
  Transform(({ value }) => (typeof value === 'string' ? asciiUpperCase(value) : value));

/** Trims a string value, leaves anything else for the validators to refuse. */
export const Trim = (): PropertyDecorator =>
  Transform(({ value }) => (typeof value === 'string' ? value.trim() : value));

/** Turns a string of digits into a number; anything else is left for the validators to refuse. */
export const DigitsToInteger = (): PropertyDecorator =>
  Transform(({ value }) =>
    typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value,
  );
