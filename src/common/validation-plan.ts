import { TransformationType } from 'class-transformer';
import { ValidationTypes, getMetadataStorage, type ValidationArguments } from 'class-validator';
import { createRequire } from 'node:module';

/**
 * class-transformer's own metadata and options, read from the module plainToInstance uses (as
 * @nestjs/mapped-types does): the plan applies the same @Type and @Transform decorators.
 */
const require = createRequire(import.meta.url);
const { defaultMetadataStorage: transformerMetadata } =
  require('class-transformer/cjs/storage') as {
    defaultMetadataStorage: TransformerMetadata;
  };
const { defaultOptions: TRANSFORM_OPTIONS } =
  require('class-transformer/cjs/constants/default-options.constant') as { defaultOptions: object };

type Constructor<T = object> = new () => T;

interface TransformerMetadata {
  findTypeMetadata(
    target: Constructor,
    property: string,
  ):
    | {
        typeFunction?: (options: object) => unknown;
        reflectedType?: unknown;
        options?: { discriminator?: unknown };
      }
    | undefined;
  findTransformMetadatas(
    target: Constructor,
    property: string,
    type: TransformationType,
  ): { transformFn: (params: object) => unknown; options?: { groups?: string[] } }[];
  getStrategy(target: Constructor): string;
  getExposedProperties(target: Constructor, type: TransformationType): string[];
  getExcludedProperties(target: Constructor, type: TransformationType): string[];
}

interface Check {
  validate(value: unknown, args: ValidationArguments): unknown;
  each: boolean;
  constraints: unknown[];
}

/** A DTO class: its validated properties, and the own fields a new instance has without rules. */
interface ClassPlan {
  cls: Constructor;
  properties: Map<string, PropertyPlan>;
  /** Whitelisting deletes these. */
  stripped: string[];
}

/** One validated property of a DTO class, as its decorators declare it. */
interface PropertyPlan {
  name: string;
  /** The class @Type names: a plain object given here becomes an instance of it. */
  nested?: ClassPlan;
  transforms: ((params: object) => unknown)[];
  /** @IsOptional and the like: all must hold for the property to be checked at all. */
  conditions: ((object: object, value: unknown) => boolean)[];
  checks: Check[];
  validatesNested: boolean;
}

/** Thrown while compiling a class that uses a decorator feature the plan does not run. */
class Unsupported extends Error {}

/**
 * A DTO class's decorators compiled once into a plan, to accept the plain records of a large file
 * at a fraction of the cost of plainToInstance + validate (which look up every class's metadata
 * again for each object).
 *
 * The plan runs the same rules: the constraint functions and transforms the decorators
 * registered, with the semantics of the shared VALIDATOR_OPTIONS (whitelisting without
 * refusing unknown keys, no groups, no skipped properties). It only ever answers "certainly
 * valid" (with the instance class-transformer would build and class-validator would leave), or
 * undefined: "ask class-validator". Anything it does not model (arrays of objects, a value of the
 * wrong shape, a rule that fails) is undefined, so refusals and their messages always come from
 * class-validator itself.
 */
export class ValidationPlan<T extends object> {
  private readonly plans = new Map<unknown, ClassPlan>();
  private readonly root?: ClassPlan;

  private constructor(
    cls: Constructor<T>,
    /** A key without rules is refused (validatePlain's `refuseUnknown`), not dropped. */
    private readonly refuseUnknown: boolean,
  ) {
    try {
      this.root = this.compile(cls);
    } catch (error) {
      if (!(error instanceof Unsupported)) throw error;
    }
  }

  static of<T extends object>(
    cls: Constructor<T>,
    options: { refuseUnknown?: boolean } = {},
  ): ValidationPlan<T> {
    return new ValidationPlan(cls, options.refuseUnknown ?? false);
  }

  /** True when the class uses only decorators the plan models; otherwise it accepts nothing. */
  get compiled(): boolean {
    return this.root !== undefined;
  }

  /** The validated instance of a certainly valid record; undefined when class-validator must judge. */
  accept(plain: unknown): T | undefined {
    if (!this.root) return undefined;
    const instance = this.transform(this.root, plain);
    if (instance === undefined || !this.valid(this.root, instance)) return undefined;
    return instance as T;
  }

