// The fusion formula of fusion.ts, on cases worked out by hand.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_FUSION_WEIGHTS, fuse, graphValue, isFused, normaliseKeyword, rankFused, similarityGate, SIMILARITY_GATE_Z, timeDecay, walkContribution, type FusionInputs } from "../../../src/core/search/fusion";

const close = (actual: number, expected: number): void => assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} vs ${expected}`);

test("keyword alone: the score is the lexical score unchanged, so lexical ranking and shown scores stay as they are", () => {
  const notes: FusionInputs[] = [
    { path: "a.md", lexical: 7.25, keyword: normaliseKeyword(7.25, 7.25) },
    { path: "b.md", lexical: 3.5, keyword: normaliseKeyword(3.5, 7.25) },
  ];
  assert.equal(isFused(notes), false);
  const a = fuse(notes[0]!, DEFAULT_FUSION_WEIGHTS, false);
  assert.equal(a.score, 7.25);
  assert.equal(a.formula, "lexical");
  assert.equal(a.similarity, undefined);
});

test("every component: α·similarity + β·keyword + γ·graph + δ·time + ε·type, each part with its weight", () => {
  const weights = { similarity: 0.4, keyword: 0.3, graph: 0.2, time: 0.05, type: 0.05 };
  const inputs: FusionInputs = {
    path: "a.md",
    lexical: 4,
    keyword: 0.5,
    similarity: 0.8,
    graph: { value: 0.6, walks: [] },
    time: { value: timeDecay(0.01, 100), age_days: 100, lambda: 0.01, source: "updated" },
    type: { value: 0.9, type: "project", source: "type" },
  };
  assert.equal(isFused([inputs]), true);
  const result = fuse(inputs, weights, true);
  close(result.score, 0.4 * 0.8 + 0.3 * 0.5 + 0.2 * 0.6 + 0.05 * Math.exp(-1) + 0.05 * 0.9);
  assert.equal(result.formula, "fused");
  assert.equal(result.keyword.weight, 0.3);
  assert.equal(result.keyword.lexical, 4);
  assert.equal(result.similarity?.contribution, 0.32);
  assert.equal(result.graph?.weight, 0.2);
  assert.equal(result.time?.lambda, 0.01);
  assert.equal(result.type?.type, "project");
});

test("a component a query lacks adds nothing; negative similarity counts as none", () => {
  const result = fuse({ path: "a.md", lexical: 0, keyword: 0, similarity: -0.3 }, DEFAULT_FUSION_WEIGHTS, true);
  assert.equal(result.score, 0);
  assert.equal(result.graph, undefined);
});

test("similarity gate: z of the best similarity over the candidates' mean; open only from the threshold on", () => {
  // 20 flat candidates and one that stands out: mean 0.2 + 0.6/21, z = (max − mean) / sd.
  const flat = Array.from({ length: 20 }, () => 0.2);
  const gate = similarityGate([...flat, 0.8], 5);
  assert.equal(gate.z, 4.472, "√20, rounded as scores are");
  assert.equal(gate.threshold, SIMILARITY_GATE_Z);
  assert.equal(gate.open, true);
  const shallow = similarityGate([0.3, 0.35, 0.4, 0.45, 0.5], 5);
  assert.equal(shallow.open, false);
  assert.ok(shallow.z > 0 && shallow.z < SIMILARITY_GATE_Z);
  assert.deepEqual(similarityGate([], 0), { z: 0, threshold: SIMILARITY_GATE_Z, lexical_hits: 0, open: true });
  assert.equal(similarityGate([0.5, 0.5, 0.5], 3).open, false, "equal similarities single nothing out");
});

test("similarity gate: open for a query without lexical hits, whatever z is, since there is no lexical order to keep", () => {
  // Four candidates, one far above the rest: z is at most √3 over four values, below the threshold.
  const small = [0.9, 0.1, 0.1, 0.1];
  const missed = similarityGate(small, 0);
  assert.equal(missed.z, 1.732);
  assert.equal(missed.open, true);
  assert.equal(missed.lexical_hits, 0);
  const found = similarityGate(small, 1);
  assert.equal(found.open, false, "with one lexical hit the same flat-sample z keeps the lexical order");
  // Through fuse: without lexical hits the similarity orders the notes, not a tie at 0 broken by path.
  const notes = small.map((similarity, i) => ({ path: `${String.fromCharCode(100 - i)}.md`, lexical: 0, keyword: 0, similarity, gate: missed }));
  const ranked = rankFused(notes.map((n) => ({ path: n.path, result: fuse(n, DEFAULT_FUSION_WEIGHTS, true) })), (x, y) => x.localeCompare(y));
  assert.equal(ranked[0]!.path, "d.md");
  close(ranked[0]!.result.score, DEFAULT_FUSION_WEIGHTS.similarity * 0.9);
  assert.ok(ranked[0]!.result.score > ranked[1]!.result.score);
});

test("a closed gate sets α to 0 for the query, so its lexical order stands; explain still shows the similarity and z", () => {
  const closed = similarityGate([0.3, 0.35, 0.4, 0.45, 0.5], 2);
  const strong = { path: "a.md", lexical: 8, keyword: 1, similarity: 0.3, gate: closed };
  const close2 = { path: "b.md", lexical: 7.6, keyword: 0.95, similarity: 0.5, gate: closed };
  const ranked = rankFused([strong, close2].map((n) => ({ path: n.path, result: fuse(n, DEFAULT_FUSION_WEIGHTS, true) })), (x, y) => x.localeCompare(y));
  assert.deepEqual(ranked.map((n) => n.path), ["a.md", "b.md"]);
  const b = ranked[1]!.result;
  assert.equal(b.similarity?.value, 0.5);
  assert.equal(b.similarity?.weight, 0);
  assert.equal(b.similarity?.contribution, 0);
  assert.deepEqual(b.similarity?.gate, closed);
  // The same notes with the gate open: the similarity term reorders them.
  const open = { ...closed, open: true };
  const reordered = rankFused([strong, close2].map((n) => ({ path: n.path, result: fuse({ ...n, gate: open }, DEFAULT_FUSION_WEIGHTS, true) })), (x, y) => x.localeCompare(y));
  assert.deepEqual(reordered.map((n) => n.path), ["b.md", "a.md"]);
  close(reordered[0]!.result.score, DEFAULT_FUSION_WEIGHTS.similarity * 0.5 + DEFAULT_FUSION_WEIGHTS.keyword * 0.95);
});

test("graph: a walk multiplies relation weights and decays per hop after the first; sums clamp to [-1, 1]", () => {
  close(walkContribution(0.8, [1.2], 0.5), 0.96);
  close(walkContribution(1, [1, 0.6], 0.5), 0.3);
  close(graphValue([0.7, 0.6]), 1);
  close(graphValue([-0.9, -0.5]), -1);
  close(graphValue([0.5, -0.2]), 0.3);
});

test("keyword normalisation: over the query's best, within [0, 1]; 0 without a best", () => {
  close(normaliseKeyword(2, 8), 0.25);
  assert.equal(normaliseKeyword(2, 0), 0);
  assert.equal(normaliseKeyword(9, 8), 1);
});

test("time decay: 1 today and for future dates, a half after ln 2 / λ days", () => {
  assert.equal(timeDecay(0.0025, 0), 1);
  assert.equal(timeDecay(0.0025, -5), 1);
  close(timeDecay(0.0025, Math.log(2) / 0.0025), 0.5);
});

test("ranking fused notes: best score first, ties by path", () => {
  const weights = { ...DEFAULT_FUSION_WEIGHTS, similarity: 0.45 };
  const ranked = rankFused(
    [
      { path: "b.md", result: fuse({ path: "b.md", lexical: 1, keyword: 1, similarity: 0 }, weights, true) },
      { path: "a.md", result: fuse({ path: "a.md", lexical: 1, keyword: 1, similarity: 0 }, weights, true) },
      { path: "c.md", result: fuse({ path: "c.md", lexical: 0, keyword: 0, similarity: 1 }, weights, true) },
    ],
    (a, b) => (a < b ? -1 : a > b ? 1 : 0),
  );
  assert.deepEqual(ranked.map((note) => note.path), ["c.md", "a.md", "b.md"]);
});
