import { test } from "node:test";
import assert from "node:assert/strict";
import { PostingsBuilder, checkChunk, type DocVector, type PostingsChunk } from "../../../src/core/search/postings";
import { SnapshotError } from "../../../src/core/search/snapshot";

function vector(...fields: Array<Record<string, number>>): DocVector {
  const terms = fields.map((field) => new Map(Object.entries(field)));
  return { lengths: terms.map((field) => field.size), terms };
}

/** doc → field → term → tf, read back from chunks of a shard of `count` notes. */
function readBack(chunks: readonly PostingsChunk[], count: number): Map<number, Map<number, Map<string, number>>> {
  const docs = new Map<number, Map<number, Map<string, number>>>();
  for (const chunk of chunks) {
    chunk.terms.forEach((term, position) => {
      const list = chunk.lists[position]!;
      for (let at = 0; at < list.length; ) {
        const field = list[at]!;
        const postings = list[at + 1]!;
        at += 2;
        for (let i = 0; i < postings; i++, at++) {
          const doc = list[at]! % count;
          const frequency = Math.floor(list[at]! / count) + 1;
          let fields = docs.get(doc);
          if (!fields) docs.set(doc, (fields = new Map<number, Map<string, number>>()));
          let terms = fields.get(field);
          if (!terms) fields.set(field, (terms = new Map<string, number>()));
          terms.set(term, frequency);
        }
      }
    });
  }
  return docs;
}

test("chunks hold every posting once, terms sorted, and respect the size limit", () => {
  const builder = new PostingsBuilder(2);
  builder.addVector(0, vector({ bucket: 2, token: 1 }, { rate: 1 }));
  builder.addVector(1, vector({ bucket: 1 }, { bucket: 3, zebra: 1 }));
  const whole = builder.chunks(2);
  assert.equal(whole.length, 1);
  assert.deepEqual(whole[0]!.terms, ["bucket", "rate", "token", "zebra"]);
  // bucket: title (field 0) doc 0 tf 2 → 0 + 2×1, doc 1 tf 1 → 1; body doc 1 tf 3 → 1 + 2×2.
  assert.deepEqual(whole[0]!.lists[0], [0, 2, 2, 1, 1, 1, 5]);
  const small = builder.chunks(2, 4);
  assert.ok(small.length > 1);
  assert.ok(small.every((chunk) => chunk.lists.reduce((sum, list) => sum + list.length, 0) <= 7));
  assert.deepEqual(readBack(small, 2), readBack(whole, 2));
  assert.deepEqual(small.flatMap((chunk) => chunk.terms), whole[0]!.terms);
});

test("renumbering copies kept notes under their new numbers and drops the others", () => {
  const old = new PostingsBuilder(2);
  old.addVector(0, vector({ a: 1 }, {}));
  old.addVector(1, vector({ a: 2, b: 1 }, { c: 1 }));
  old.addVector(2, vector({ b: 5 }, {}));
  const next = new PostingsBuilder(2);
  for (const chunk of old.chunks(3, 4)) next.addRenumbered(chunk, 3, Int32Array.from([-1, 0, 2]));
  next.addVector(1, vector({ new: 1 }, {}));
  const docs = readBack(next.chunks(3), 3);
  assert.deepEqual([...docs.keys()].sort(), [0, 1, 2]);
  assert.deepEqual(Object.fromEntries(docs.get(0)!.get(0)!), { a: 2, b: 1 });
  assert.deepEqual(Object.fromEntries(docs.get(0)!.get(1)!), { c: 1 });
  assert.deepEqual(Object.fromEntries(docs.get(2)!.get(0)!), { b: 5 });
  assert.deepEqual(Object.fromEntries(docs.get(1)!.get(0)!), { new: 1 });
});

test("checkChunk accepts what the builder writes and refuses anything malformed", () => {
  const builder = new PostingsBuilder(2);
  builder.addVector(0, vector({ a: 1 }, { a: 2 }));
  const [chunk] = builder.chunks(1);
  assert.deepEqual(checkChunk(JSON.parse(JSON.stringify([chunk!.terms, chunk!.lists])), 1, 2), chunk);
  const bad: unknown[] = [
    {},
    [["a"]],
    [["a"], []],
    [["a"], [[]]],
    [["a"], [[2, 1, 0]]],
    [["a"], [[0, 1, -1]]],
    [["a"], [[0, 2, 0]]],
    [["a"], [[0, 0]]],
    [["a"], [[0, 1, 1.5]]],
    [["a"], [[0, 1, "0"]]],
    [[7], [[0, 1, 0]]],
  ];
  for (const value of bad) {
    assert.throws(
      () => checkChunk(value, 1, 2),
      (error: unknown) => error instanceof SnapshotError && error.reason === "format",
      JSON.stringify(value),
    );
  }
});
