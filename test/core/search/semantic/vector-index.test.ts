import { test } from "node:test";
import assert from "node:assert/strict";
import { normalize, quantize, VectorFormatError, VectorIndex } from "../../../../src/core/search/semantic/vector-index";
import { seededRandom } from "../../../support/random";

function randomVector(random: () => number, dims: number): Float32Array {
  return Float32Array.from({ length: dims }, () => random() * 2 - 1);
}

function cosine(a: Float32Array, b: Float32Array): number {
  const ua = normalize(a);
  const ub = normalize(b);
  return ua.reduce((sum, value, i) => sum + value * ub[i]!, 0);
}

function stored(values: Float32Array, hash: string, index = 0) {
  return { index, heading: `h${index}`, hash, ...quantize(values) };
}

test("int8 quantisation keeps cosine similarity within 0.01 at a quarter of float32's size", () => {
  const random = seededRandom(7);
  const index = new VectorIndex("m");
  for (let i = 0; i < 50; i++) {
    const values = randomVector(random, 384);
    const query = randomVector(random, 384);
    index.set(`n${i}.md`, { noteHash: "h", chunks: [stored(values, `c${i}`)] });
    const similarity = index.similarity(`n${i}.md`, normalize(query))!.similarity;
    assert.ok(Math.abs(similarity - cosine(values, query)) < 0.01, `${similarity} vs ${cosine(values, query)}`);
  }
  assert.equal(stored(randomVector(random, 384), "x").vector.byteLength, 384);
});

test("search returns the k best notes by their best chunk, best first, filtered, ties by path", () => {
  const index = new VectorIndex("m");
  const axis = (i: number, dims = 4): Float32Array => Float32Array.from({ length: dims }, (_, d) => (d === i ? 1 : 0));
  index.set("b.md", { noteHash: "1", chunks: [stored(axis(1), "b0"), stored(axis(0), "b1", 1)] });
  index.set("a.md", { noteHash: "1", chunks: [stored(axis(0), "a0")] });
  index.set("c.md", { noteHash: "1", chunks: [stored(Float32Array.from([1, 1, 0, 0]), "c0")] });
  index.set("d.md", { noteHash: "1", chunks: [stored(axis(2), "d0")] });
  const query = normalize(axis(0));
  const top = index.search(query, 3);
  assert.deepEqual(top.map((match) => match.path), ["a.md", "b.md", "c.md"]);
  assert.equal(top[1]!.chunk.index, 1, "b matched through its second chunk");
  assert.deepEqual(index.search(query, 2, (path) => path !== "a.md").map((match) => match.path), ["b.md", "c.md"]);
  assert.equal(index.chunkCount, 5);
  index.remove("b.md");
  assert.equal(index.chunkCount, 3);
  assert.deepEqual(index.search(query, 3).map((match) => match.path), ["a.md", "c.md", "d.md"]);
  // Rows let go by a removed or replaced note are reused without mixing notes up.
  index.set("e.md", { noteHash: "1", chunks: [stored(axis(3), "e0"), stored(axis(0), "e1", 1)] });
  index.set("a.md", { noteHash: "2", chunks: [stored(axis(2), "a0")] });
  assert.deepEqual(index.search(query, 2).map((match) => [match.path, match.chunk.index]), [["e.md", 1], ["c.md", 0]]);
  assert.equal(index.chunkCount, 5);
});

test("the file round-trips notes, chunk headings, hashes, scales and the model; damaged files are refused", async () => {
  const random = seededRandom(11);
  const index = new VectorIndex("nomic-embed-text");
  index.set("x/é.md", { noteHash: "abc", chunks: [stored(randomVector(random, 16), "h0"), stored(randomVector(random, 16), "h1", 1)] });
  index.set("y.md", { noteHash: "def", chunks: [stored(randomVector(random, 16), "h2")] });
  index.set("gone.md", { noteHash: "x", chunks: [stored(randomVector(random, 16), "h9")] });
  index.remove("gone.md");
  const parts = await index.encode();
  const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  const back = await VectorIndex.decode(bytes);
  assert.equal(back.model, "nomic-embed-text");
  assert.equal(back.dims, 16);
  assert.deepEqual([...back.paths()], ["x/é.md", "y.md"]);
  assert.deepEqual(back.get("x/é.md"), index.get("x/é.md"));
  assert.deepEqual(back.get("y.md"), index.get("y.md"));
  assert.deepEqual(back.vectorOf("x/é.md", 1), index.vectorOf("x/é.md", 1));
  assert.deepEqual(back.vectorOf("y.md", 0), index.vectorOf("y.md", 0));
  assert.equal(back.chunkCount, 3);
  await assert.rejects(VectorIndex.decode(bytes.subarray(0, bytes.length - 1)), VectorFormatError);
  const wrong = bytes.slice();
  wrong[0] = 0;
  await assert.rejects(VectorIndex.decode(wrong), VectorFormatError);
  assert.throws(() => index.set("z.md", { noteHash: "", chunks: [stored(randomVector(random, 8), "h")] }), /16-dimensional/);
});
