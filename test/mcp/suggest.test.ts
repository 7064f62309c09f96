import { test } from "node:test";
import assert from "node:assert/strict";
import { closeMatches } from "../../src/mcp/suggest";

const TOOLS = ["note_read", "note_search", "note_outline", "vault_grep", "vault_list", "tag_list"];

test("typos and fragments find the intended tools, nearest first", () => {
  assert.deepEqual(closeMatches("note_raed", TOOLS), ["note_read"]);
  assert.deepEqual(closeMatches("search", TOOLS), ["note_search"]);
  assert.deepEqual(closeMatches("NOTE_READ", TOOLS), ["note_read"]);
  assert.deepEqual(closeMatches("vault_lst", TOOLS), ["vault_list"]);
});

test("nothing is suggested for a name that resembles no tool, and at most three otherwise", () => {
  assert.deepEqual(closeMatches("delete_everything", TOOLS), []);
  assert.deepEqual(closeMatches("", TOOLS), []);
  assert.equal(closeMatches("note", TOOLS).length, 3);
});
