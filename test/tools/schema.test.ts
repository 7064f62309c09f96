import { test } from "node:test";
import assert from "node:assert/strict";
import { isToolError, type ToolError } from "../../src/core/errors";
import { boolean, integer, object, optional, record, string, stringList, withDefault } from "../../src/tools/schema";

const schema = object({
  path: string({ description: "A path.", maxLength: 200 }),
  title: optional(string({ description: "A title.", minLength: 3 })),
  order: withDefault(string({ description: "Order.", enum: ["asc", "desc"] }), "asc"),
  limit: withDefault(integer({ description: "Limit.", minimum: 1, maximum: 50 }), 10),
  dry_run: withDefault(boolean({ description: "Dry run." }), false),
  tags: optional(stringList({ description: "Tags." })),
  where: optional(record({ description: "Conditions." })),
});

function refusalError(args: unknown): ToolError {
  try {
    schema.parse(args);
  } catch (error) {
    if (!isToolError(error)) throw error;
    assert.equal(error.code, "invalid_argument");
    return error;
  }
  assert.fail(`expected ${JSON.stringify(args)} to be refused`);
}

function refusal(args: unknown): string {
  return refusalError(args).message;
}

function argumentOf(args: unknown): unknown {
  return refusalError(args).details?.argument;
}

test("prototype keys are unknown arguments, as JSON.parse hands them over", () => {
  for (const key of ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "__defineGetter__", "isPrototypeOf"]) {
    const args: unknown = JSON.parse(`{"path": "a.md", ${JSON.stringify(key)}: {"path": "other.md"}}`);
    assert.match(refusal(args), new RegExp(`^Unknown argument\\(s\\): ${key.replace(/_/g, "_")}\\. Accepted: path, title`), key);
  }
});

test("an argument is read from the object itself, never from its prototype", () => {
  const inherited = Object.create({ path: "inherited.md", limit: 3 }) as Record<string, unknown>;
  assert.match(refusal(inherited), /Missing required argument "path"/);
  inherited.path = "own.md";
  assert.equal(schema.parse(inherited).limit, 10);
});

test("unknown argument names over 60 characters are given by their length, and at most ten are named", () => {
  const long = "k".repeat(5000);
  const message = refusal({ path: "a.md", [long]: 1 });
  assert.match(message, /Unknown argument\(s\): \(a name of 5000 characters\)\. Accepted:/);
  assert.ok(!message.includes("kkkk"));
  const many = Object.fromEntries(Array.from({ length: 25 }, (_, index) => [`extra${index}`, 1]));
  assert.match(refusal({ path: "a.md", ...many }), /extra0, extra1, .*extra9 and 15 more\. Accepted/);
});

test("out-of-range and wrong values name the value and the limit", () => {
  assert.match(refusal({ path: "a.md", limit: 51 }), /^Argument "limit" must be at most 50; got 51\./);
  assert.match(refusal({ path: "a.md", limit: "51" }), /^Argument "limit" must be at most 50; got 51\./);
  assert.match(refusal({ path: "a.md", limit: 0 }), /^Argument "limit" must be at least 1; got 0\./);
  assert.match(refusal({ path: "a.md", limit: -7 }), /must be at least 1; got -7\./);
  assert.match(refusal({ path: "a.md", limit: 2.5 }), /must be an integer; got 2\.5\./);
  assert.match(refusal({ path: "a.md", limit: "many" }), /must be an integer; got "many"\./);
  assert.match(refusal({ path: "a.md", limit: true }), /must be an integer; got true\./);
  assert.match(refusal({ path: "a.md", limit: [1] }), /must be an integer; got a list\./);
  assert.match(refusal({ path: "a.md", dry_run: "yes" }), /^Argument "dry_run" must be true or false; got "yes"\./);
  assert.match(refusal({ path: "a.md", order: "sideways" }), /must be one of asc, desc; got "sideways"\./);
  assert.match(refusal({ path: "a.md", where: [] }), /^Argument "where" must be an object; got a list\./);
  assert.match(refusal({ path: "a.md", tags: ["a", 3] }), /^Argument "tags" must be a list of strings; got an item that is 3\./);
});

test("length errors give the length, never the string", () => {
  const message = refusal({ path: "x".repeat(612) });
  assert.match(message, /^Argument "path" must be at most 200 characters; got 612 characters\./);
  assert.ok(!message.includes("xxx"));
  assert.match(refusal({ path: "a.md", title: "ab" }), /^Argument "title" must be at least 3 characters; got 2 characters\./);
  const long = refusal({ path: "a.md", limit: "y".repeat(100) });
  assert.match(long, /must be an integer; got a string of 100 characters\./);
  assert.ok(!long.includes("yyy"));
});

test("each refusal names its argument as a JSON path; a list item by its index", () => {
  assert.equal(argumentOf({ path: "a.md", limit: 51 }), "limit");
  assert.equal(argumentOf({ path: "x".repeat(300) }), "path");
  assert.equal(argumentOf({ path: "a.md", title: "ab" }), "title");
  assert.equal(argumentOf({ path: "a.md", order: "sideways" }), "order");
  assert.equal(argumentOf({ path: "a.md", dry_run: "yes" }), "dry_run");
  assert.equal(argumentOf({ path: "a.md", where: [] }), "where");
  assert.equal(argumentOf({ path: "a.md", tags: 7 }), "tags");
  assert.equal(argumentOf({ path: "a.md", tags: ["a", "b", 3] }), "tags[2]");
  assert.equal(argumentOf({}), "path", "a missing argument");
  assert.equal(argumentOf({ path: "a.md", colour: "red" }), "colour", "one unknown argument");
  assert.equal(argumentOf({ path: "a.md", colour: "red", size: 1 }), undefined, "several are named in the message only");
  assert.equal(argumentOf({ path: "a.md", ["k".repeat(61)]: 1 }), undefined, "a long name is not echoed");
  assert.equal(argumentOf([]), undefined);
});

test("a list is advertised as anyOf an array of strings or a string, and parses both", () => {
  const tags = (schema.jsonSchema.properties as Record<string, Record<string, unknown>>).tags!;
  assert.deepEqual(tags, { anyOf: [{ type: "array", items: { type: "string" } }, { type: "string" }], description: "Tags." });
  assert.deepEqual(schema.parse({ path: "a.md", tags: " a, b ,," }).tags, ["a", "b"]);
  assert.deepEqual(schema.parse({ path: "a.md", tags: [" a", "b "] }).tags, ["a", "b"]);
});
