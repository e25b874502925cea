import { plainToInstance } from 'class-transformer';
import { ValidationTypes, getMetadataStorage, type ValidationArguments } from 'class-validator';
import { recordedTransforms, type ValueTransform } from './validators.js';

type Constructor<T = object> = new () => T;

interface Check {
  validate(value: unknown, args: ValidationArguments): unknown;
  each: boolean;
  constraints: unknown[];
}

/** A DTO class: its validated properties. */
interface ClassPlan {
  cls: Constructor;
  properties: Map<string, PropertyPlan>;
  /**
   * True when the plan builds the instance itself, as plainToInstance would (see direct()):
   * every transform is one of src/common/validators.ts, every nested class's plan direct too.
   */
  direct: boolean;
}

/** One validated property of a DTO class, as its decorators declare it. */
interface PropertyPlan {
  name: string;
  /** The transforms of src/common/validators.ts on the property, in the order they run. */
  transforms: ValueTransform[];
  /** With @ValidateNested: the class (@Type's) whose instance a plain object becomes. */
  nested?: Constructor;
  /** Omittable (@ValidateIf) and the like: all must hold for the property to be checked at all. */
  conditions: ((object: object, value: unknown) => boolean)[];
  checks: Check[];
  validatesNested: boolean;
}

/** Thrown while compiling a class that uses a decorator feature the plan does not run. */
class Unsupported extends Error {}

/**
 * A DTO class's validation rules compiled once into a plan, to accept the plain records of a large
 * seed file, and the bodies, queries and path parameters of requests (src/common/validation.ts),
 * at a fraction of the cost of class-validator's validate (which looks up every class's metadata
 * again for each object and builds its errors).
 *
 * The instance is the one plainToInstance builds. The plan builds it itself when it can tell that
 * is the same (see direct()): the transforms are the decorators of src/common/validators.ts, which
 * record themselves, and a nested object's class is the one plainToInstance gives; otherwise
 * class-transformer's plainToInstance builds it (about twice the plan's cost). The plan then runs
 * the same rules as class-validator, read through its public getMetadataStorage(): the constraint
 * functions the decorators registered, with the semantics of the shared VALIDATOR_OPTIONS
 * (whitelisting without refusing unknown keys, no groups, no skipped properties). It only ever
 * answers "certainly valid" (with the instance class-validator would leave), or undefined: "ask
 * class-validator". Anything it does not model (arrays of objects, a value of the wrong shape, a
 * rule that fails) is undefined, so refusals and their messages always come from class-validator
 * itself.
 */
export class ValidationPlan<T extends object> {
  private readonly plans = new Map<unknown, ClassPlan>();
  /** Nested classes with a rule the plan does not run: their records go to class-validator. */
  private readonly unsupported = new Set<unknown>();
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

  /** True when the plan builds instances itself rather than through plainToInstance (see direct()). */
  get buildsDirectly(): boolean {
    return this.root?.direct ?? false;
  }

  /** The validated instance of a certainly valid record; undefined when class-validator must judge. */
  accept(plain: unknown): T | undefined {
    if (!this.root || !isPlainObject(plain)) return undefined;
    let instance: object | undefined;
    if (this.root.direct) {
      instance = this.transform(this.root, plain);
    } else {
      try {
        instance = plainToInstance(this.root.cls, plain) as object;
      } catch {
        return undefined; // a shape plainToInstance fails on: left to class-validator's path
      }
    }
    if (instance === undefined || !this.valid(this.root, instance)) return undefined;
    return instance as T;
  }

