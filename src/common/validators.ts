import { Transform } from 'class-transformer';
import { ValidateBy, ValidateIf, ValidationOptions, buildMessage } from 'class-validator';
import { TEXT_RULE, textRefusal } from './http/json-text.js';
import { toMinorUnits } from './money.js';

/**
 * The field may be left out; a value given, `null` included, keeps the field's rules. A `null` is
 * refused like any other value the rules do not take (an answer leaves out what it does not
 * have, never says `null`: docs/api.md, "Payment status" and "JSON bodies"). class-validator's
 * `@IsOptional()` would let a `null` through unchecked, to be stored as given; lint refuses it in
 * src/.
 */
export const Omittable = (): PropertyDecorator =>
  ValidateIf((_object: object, value: unknown) => value !== undefined);

/**
 * A query parameter given twice arrives as an array on every platform; that is a 400 on the
 * parameter (docs/api.md, "Catalog of crypto pairs"). Put this decorator closest to the
 * property so it is checked first.
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

/**
 * Text as a database stores and compares it: no control character (PostgreSQL refuses a NUL in
 * any text, where SQLite would take it), no lone surrogate. Query parameters arrive decoded
 * (`%00` is a NUL), so every free-text filter carries this rule.
 */
export function IsPlainText(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isPlainText',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && textRefusal(value) === undefined,
        defaultMessage: buildMessage(() => TEXT_RULE, options),
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

/** Lower-cases the ASCII letters A-Z and nothing else (see asciiUpperCase: the Kelvin sign is no `k`). */
export function asciiLowerCase(value: string): string {
  return value.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/** A transform of a property's value, as plainToInstance runs it. */
export type ValueTransform = (value: unknown) => unknown;

/** The transforms this file's decorators put on each class prototype, by property, in order. */
const TRANSFORMS = new WeakMap<object, Map<string, ValueTransform[]>>();

/**
 * class-transformer's @Transform with `fn`, recorded here too: ValidationPlan (the seed command's
 * checks, the HTTP validation pipe) runs the same functions without reading class-transformer's
 * metadata.
 */
function recordedTransform(fn: ValueTransform): PropertyDecorator {
  const transform = Transform(({ value }) => fn(value));
  return (target, key) => {
    transform(target, key);
    let byProperty = TRANSFORMS.get(target);
    if (!byProperty) TRANSFORMS.set(target, (byProperty = new Map()));
    const list = byProperty.get(String(key)) ?? [];
    byProperty.set(String(key), [...list, fn]);
  };
}

/**
 * The transforms this file's decorators put on a property of a class or of its ancestors
 * in the order plainToInstance runs them: the farthest ancestor's first, and those of one class in
 * the order they were applied (the decorator written last first).
 */
export function recordedTransforms(cls: abstract new () => object, key: string): ValueTransform[] {
  const chain: ValueTransform[][] = [];
  for (
    let target = cls.prototype as object | null;
    target;
    target = Object.getPrototypeOf(target)
  ) {
    const own = TRANSFORMS.get(target)?.get(key);
    if (own) chain.unshift(own);
  }
  return chain.flat();
}

/**
 * Omittable, and a `null` is taken as the field left out: for a field of what existing
 * integrations send (init-iframe), whose JSON serialisers commonly write an unset field as
 * `null`. Nowhere else: a `null` the service would store is refused (Omittable).
 */
export const AbsentWhenNull = (): PropertyDecorator => {
  const omittable = Omittable();
  const absent = recordedTransform((value) => (value === null ? undefined : value));
  return (target, key) => {
    omittable(target, key);
    absent(target, key);
  };
};

/** Codes: upper-cases the ASCII letters of a string value; anything else is left for the validators. */
export const AsciiUpperCase = (): PropertyDecorator =>
  recordedTransform((value) => (typeof value === 'string' ? asciiUpperCase(value) : value));

/** Trims a string value, leaves anything else for the validators to refuse. */
export const Trim = (): PropertyDecorator =>
  recordedTransform((value) => (typeof value === 'string' ? value.trim() : value));

/** Turns a string of digits into a number; anything else is left for the validators to refuse. */
export const DigitsToInteger = (): PropertyDecorator =>
  recordedTransform((value) =>
    typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value,
  );
