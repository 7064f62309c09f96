import { test } from "node:test";
import assert from "node:assert/strict";
import { isTrashCopyOf, parseTrashName, trashPath, trashStamp } from "../../../src/core/write/trash";

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

test("a path too long to spell out keeps its hash and its end, within 255 bytes, and is still found as its copy", () => {
  const ms = Date.UTC(2026, 0, 5, 9, 30, 7, 42);
  const long = `wiki/${"deep/".repeat(10)}${"n".repeat(247)}.md`;
  for (const attempt of [0, 12]) {
    const name = trashPath(long, ms, attempt).split("/").pop()!;
    assert.ok(Buffer.byteLength(name) <= 255, `${Buffer.byteLength(name)} bytes`);
    assert.match(name, new RegExp(`^20260105-093007-042${attempt > 0 ? "~12" : ""}=[0-9a-f]{16}-n+\\.md$`));
    const entry = parseTrashName(name)!;
    assert.equal(entry.when, ms);
    assert.equal(entry.originalPath, null);
    assert.ok(isTrashCopyOf(entry, long));
    assert.ok(!isTrashCopyOf(entry, long.replace("wiki/", "wika/")));
  }
  const multibyte = `${"ノ".repeat(84)}.md`;
  const name = trashPath(multibyte, ms).split("/").pop()!;
  assert.ok(Buffer.byteLength(name) <= 255);
  assert.ok(name.endsWith("ノ.md") && !name.includes("\ufffd"));
  assert.ok(isTrashCopyOf(parseTrashName(name)!, multibyte));
  const short = parseTrashName(trashPath("wiki/x.md", ms).split("/").pop()!)!;
  assert.ok(isTrashCopyOf(short, "wiki/x.md") && !isTrashCopyOf(short, "wiki/y.md"));
});
