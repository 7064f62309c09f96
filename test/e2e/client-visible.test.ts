// What every client can show its model, through the official SDK client over real HTTP on a temp copy of
// edge-vault: an error's message and argument inside structuredContent (some clients hand their model
// only structuredContent), and input schemas that a strict JSON Schema validator takes without a warning
// (Gemini CLI compiles each with Ajv and warns on type arrays) — checked with Ajv itself.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
// eslint-disable-next-line import/no-extraneous-dependencies -- Ajv comes with the MCP SDK (its dependency); only this test uses it.
import Ajv from "ajv";
import { startTestServer, type TestServer, type ToolCallResult } from "../support/server";
import { EDGE_VAULT } from "../support/vaults";

let server: TestServer;

before(async () => {
  server = await startTestServer({ fixture: EDGE_VAULT, name: "edge" });
});
after(async () => {
  await server.stop();
});

interface WireError {
  code: string;
  message: string;
  state: string;
  retry: string;
  argument?: string;
  [detail: string]: unknown;
}

/** structuredContent.error, checked to tell what the text tells. */
function errorOf(result: ToolCallResult): WireError {
  assert.equal(result.isError, true, result.text);
  const error = result.structured.error as WireError;
  assert.equal(error.message, result.text, "structuredContent.error.message is the text content");
  assert.ok(!error.message.includes(server.vault.dir), "no host path");
  return error;
}

describe("errors in structuredContent", () => {
  test("a stale content_hash on note_edit says, in structuredContent, how to recover", async () => {
    const path = "wiki/rate-limiting.md";
    const read = await server.call("note_read", { path });
    const current = read.structured.content_hash as string;
    const stale = "0".repeat(32);
    const result = await server.call("note_edit", { path, old_string: "Drains at a fixed rate.", new_string: "Drains slowly.", content_hash: stale });
    const error = errorOf(result);
    assert.equal(error.code, "conflict");
    assert.equal(error.state, "not_applied");
    assert.equal(error.retry, "inspect_state");
    assert.equal(error.content_hash, current);
    assert.equal(error.argument, undefined, "a conflict is about the note, not an argument");
    assert.match(error.message, /changed since you read it/);
    assert.match(error.message, /Read it again with note_read/);
    assert.ok(error.message.includes(current) && error.message.includes(stale), "names both hashes");
    assert.ok(!error.message.includes("Drains"), "no note text");
  });

  test("note_search with limit 500 names the argument and the limit", async () => {
    const error = errorOf(await server.call("note_search", { query: "token", limit: 500 }));
    assert.equal(error.code, "invalid_argument");
    assert.equal(error.argument, "limit");
    assert.equal(error.retry, "correct_request");
    assert.match(error.message, /"limit" must be at most 50; got 500\./);
  });

  test("a list item of the wrong type is named by its index", async () => {
    const error = errorOf(await server.call("note_search", { query: "token", tags: ["hub", 7] }));
    assert.equal(error.argument, "tags[1]");
    assert.match(error.message, /"tags" must be a list of strings; got an item that is 7/);
  });

  test("a tool's own argument check names the argument too", async () => {
    const date = errorOf(await server.call("note_list", { modified_after: "someday" }));
    assert.equal(date.argument, "modified_after");
    const empty = errorOf(await server.call("note_edit", { path: "wiki/index.md", old_string: "", new_string: "x" }));
    assert.equal(empty.code, "invalid_argument");
    assert.equal(empty.argument, "old_string");
    assert.match(empty.message, /old_string is empty/);
  });

  test("an error about no argument names none", async () => {
    const missing = errorOf(await server.call("note_read", { path: "no/such-note.md" }));
    assert.equal(missing.code, "not_found");
    assert.equal(missing.argument, undefined);
    assert.match(missing.message, /does not exist/);
  });
});

type Schema = Record<string, unknown>;

/** Every place in a schema that holds a `type` array, `nullable` or `format`, by JSON pointer. */
function unportable(schema: unknown, at = "#"): string[] {
  if (Array.isArray(schema)) return schema.flatMap((item, index) => unportable(item, `${at}/${index}`));
  if (typeof schema !== "object" || schema === null) return [];
  const found: string[] = [];
  const node = schema as Schema;
  if (Array.isArray(node.type)) found.push(`${at}/type is an array`);
  if ("nullable" in node) found.push(`${at}/nullable`);
  if ("format" in node) found.push(`${at}/format`);
  for (const [key, value] of Object.entries(node)) {
    // Under `properties` the keys are argument names, whatever they are called.
    if (key === "properties" && typeof value === "object" && value !== null) {
      for (const [name, property] of Object.entries(value)) found.push(...unportable(property, `${at}/properties/${name}`));
    } else if (key !== "enum" && key !== "default") {
      found.push(...unportable(value, `${at}/${key}`));
    }
  }
  return found;
}

const complaints: string[] = [];
const logger = {
  log: () => undefined,
  warn: (...parts: unknown[]) => complaints.push(`warning: ${parts.map(String).join(" ")}`),
  error: (...parts: unknown[]) => complaints.push(`error: ${parts.map(String).join(" ")}`),
};
// One instance per mode: building one per schema costs seconds on a busy machine.
const validators = { default: new Ajv({ logger }), strict: new Ajv({ strict: true, logger }) };

/** What Ajv says of a schema: thrown errors in strict mode, and warnings with its default options. */
function ajvComplaints(schema: Schema): string[] {
  complaints.length = 0;
  for (const [mode, ajv] of Object.entries(validators)) {
    try {
      ajv.compile(schema);
    } catch (error) {
      complaints.push(`${mode}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return [...complaints];
}

describe("input schemas", () => {
  test("the checks below catch a type array", () => {
    const union: Schema = { type: "object", properties: { tags: { type: ["array", "string"], items: { type: "string" } } } };
    assert.deepEqual(unportable(union), ["#/properties/tags/type is an array"]);
    assert.ok(ajvComplaints(union).some((complaint) => /allowUnionTypes/.test(complaint)), "Ajv warns as Gemini CLI showed");
  });

  test("every tool's inputSchema has no type array anywhere and compiles in strict Ajv without a warning", async () => {
    const { tools } = await (await server.connect()).listTools();
    assert.ok(tools.length >= 30, `${tools.length} tools`);
    const problems = tools.flatMap((tool) => [...unportable(tool.inputSchema), ...ajvComplaints(tool.inputSchema as Schema)].map((problem) => `${tool.name}: ${problem}`));
    assert.deepEqual(problems, []);
    const search = tools.find((tool) => tool.name === "note_search")!;
    const tags = (search.inputSchema.properties as Record<string, Schema>).tags!;
    assert.deepEqual(tags.anyOf, [{ type: "array", items: { type: "string" } }, { type: "string" }], "lists are an array or a comma-separated string");
  });

  test("a list argument given either way works", async () => {
    const asArray = await server.call("note_search", { query: "index", tags: ["hub"] });
    const asString = await server.call("note_search", { query: "index", tags: "hub" });
    const paths = (result: ToolCallResult) => (result.structured.hits as Array<{ path: string }>).map((hit) => hit.path);
    assert.equal(asArray.isError, false, asArray.text);
    assert.equal(asString.isError, false, asString.text);
    assert.ok(paths(asArray).includes("wiki/index.md"), asArray.text);
    assert.deepEqual(paths(asString), paths(asArray));
  });
});
