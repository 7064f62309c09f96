import { test } from "node:test";
import assert from "node:assert/strict";
import { parseTrashName, trashPath, trashStamp } from "../../../src/core/write/trash";

test("trash names carry a UTC millisecond stamp and the path with / as __", () => {
  const ms = Date.UTC(2026, 0, 5, 9, 30, 7, 42);
  assert.equal(trashStamp(ms), "20260105-093007-042");
  assert.equal(trashPath("wiki/a b/x.md", ms), ".trash/secondbrain/20260105-093007-042-wiki__a b__x.md");
  assert.equal(trashPath("x.md", ms, 2), ".trash/secondbrain/20260105-093007-042~2-x.md");
});

test("names parse back to path and time; foreign names are ignored", () => {
  const ms = Date.UTC(2026, 11, 31, 23, 59, 59, 999);
  for (const attempt of [0, 3]) {
    const name = trashPath("journal/2026/2026-12-31.md", ms, attempt).split("/").pop()!;
    assert.deepEqual(parseTrashName(name), { trashPath: `.trash/secondbrain/${name}`, originalPath: "journal/2026/2026-12-31.md", when: ms });
  }
  assert.equal(parseTrashName("old.md"), null);
});