  private compile(cls: Constructor): ClassPlan {
    const known = this.plans.get(cls);
    if (known) return known;
    const storage = getMetadataStorage();
    const metadatas = storage.getTargetValidationMetadatas(cls, '', false, false, undefined);
    if (metadatas.length === 0) throw new Unsupported(`${cls.name}: no rules`);
    const plan: ClassPlan = { cls, properties: new Map(), direct: false };
    for (const [name, list] of Object.entries(storage.groupByPropertyName(metadatas))) {
      const property: PropertyPlan = {
        name,
        transforms: recordedTransforms(cls, name),
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
      plan.properties.set(name, property);
    }
    this.plans.set(cls, plan);
    plan.direct = this.direct(plan);
    return plan;
  }

  /**
   * Whether the plan's own transform builds what plainToInstance builds for the class: each
   * property's value, for values of every kind and the strings the transforms change, comes out
   * alike, and a nested object becomes an instance of a class whose plan is itself direct. A
   * transform, @Type, @Expose or @Exclude the plan does not know of changes one of them.
   */
  private direct(plan: ClassPlan): boolean {
    for (const property of plan.properties.values()) {
      const built = (value: unknown): unknown =>
        (plainToInstance(plan.cls, { [property.name]: value }) as Record<string, unknown>)[
          property.name
        ];
      for (const probe of PROBES) {
        const ours = property.transforms.reduce((value, transform) => transform(value), probe);
        if (!Object.is(built(probe), ours)) return false;
      }
      if (property.validatesNested) {
        // The class plainToInstance makes of a plain object here (the one @Type names).
        const made = built({});
        if (typeof made !== 'object' || made === null || made.constructor === Object) return false;
        const nested = this.planOf(made.constructor as Constructor);
        if (!nested?.direct) return false;
        property.nested = nested.cls;
      }
    }
    return true;
  }

  /** plainToInstance for plain JSON objects; undefined for a shape the plan does not model. */
  private transform(plan: ClassPlan, plain: unknown): object | undefined {
    if (!isPlainObject(plain)) return undefined;
    const instance = new plan.cls() as Record<string, unknown>;
    for (const key of Object.keys(plain)) {
      const property = plan.properties.get(key);
      // Keys without rules are dropped by whitelisting (or refused, which class-validator words).
      if (!property) {
        if (this.refuseUnknown) return undefined;
        continue;
      }
      let value = plain[key];
      if (property.nested && value !== null) {
        value = this.transform(this.plans.get(property.nested)!, value);
        if (value === undefined) return undefined;
      } else if (Array.isArray(value)) {
        if (!isPrimitiveList(value)) return undefined;
        value = [...value];
      } else if (!isPrimitive(value)) {
        return undefined;
      }
      for (const transform of property.transforms) value = transform(value);
      instance[key] = value;
    }
    return instance;
  }

  /**
   * class-validator's verdict on an instance plainToInstance built, for the shapes the plan
   * models; whitelisting deletes the keys no rule knows (or, with refuseUnknown, leaves the
   * record to class-validator).
   */
  private valid(plan: ClassPlan, object: object): boolean {
    const record = object as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (plan.properties.has(key)) continue;
      if (this.refuseUnknown) return false;
      delete record[key];
    }
    for (const property of plan.properties.values()) {
      const value = record[property.name];
      if (!this.modelled(property, value)) return false;
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
        const nested = this.planOf(value.constructor as Constructor);
        if (!nested || !this.valid(nested, value)) return false;
      }
    }
    return true;
  }

  /** A primitive, a list of primitives, or a nested object of a DTO class (checked by its plan). */
  private modelled(property: PropertyPlan, value: unknown): boolean {
    if (isPrimitive(value) || value === undefined) return true;
    if (Array.isArray(value)) return isPrimitiveList(value);
    return property.validatesNested && typeof value === 'object';
  }

  /** The plan of a nested object's class (a plain Object, which no @Type named, has none). */
  private planOf(cls: Constructor): ClassPlan | undefined {
    if (cls === Object || this.unsupported.has(cls)) return undefined;
    try {
      return this.compile(cls);
    } catch (error) {
      if (!(error instanceof Unsupported)) throw error;
      this.unsupported.add(cls);
      return undefined;
    }
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

/**
 * An object that holds nothing but its own keys: JSON's objects (prototype `Object.prototype`),
 * and the query objects of both platforms' parsers (Node's `querystring`: prototype null;
 * `fast-querystring`: an empty prototype whose own prototype is null).
 */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as object | null;
  return (
    prototype === Object.prototype ||
    prototype === null ||
    (Object.getPrototypeOf(prototype) === null && Reflect.ownKeys(prototype).length === 0)
  );
}

/** Values of every JSON kind, and strings the transforms of src/common/validators.ts change. */
const PROBES: unknown[] = [' aB ', 'ıſ iE', '0123', '12345678901234567', '', 7, 1.5, true, null];

/**
 * A list of primitives without gaps (a sparse list, which a query string can make, is left to
 * ValidationPipe, which closes its gaps first).
 */
function isPrimitiveList(list: unknown[]): boolean {
  for (let i = 0; i < list.length; i++) if (!(i in list) || !isPrimitive(list[i])) return false;
  return true;
}

function isPrimitive(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}
