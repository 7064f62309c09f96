// What every client can show its model, through the official SDK client over real HTTP on a temp copy of
// edge-vault: an error's message and argument inside structuredContent (some clients hand their model
// only structuredContent).
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
