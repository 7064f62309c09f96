import { test } from "node:test";
import assert from "node:assert/strict";
import type MiniSearch from "minisearch";
import { MiniSearchWriter } from "../../../src/core/search/minisearch-access";

test("an object that is not a MiniSearch 7 instance is refused", () => {
  assert.throws(() => new MiniSearchWriter({} as MiniSearch<unknown>), /MiniSearch/);
});
