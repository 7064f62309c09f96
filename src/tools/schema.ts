// A small schema vocabulary that yields both the JSON Schema sent in tools/list and the parser that
// checks and normalises arguments (SPEC §10: trimmed strings, lists as arrays or comma-separated
// strings, additionalProperties false). One definition, so the advertised schema cannot drift from
// what the handler accepts. Every keyword the schema advertises is enforced here too: some clients
// drop minimum, maximum, minLength, maxLength and default before their model sees the schema, and
// some validate arguments with strict Ajv, so a schema holds no type arrays (SPEC §4).
import { ToolError } from "../core/errors";

export type JsonSchema = Record<string, unknown>;

export interface Field<T> {
  readonly schema: JsonSchema;
  readonly optional: boolean;
  parse(value: unknown, name: string): T;
}

interface Common {
  description: string;
}

/** Longer strings are described by their length: an error must not echo a whole note back. */
const MAX_SHOWN_STRING = 60;
const MAX_NAMED_KEYS = 10;

function characters(count: number): string {
  return `${count} character${count === 1 ? "" : "s"}`;
}

/** What the caller sent, short enough for an error message: the value itself for scalars. */
function shown(value: unknown): string {
  if (typeof value === "string") return value.length > MAX_SHOWN_STRING ? `a string of ${characters(value.length)}` : JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : typeof value;
}

/** `name` is the argument's JSON path (`tags[2]`); clients that show only structuredContent get it as `argument`. */
function fail(name: string, expected: string, got: string, at: string = name): never {
  throw new ToolError("invalid_argument", `Argument "${name}" must be ${expected}; got ${got}. Fix it and call again.`, { details: { argument: at } });
}

function make<T>(schema: JsonSchema, parse: (value: unknown, name: string) => T): Field<T> {
  return { schema, optional: false, parse };
}

export function optional<T>(field: Field<T>): Field<T | undefined> {
  return {
    schema: field.schema,
    optional: true,
    parse: (value, name) => (value === undefined || value === null ? undefined : field.parse(value, name)),
  };
}

export function withDefault<T>(field: Field<T>, fallback: T): Field<T> {
  return {
    schema: { ...field.schema, default: fallback },
    optional: true,
    parse: (value, name) => (value === undefined || value === null ? fallback : field.parse(value, name)),
  };
}

export interface StringOptions extends Common {
  /** Content-like strings keep their whitespace (SPEC §10). */
  raw?: boolean;
  minLength?: number;
  maxLength?: number;
  enum?: readonly string[];
}

export function string(options: StringOptions): Field<string> {
  const schema: JsonSchema = { type: "string", description: options.description };
  if (options.enum) schema.enum = [...options.enum];
  if (options.minLength !== undefined) schema.minLength = options.minLength;
  if (options.maxLength !== undefined) schema.maxLength = options.maxLength;
  return make(schema, (value, name) => {
    if (typeof value !== "string") fail(name, "a string", shown(value));
    const text = options.raw ? value : value.trim();
    if (options.minLength !== undefined && text.length < options.minLength) {
      fail(name, `at least ${characters(options.minLength)}`, characters(text.length));
    }
    if (options.maxLength !== undefined && text.length > options.maxLength) {
      fail(name, `at most ${characters(options.maxLength)}`, characters(text.length));
    }
    if (options.enum && !options.enum.includes(text)) fail(name, `one of ${options.enum.join(", ")}`, shown(value));
    return text;
  });
}

export interface IntegerOptions extends Common {
  minimum?: number;
  maximum?: number;
}

export function integer(options: IntegerOptions): Field<number> {
  const schema: JsonSchema = { type: "integer", description: options.description };
  if (options.minimum !== undefined) schema.minimum = options.minimum;
  if (options.maximum !== undefined) schema.maximum = options.maximum;
  return make(schema, (value, name) => {
    const number = typeof value === "string" && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value;
    if (typeof number !== "number" || !Number.isInteger(number)) fail(name, "an integer", shown(value));
    if (options.minimum !== undefined && number < options.minimum) fail(name, `at least ${options.minimum}`, String(number));
    if (options.maximum !== undefined && number > options.maximum) fail(name, `at most ${options.maximum}`, String(number));
    return number;
  });
}

