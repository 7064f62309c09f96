import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { PostingArena, PostingList } from "../../../src/core/search/posting-list";

type Operation =
  | { kind: "set"; id: number; frequency: number }
  | { kind: "append"; id: number; frequency: number }
  | { kind: "delete"; id: number }
  | { kind: "deleteWhileIterating"; every: number }
  | { kind: "retain"; alive: number[] };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant("set" as const), id: fc.integer({ min: 0, max: 40 }), frequency: fc.integer({ min: 1, max: 9 }) }),
  fc.record({ kind: fc.constant("append" as const), id: fc.integer({ min: 0, max: 40 }), frequency: fc.integer({ min: 1, max: 9 }) }),
  fc.record({ kind: fc.constant("delete" as const), id: fc.integer({ min: 0, max: 40 }) }),
  fc.record({ kind: fc.constant("deleteWhileIterating" as const), every: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant("retain" as const), alive: fc.array(fc.integer({ min: 0, max: 45 }), { maxLength: 30 }) }),
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
        } else if (op.kind === "retain") {
          // Ids up to 45 against a table of 42: ids past its end count as removed too.
          const alive = new Uint8Array(42);
          for (const id of op.alive) if (id < alive.length) alive[id] = 1;
          let dropped = 0;
          for (const id of [...map.keys()]) {
            if (alive[id] !== 1) {
              map.delete(id);
              dropped += 1;
            }
          }
          assert.equal(list.retain(alive), dropped);
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
    { numRuns: 400 },
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

test("postings are one byte each for a frequent word of low frequency, and frequencies of any size survive", () => {
  const list = new PostingList();
  for (let id = 0; id < 1000; id++) list.append(id, (id % 3) + 1);
  const { start, end, count, last } = list.encoded();
  assert.equal(end - start, 1000);
  assert.equal(count, 1000);
  assert.equal(last, 999);
  const large = new PostingList();
  for (const [id, frequency] of [[0, 4], [7, 1_000_000], [2 ** 28, 3], [2 ** 28 + 200, 2 ** 31 - 1]] as const) large.append(id, frequency);
  assert.deepEqual([...large], [[0, 4], [7, 1_000_000], [2 ** 28, 3], [2 ** 28 + 200, 2 ** 31 - 1]]);
});

test("a view over stored bytes answers as the list it was taken from, and copies itself before a change", () => {
  fc.assert(
    fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 5000 }), { maxLength: 60 }), fc.integer({ min: 1, max: 300 }), (ids, frequency) => {
      const original = new PostingList();
      for (const id of [...ids].sort((a, b) => a - b)) original.append(id, ((id * frequency) % 300) + 1);
      const encoded = original.encoded();
      // Stored among other bytes, as in a snapshot.
      const stored = new Uint8Array(encoded.end - encoded.start + 6).fill(0xff);
      stored.set(encoded.bytes.subarray(encoded.start, encoded.end), 3);
      const checked = PostingList.check(stored, 3, stored.length - 3, 5001);
      assert.deepEqual(checked, { count: encoded.count, last: encoded.last });
      const view = PostingList.view(stored, 3, stored.length - 3, checked.count, checked.last);
      assert.deepEqual(observe(view), observe(original));
      const before = stored.slice();
      view.append(6000, 2);
      view.delete(ids[0] ?? 6000);
      assert.deepEqual(stored, before, "the stored bytes are never written");
    }),
  );
});

test("check refuses lists a faulty writer could leave: cut short, ids out of range or not ascending, padded frequencies", () => {
  const list = new PostingList();
  list.append(3, 1);
  list.append(9, 7);
  const { bytes, start, end } = list.encoded();
  const good = bytes.slice(start, end);
  assert.deepEqual(PostingList.check(good, 0, good.length, 10), { count: 2, last: 9 });
  assert.equal(PostingList.check(good, 0, good.length, 9), null, "an id past the document count");
  assert.equal(PostingList.check(good, 0, good.length - 1, 10), null, "cut inside a posting");
  assert.equal(PostingList.check(Uint8Array.of(0x81), 0, 1, 10), null, "a varint that never ends");
  assert.equal(PostingList.check(Uint8Array.of(0x01), 0, 1, 10), null, "a gap of zero");
  assert.equal(PostingList.check(Uint8Array.of(0x04, 0x02), 0, 2, 10), null, "a frequency under 4 written long");
  assert.deepEqual(PostingList.check(new Uint8Array(0), 0, 0, 10), { count: 0, last: -1 });
});

test("lists sharing an arena each answer as a Map would, while regions they leave are handed to the others", () => {
  const listOperation = fc.record({ list: fc.integer({ min: 0, max: 5 }), op: operation });
  fc.assert(
    fc.property(fc.array(listOperation, { maxLength: 300 }), fc.boolean(), (operations, fromViews) => {
      const arena = new PostingArena();
      const maps = Array.from({ length: 6 }, () => new Map<number, number>());
      const lists = maps.map((_, i) => {
        if (!fromViews) return new PostingList(arena);
        // A loaded list moves into the arena at its first change.
        const stored = new Uint8Array([4 * (i + 1) + 1]);
        maps[i]!.set(i, 1);
        return PostingList.view(stored, 0, 1, 1, i, arena);
      });
      for (const { list: which, op } of operations) {
        const list = lists[which]!;
        const map = maps[which]!;
        if (op.kind === "set" || op.kind === "append") {
          map.set(op.id, op.frequency);
          if (op.kind === "set") list.set(op.id, op.frequency);
          else list.append(op.id, op.frequency);
        } else if (op.kind === "delete") {
          assert.equal(list.delete(op.id), map.delete(op.id));
        } else if (op.kind === "retain") {
          const alive = new Uint8Array(42);
          for (const id of op.alive) if (id < alive.length) alive[id] = 1;
          for (const id of [...map.keys()]) if (alive[id] !== 1) map.delete(id);
          list.retain(alive);
        } else {
          let position = 0;
          for (const key of list.keys()) if (position++ % op.every === 0) list.delete(key);
          position = 0;
          for (const key of [...map.keys()].sort((a, b) => a - b)) if (position++ % op.every === 0) map.delete(key);
        }
      }
      lists.forEach((list, i) => assert.deepEqual(observe(list), observe(maps[i]!), `list ${i}`));
    }),
    { numRuns: 300 },
  );
});

test("short lists of an arena share its slabs, a long one moves to a buffer of its own, and a left region is reused", () => {
  const arena = new PostingArena();
  const short = Array.from({ length: 100 }, () => new PostingList(arena));
  short.forEach((list, i) => list.append(i, 1));
  const slabs = new Set(short.map((list) => list.encoded().bytes));
  assert.equal(slabs.size, 1, "a hundred one-posting lists in one slab");
  const long = new PostingList(arena);
  for (let id = 0; id < 2000; id++) long.append(id, 1);
  const longBytes = long.encoded();
  assert.ok(!slabs.has(longBytes.bytes), "a list past the largest region owns its bytes");
  assert.equal(longBytes.bytes.length - longBytes.start >= 2000, true);
  // The first list grows out of its 8-byte region; the next list needing 8 bytes gets that region.
  const { bytes: firstSlab, start: firstStart } = short[0]!.encoded();
  for (let id = 1; id < 20; id++) short[0]!.append(id, 1);
  const next = new PostingList(arena);
  next.append(7, 2);
  assert.equal(next.encoded().bytes, firstSlab);
  assert.equal(next.encoded().start, firstStart);
  assert.deepEqual([...next], [[7, 2]]);
  assert.deepEqual([...short[0]!.keys()], Array.from({ length: 20 }, (_, id) => id));
});
