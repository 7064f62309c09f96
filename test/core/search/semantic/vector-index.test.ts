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
});

test("the file round-trips notes, chunk headings, hashes, scales and the model; damaged files are refused", () => {
  const random = seededRandom(11);
  const index = new VectorIndex("nomic-embed-text");
  index.set("x/é.md", { noteHash: "abc", chunks: [stored(randomVector(random, 16), "h0"), stored(randomVector(random, 16), "h1", 1)] });
  index.set("y.md", { noteHash: "def", chunks: [stored(randomVector(random, 16), "h2")] });
  const parts = index.encode();
  const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  const back = VectorIndex.decode(bytes);
  assert.equal(back.model, "nomic-embed-text");
  assert.equal(back.dims, 16);
  assert.deepEqual([...back.paths()], ["x/é.md", "y.md"]);
  assert.deepEqual(back.get("x/é.md"), index.get("x/é.md"));
  assert.deepEqual(back.get("y.md"), index.get("y.md"));
  assert.throws(() => VectorIndex.decode(bytes.subarray(0, bytes.length - 1)), VectorFormatError);
  const wrong = bytes.slice();
  wrong[0] = 0;
  assert.throws(() => VectorIndex.decode(wrong), VectorFormatError);
  assert.throws(() => index.set("z.md", { noteHash: "", chunks: [stored(randomVector(random, 8), "h")] }), /16-dimensional/);
});
