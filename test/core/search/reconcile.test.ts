import { test } from "node:test";
import assert from "node:assert/strict";
import { planReconcile } from "../../../src/core/search/reconcile";

test("same mtime and size is unchanged; anything else is changed, added or removed; lists sorted", () => {
  const manifest = new Map([
    ["b.md", { mtime: 100, size: 10 }],
    ["a.md", { mtime: 100, size: 10 }],
    ["touched.md", { mtime: 100, size: 10 }],
    ["resized.md", { mtime: 100, size: 10 }],
    ["gone/z.md", { mtime: 1, size: 1 }],
    ["gone/y.md", { mtime: 1, size: 1 }],
  ]);
  const current = [
    { path: "touched.md", mtime: 101, size: 10 },
    { path: "resized.md", mtime: 100, size: 11 },
    { path: "b.md", mtime: 100, size: 10 },
    { path: "new/2.md", mtime: 5, size: 5 },
    { path: "a.md", mtime: 100, size: 10 },
    { path: "new/1.md", mtime: 5, size: 5 },
  ];
  assert.deepEqual(planReconcile(manifest, current), {
    unchanged: ["a.md", "b.md"],
    changed: ["resized.md", "touched.md"],
    added: ["new/1.md", "new/2.md"],
    removed: ["gone/y.md", "gone/z.md"],
  });
});

test("an empty manifest adds everything; an empty vault removes everything", () => {
  const files = [{ path: "x.md", mtime: 1, size: 2 }];
  assert.deepEqual(planReconcile(new Map(), files), { unchanged: [], changed: [], added: ["x.md"], removed: [] });
  assert.deepEqual(planReconcile(new Map([["x.md", { mtime: 1, size: 2 }]]), []), {
    unchanged: [],
    changed: [],
    added: [],
    removed: ["x.md"],
  });
});

test("a path listed twice is planned once", () => {
  const plan = planReconcile(new Map([["x.md", { mtime: 1, size: 2 }]]), [
    { path: "x.md", mtime: 1, size: 2 },
    { path: "x.md", mtime: 3, size: 2 },
  ]);
  assert.deepEqual(plan, { unchanged: [], changed: ["x.md"], added: [], removed: [] });
});
