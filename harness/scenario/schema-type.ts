/**
 * A JSON Schema subset and the TypeScript type it describes, computed by the compiler. The scenario
 * definition is written once as a schema object; its type, its validator and schemas/scenario.v1.json
 * all come from that one object, so they cannot drift apart.
 */
export interface StringSchema {
  readonly type: 'string';
  readonly pattern?: string;
  readonly minLength?: number;
  readonly description?: string;
}
export interface IntegerSchema {
  readonly type: 'integer';
  readonly minimum?: number;
  readonly maximum?: number;
  readonly description?: string;
}
export interface BooleanSchema {
  readonly type: 'boolean';
  readonly description?: string;
}
export interface EnumSchema {
  readonly enum: readonly (string | number)[];
  readonly description?: string;
}
export interface ConstSchema {
  readonly const: string;
  readonly description?: string;
}
export interface ArraySchema {
  readonly type: 'array';
  readonly items: Schema;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly description?: string;
}
export interface ObjectSchema {
  readonly type: 'object';
  readonly properties: Readonly<Record<string, Schema>>;
  readonly required?: readonly string[];
  /** A key that is present requires these others (JSON Schema 2020-12 `dependentRequired`). */
  readonly dependentRequired?: Readonly<Record<string, readonly string[]>>;
  readonly additionalProperties: false;
  readonly description?: string;
}
/** A tagged union: every branch is an object whose `kind` property is a const. */
export interface OneOfSchema {
  readonly oneOf: readonly ObjectSchema[];
  readonly description?: string;
}

export type Schema =
  | StringSchema
  | IntegerSchema
  | BooleanSchema
  | EnumSchema
  | ConstSchema
  | ArraySchema
  | ObjectSchema
  | OneOfSchema;

type Required<S extends ObjectSchema> = S['required'] extends readonly (infer K)[] ? K & string : never;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type FromObject<S extends ObjectSchema> = Simplify<
  { readonly [K in keyof S['properties'] & Required<S>]: FromSchema<S['properties'][K]> } & {
    readonly [K in Exclude<keyof S['properties'], Required<S>>]?: FromSchema<S['properties'][K]>;
  }
>;

type EachObject<U> = U extends ObjectSchema ? FromObject<U> : never;

/** The TypeScript type of the values a schema accepts. */
export type FromSchema<S> = S extends ConstSchema
  ? S['const']
  : S extends EnumSchema
    ? S['enum'][number]
    : S extends OneOfSchema
      ? EachObject<S['oneOf'][number]>
      : S extends ArraySchema
        ? readonly FromSchema<S['items']>[]
        : S extends ObjectSchema
          ? FromObject<S>
          : S extends StringSchema
            ? string
            : S extends IntegerSchema
              ? number
              : S extends BooleanSchema
                ? boolean
                : never;