  private compile(cls: Constructor): ClassPlan {
    const known = this.plans.get(cls);
    if (known) return known;
    const keysShown =
      transformerMetadata.getStrategy(cls) === 'none' &&
      transformerMetadata.getExposedProperties(cls, TransformationType.PLAIN_TO_CLASS).length ===
        0 &&
      transformerMetadata.getExcludedProperties(cls, TransformationType.PLAIN_TO_CLASS).length ===
        0;
    if (!keysShown) throw new Unsupported(`${cls.name}: @Expose/@Exclude`);
    const storage = getMetadataStorage();
    const metadatas = storage.getTargetValidationMetadatas(cls, '', false, false, undefined);
    if (metadatas.length === 0) throw new Unsupported(`${cls.name}: no rules`);
    const plan: ClassPlan = { cls, properties: new Map(), stripped: [] };
    this.plans.set(cls, plan);
    for (const [name, list] of Object.entries(storage.groupByPropertyName(metadatas))) {
      const property: PropertyPlan = {
        name,
        transforms: [],
        conditions: [],
        checks: [],
        validatesNested: false,
      };
      for (const metadata of list) {
        if (metadata.type === ValidationTypes.CONDITIONAL_VALIDATION) {
          property.conditions.push(
            metadata.constraints[0] as (object: object, value: unknown) => boolean,
          );
        } else if (metadata.type === ValidationTypes.NESTED_VALIDATION) {
          property.validatesNested = true;
        } else if (metadata.type === ValidationTypes.CUSTOM_VALIDATION && !metadata.validateIf) {
          for (const constraint of storage.getTargetValidatorConstraints(metadata.constraintCls)) {
            if (constraint.async) throw new Unsupported(`${cls.name}.${name}: async rule`);
            const instance = constraint.instance as Check;
            property.checks.push({
              validate: (value, args) => instance.validate(value, args),
              each: Boolean(metadata.each),
              constraints: metadata.constraints,
            });
          }
        } else {
          throw new Unsupported(`${cls.name}.${name}: ${metadata.type}`);
        }
      }
      const type = transformerMetadata.findTypeMetadata(cls, name);
      if (type) {
        if (type.options?.discriminator || !type.typeFunction) {
          throw new Unsupported(`${cls.name}.${name}: @Type`);
        }
        // Only validated nested objects are whitelisted: the plan strips what it builds.
        if (!property.validatesNested) throw new Unsupported(`${cls.name}.${name}: @Type alone`);
        property.nested = this.compile(type.typeFunction({}) as Constructor);
      }
      for (const transform of transformerMetadata.findTransformMetadatas(
        cls,
        name,
        TransformationType.PLAIN_TO_CLASS,
      )) {
        if (transform.options?.groups?.length) continue; // dropped without groups, as plainToInstance does
        property.transforms.push(transform.transformFn);
      }
      plan.properties.set(name, property);
    }
    plan.stripped = Object.keys(new cls()).filter((key) => !plan.properties.has(key));
    return plan;
  }

  /** plainToInstance for plain JSON objects; undefined for a shape the plan does not model. */
  private transform(plan: ClassPlan, plain: unknown): object | undefined {
    if (!isPlainObject(plain)) return undefined;
    const instance = new plan.cls() as Record<string, unknown>;
    for (const key of plan.stripped) delete instance[key];
    for (const key of Object.keys(plain)) {
      const property = plan.properties.get(key);
      // Keys without rules are dropped by whitelisting (or refused, which class-validator words);
      // '__proto__' and 'constructor' are skipped.
      if (!property) {
        if (this.refuseUnknown) return undefined;
        continue;
      }
      let value = plain[key];
      if (property.nested && value !== null) {
        value = this.transform(property.nested, value);
        if (value === undefined) return undefined;
      } else if (Array.isArray(value)) {
        if (!value.every(isPrimitive)) return undefined;
        value = [...value];
      } else if (!isPrimitive(value)) {
        return undefined;
      }
      for (const transformFn of property.transforms) {
        value = transformFn({
          value,
          key,
          obj: plain,
          type: TransformationType.PLAIN_TO_CLASS,
          options: TRANSFORM_OPTIONS,
        });
      }
      instance[key] = value;
    }
    return instance;
  }

  /** class-validator's verdict on the instance, for the shapes transform() builds. */
  private valid(plan: ClassPlan, object: object): boolean {
    const record = object as Record<string, unknown>;
    for (const property of plan.properties.values()) {
      const value = record[property.name];
      if (!conditionsHold(property, object, value)) continue;
      const args: ValidationArguments = {
        targetName: plan.cls.name,
        property: property.name,
        object,
        value,
        constraints: [],
      };
      for (const check of property.checks) {
        args.constraints = check.constraints;
        if (check.each && Array.isArray(value)) {
          for (const item of value) if (!holds(check.validate(item, args))) return false;
        } else if (!holds(check.validate(value, args))) {
          return false;
        }
      }
      if (property.validatesNested && value !== undefined) {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
        const nested = this.plans.get(value.constructor);
        if (!nested || !this.valid(nested, value)) return false;
      }
    }
    return true;
  }
}

function conditionsHold(property: PropertyPlan, object: object, value: unknown): boolean {
  for (const condition of property.conditions) if (!condition(object, value)) return false;
  return true;
}

/** A constraint's verdict; a promise (an async rule) is not a verdict the plan can wait for. */
function holds(verdict: unknown): boolean {
  return Boolean(verdict) && !(verdict instanceof Promise);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype
  );
}

function isPrimitive(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}