export function boolean(options: Common): Field<boolean> {
  return make({ type: "boolean", description: options.description }, (value, name) => {
    if (value === "true") return true;
    if (value === "false") return false;
    if (typeof value !== "boolean") fail(name, "true or false", shown(value));
    return value;
  });
}

/** An array of strings, or one comma-separated string (SPEC §10). */
export function stringList(options: Common): Field<string[]> {
  const schema: JsonSchema = { anyOf: [{ type: "array", items: { type: "string" } }, { type: "string" }], description: options.description };
  return make(schema, (value, name) => {
    const items = typeof value === "string" ? value.split(",") : value;
    if (!Array.isArray(items)) fail(name, "a list of strings or a comma-separated string", shown(value));
    return items
      .map((item, index) => {
        if (typeof item !== "string") fail(name, "a list of strings", `an item that is ${shown(item)}`, `${name}[${index}]`);
        return item.trim();
      })
      .filter((item) => item.length > 0);
  });
}

/** A flat map of property names to scalar values (frontmatter filters). */
export function record(options: Common): Field<Record<string, unknown>> {
  return make({ type: "object", additionalProperties: true, description: options.description }, (value, name) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) fail(name, "an object", shown(value));
    return value as Record<string, unknown>;
  });
}

export type Shape = Record<string, Field<unknown>>;
export type Parsed<S extends Shape> = { [K in keyof S]: S[K] extends Field<infer T> ? T : never };

export interface ObjectSchema<S extends Shape> {
  readonly jsonSchema: JsonSchema;
  parse(args: unknown): Parsed<S>;
}

export function object<S extends Shape>(shape: S): ObjectSchema<S> {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, field] of Object.entries(shape)) {
    properties[key] = field.schema;
    if (!field.optional) required.push(key);
  }
  const jsonSchema: JsonSchema = { type: "object", properties, additionalProperties: false };
  if (required.length > 0) jsonSchema.required = required;
  return {
    jsonSchema,
    parse(args: unknown): Parsed<S> {
      const input = args ?? {};
      if (typeof input !== "object" || Array.isArray(input)) {
        throw new ToolError("invalid_argument", "Arguments must be a JSON object.");
      }
      const given = input as Record<string, unknown>;
      // Own keys only: `__proto__`, `constructor` or `toString` are found `in` every object.
      const unknownKeys = Object.keys(given).filter((key) => !Object.hasOwn(shape, key));
      if (unknownKeys.length > 0) {
        const named = unknownKeys.slice(0, MAX_NAMED_KEYS).map((key) => (key.length > MAX_SHOWN_STRING ? `(a name of ${characters(key.length)})` : key));
        const more = unknownKeys.length > MAX_NAMED_KEYS ? ` and ${unknownKeys.length - MAX_NAMED_KEYS} more` : "";
        const only = unknownKeys.length === 1 && unknownKeys[0]!.length <= MAX_SHOWN_STRING ? unknownKeys[0] : undefined;
        throw new ToolError(
          "invalid_argument",
          `Unknown argument(s): ${named.join(", ")}${more}. Accepted: ${Object.keys(shape).join(", ") || "none"}.`,
          only === undefined ? {} : { details: { argument: only } },
        );
      }
      const out: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(shape)) {
        const value = Object.hasOwn(given, key) ? given[key] : undefined;
        if ((value === undefined || value === null) && !field.optional) {
          throw new ToolError("invalid_argument", `Missing required argument "${key}": ${typeof field.schema.description === "string" ? field.schema.description : ""}`, {
            details: { argument: key },
          });
        }
        out[key] = field.parse(value, key);
      }
      return out as Parsed<S>;
    },
  };
}
