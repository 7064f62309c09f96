import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { PostingList } from "../../../src/core/search/posting-list";

type Operation =
  | { kind: "set"; id: number; frequency: number }
  | { kind: "append"; id: number; frequency: number }
  | { kind: "delete"; id: number }
  | { kind: "deleteWhileIterating"; every: number }
  | { kind: "appendPairs"; pairs: Array<[number, number]> };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant("set" as const), id: fc.integer({ min: 0, max: 40 }), frequency: fc.integer({ min: 1, max: 9 }) }),
  fc.record({ kind: fc.constant("append" as const), id: fc.integer({ min: 0, max: 40 }), frequency: fc.integer({ min: 1, max: 9 }) }),
  fc.record({ kind: fc.constant("delete" as const), id: fc.integer({ min: 0, max: 40 }) }),
  fc.record({ kind: fc.constant("deleteWhileIterating" as const), every: fc.integer({ min: 1, max: 4 }) }),
  // Any ids, in any order: out-of-order runs must land one by one, ascending ones in bulk.
  fc.record({
    kind: fc.constant("appendPairs" as const),
    pairs: fc.array(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 9 })), { maxLength: 20 }),
  }),
);

/** What MiniSearch observes of a Map<number, number>, in the order it would see it. */
function observe(postings: Map<number, number> | PostingList): unknown {
  const keys = [...postings.keys()];
  return { size: postings.size, keys: [...keys].sort((a, b) => a - b), entries: keys.map((key) => [key, postings.get(key)]).sort((a, b) => (a[0] as number) - (b[0] as number)) };
}

test("a PostingList answers every call MiniSearch makes exactly as a Map would, short or long", () => {
  fc.assert(
    fc.property(fc.array(operation, { maxLength: 120 }), (operations) => {
      const map = new Map<number, number>();
      const list = new PostingList();
      for (const op of operations) {
        if (op.kind === "set" || op.kind === "append") {
          map.set(op.id, op.frequency);
          if (op.kind === "set") list.set(op.id, op.frequency);
          else list.append(op.id, op.frequency);
        } else if (op.kind === "appendPairs") {
          for (const [id, frequency] of op.pairs) map.set(id, frequency);
          list.appendPairs(Int32Array.from(op.pairs.flat()), op.pairs.length);
        } else if (op.kind === "delete") {
          assert.equal(list.delete(op.id), map.delete(op.id));
        } else {
          // MiniSearch's search and vacuum delete entries of the list they are iterating over.
          let position = 0;
          for (const key of list.keys()) if (position++ % op.every === 0) list.delete(key);
          position = 0;
          for (const key of [...map.keys()].sort((a, b) => a - b)) if (position++ % op.every === 0) map.delete(key);
        }
        for (let id = 0; id <= 40; id++) {
          assert.equal(list.get(id), map.get(id));
          assert.equal(list.has(id), map.has(id));
        }
      }
      assert.deepEqual(observe(list), observe(map));
      assert.deepEqual(Object.fromEntries(list), Object.fromEntries(map), "as MiniSearch's toJSON reads it");
    }),
    { numRuns: 300 },
  );
});

test("iteration yields ids in ascending order and get follows it cheaply", () => {
  const list = new PostingList();
  for (const id of [5, 1, 9, 3]) list.set(id, id * 10);
  assert.deepEqual([...list.keys()], [1, 3, 5, 9]);
  assert.deepEqual([...list], [[1, 10], [3, 30], [5, 50], [9, 90]]);
  for (const id of list.keys()) assert.equal(list.get(id), id * 10);
  assert.equal(list.get(4), undefined);
});

test("a long list appended in order holds every posting", () => {
  const list = new PostingList();
  for (let id = 0; id < 10_000; id += 3) list.append(id, (id % 7) + 1);
  assert.equal(list.size, 3334);
  assert.equal(list.get(2997), (2997 % 7) + 1);
  assert.equal(list.get(2998), undefined);
  assert.deepEqual([...list.keys()].slice(0, 3), [0, 3, 6]);
  list.set(1, 5);
  assert.deepEqual([...list.keys()].slice(0, 3), [0, 1, 3], "an id inserted in the middle keeps the order");
});

test("fromPairs takes over well-formed pairs and rebuilds any others in order", () => {
  const pairs = Int32Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? i * 3 : 2));
  const list = PostingList.fromPairs(pairs);
  assert.equal(list.size, 50);
  assert.deepEqual([...list.keys()].slice(0, 3), [0, 6, 12]);
  list.append(1000, 4);
  list.set(7, 1);
  assert.equal(list.size, 52);
  assert.equal(list.get(7), 1);
  assert.deepEqual(observe(PostingList.fromPairs(Int32Array.from([5, 1, 2, 3]))), observe(new Map([[2, 3], [5, 1]])), "ids out of order");
  assert.deepEqual(observe(PostingList.fromPairs(Int32Array.from([2, 0, 5, 1]))), observe(new Map([[5, 1]])), "a zero frequency is no posting");
  assert.deepEqual(observe(PostingList.fromPairs(Int32Array.from([1, 1]))), observe(new Map([[1, 1]])), "a short list");
});
