import { test } from "node:test";
import assert from "node:assert/strict";
import { PostingsBuilder, decodeChunk, encodeChunk, readChunk, type DocVector, type PostingsChunk } from "../../../src/core/search/postings";
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

/** A chunk section written by hand: the terms' JSON (or raw bytes) and the varint stream as bytes. */
function rawChunk(terms: unknown, stream: readonly number[], termBytes?: Uint8Array): Uint8Array {
  const head = termBytes ?? new TextEncoder().encode(JSON.stringify(terms));
  const bytes = new Uint8Array(4 + head.length + stream.length);
  new DataView(bytes.buffer).setUint32(0, head.length, true);
  bytes.set(head, 4);
  bytes.set(stream, 4 + head.length);
  return bytes;
}

test("an encoded chunk decodes to the chunk the builder wrote, large numbers included", () => {
  const builder = new PostingsBuilder(3);
  builder.addVector(0, vector({ a: 1 }, { a: 2 }, {}));
  builder.addVector(1, vector({ zeta: 300 }, {}, { "東京": 1, a: 70_000 }));
  builder.addVector(2, vector({ a: 1 }, {}, { a: 1 }));
  for (const chunk of builder.chunks(3, 4)) {
    const bytes = encodeChunk(chunk);
    assert.deepEqual(decodeChunk(bytes, 3, 3), chunk);
    const runs: Array<[string, number, number[]]> = [];
    readChunk(bytes, 3, 3, (term, field, pairs, count) => runs.push([term, field, [...pairs.subarray(0, 2 * count)]]));
    assert.ok(runs.length > 0);
  }
  const [whole] = builder.chunks(3);
  const runs: Array<[string, number, number[]]> = [];
  readChunk(encodeChunk(whole!), 3, 3, (term, field, pairs, count) => runs.push([term, field, [...pairs.subarray(0, 2 * count)]]));
  assert.deepEqual(runs, [
    ["a", 0, [0, 1, 2, 1]],
    ["a", 1, [0, 2]],
    ["a", 2, [1, 70_000, 2, 1]],
    ["zeta", 0, [1, 300]],
    ["東京", 2, [1, 1]],
  ]);
});

test("readChunk refuses anything encodeChunk would not write, with a format SnapshotError", () => {
  const good = rawChunk(["a"], [1, 0, 1, 0]);
  assert.deepEqual(decodeChunk(good, 1, 2), { terms: ["a"], lists: [[0, 1, 0]] });
  const bad: Array<[string, Uint8Array]> = [
    ["shorter than its length field", new Uint8Array([1, 0])],
    ["terms cut short", good.subarray(0, 6)],
    ["terms not JSON", rawChunk(null, [1, 0, 1, 0], new TextEncoder().encode("[\"a"))],
    ["terms not UTF-8", rawChunk(null, [1, 0, 1, 0], new Uint8Array([0x5b, 0x22, 0xff, 0x22, 0x5d]))],
    ["terms not an array", rawChunk({ a: 1 }, [1, 0, 1, 0])],
    ["a term not a string", rawChunk([7], [1, 0, 1, 0])],
    ["no fields", rawChunk(["a"], [0])],
    ["more fields than the index has", rawChunk(["a"], [3, 0, 1, 0, 1, 1, 0, 0, 1, 0])],
    ["field out of range", rawChunk(["a"], [1, 2, 1, 0])],
    ["empty run", rawChunk(["a"], [1, 0, 0])],
    ["ends inside a run", rawChunk(["a"], [1, 0, 2, 0])],
    ["ends inside a number", rawChunk(["a"], [1, 0, 1, 0x80])],
    ["oversized number", rawChunk(["a"], [1, 0, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])],
    ["bytes after the last list", rawChunk(["a"], [1, 0, 1, 0, 0])],
    ["a term without its list", rawChunk(["a", "b"], [1, 0, 1, 0])],
  ];
  for (const [what, bytes] of bad) {
    assert.throws(
      () => readChunk(bytes, 1, 2, () => undefined),
      (error: unknown) => error instanceof SnapshotError && error.reason === "format",
      what,
    );
  }
});
