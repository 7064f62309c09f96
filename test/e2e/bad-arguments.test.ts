// Arguments and names an attacker (or a confused agent) sends, through the official SDK client over real
// HTTP on a temp copy of edge-vault: prototype keys, out-of-range values, names a synced Windows machine
// cannot hold, SVGs that run script, frontmatter the alias limit must not lock.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type ToolCallResult } from "../support/server";
import { EDGE_VAULT } from "../support/vaults";

let server: TestServer;

before(async () => {
  server = await startTestServer({ fixture: EDGE_VAULT, name: "edge" });
});
after(async () => {
  await server.stop();
});

function codeOf(result: ToolCallResult): string {
  return (result.structured.error as { code: string } | undefined)?.code ?? "none";
}

describe("prototype keys", () => {
  test("__proto__, constructor and toString are unknown arguments", async () => {
    for (const key of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
      const result = await server.call("note_read", { path: "wiki/index.md", [key]: { path: "projects/alpha/plan.md" } });
      assert.equal(result.isError, true, key);
      assert.equal(codeOf(result), "invalid_argument", key);
      assert.match(result.text, new RegExp(`Unknown argument\\(s\\): ${key}\\.`), key);
    }
  });

  test("note_query matches only a note's own properties", async () => {
    for (const key of ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"]) {
      const result = await server.call("note_query", { where: { [key]: { exists: true } } });
      assert.equal(result.isError, false, result.text);
      assert.equal(result.structured.total, 0, key);
    }
    const status = await server.call("note_query", { where: { status: { exists: true } }, fields: ["status", "constructor", "__proto__"], sort: "toString" });
    assert.equal(status.structured.total, 2);
    for (const note of status.structured.notes as Array<{ properties: Record<string, unknown> }>) {
      assert.deepEqual(Object.keys(note.properties), ["status", "constructor", "__proto__"]);
      assert.equal(note.properties.constructor, null);
      assert.equal(Object.getOwnPropertyDescriptor(note.properties, "__proto__")?.value, null);
    }
  });

  test("note_search's properties filter reads own properties only", async () => {
    const result = await server.call("note_search", { properties: { constructor: null }, limit: 50 });
    assert.equal(result.isError, false, result.text);
    const all = await server.call("note_search", { limit: 50 });
    assert.equal(result.structured.total, all.structured.total, "no note has a constructor property, so each equals null");
    const none = await server.call("note_search", { properties: { toString: "x" } });
    assert.equal(none.structured.total, 0);
  });
});

describe("values out of range", () => {
  test("name the value and the limit", async () => {
    const over = await server.call("note_list", { limit: 5000 });
    assert.match(over.text, /Argument "limit" must be <= 1000; got 5000\./);
    const under = await server.call("note_search", { query: "x", limit: 0 });
    assert.match(under.text, /Argument "limit" must be >= 1; got 0\./);
  });
});
