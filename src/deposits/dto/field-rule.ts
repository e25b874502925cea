import { ValidateBy, type ValidationArguments } from 'class-validator';

/**
 * A rule of one field that reads the other fields of its object (a chain id taken on one network
 * only, a token contract in its network's form); refused with the words `refusal` gives.
 */
export function FieldRule<T extends object>(
  name: string,
  refusal: (object: Partial<T>, value: unknown) => string | undefined,
): PropertyDecorator {
  return ValidateBy({
    name,
    validator: {
      validate: (value: unknown, args?: ValidationArguments) =>
        refusal(args?.object as Partial<T>, value) === undefined,
      defaultMessage: (args?: ValidationArguments) =>
        refusal(args?.object as Partial<T>, args?.value) ?? 'is invalid',
    },
  });
}
