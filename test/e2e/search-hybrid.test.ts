// Hybrid re-ranking through the official SDK client over real HTTP, on a hand-made vault: a types
// note (_config/types.md) turns graph, time and type on one at a time, and each flips the order of a
// pair of notes; visibility flags hide notes unless include_sensitive; explain lists every part.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startTestServer, type TestServer } from "../support/server";
import { within } from "../support/poll";

const TODAY = new Date().toISOString().slice(0, 10);

const NOTES: Record<string, string> = {
  // graph: "zephyr" — Plain ranks above Linked by words; the top hit Hub depends on Linked.
  "graph/Hub.md": "---\ndepends_on: \"[[Linked]]\"\nrelated: [[Reached]]\n---\n# Zephyr\n\nZephyr zephyr zephyr, the hub.\n",
  "graph/Plain.md": "Zephyr here once.\n",
  "graph/Linked.md": "Zephyr here once with a few more words around.\n",
  "graph/Reached.md": "No word of the query, only a link from the hub.\n",
  // time: "quokka" — Old ranks above New by words.
  "time/Old.md": "---\nupdated: 2001-01-01\n---\nQuokka note.\n",
  "time/New.md": `---\nupdated: ${TODAY}\n---\nQuokka note with some more words.\n`,
  // type: "marmot" — Concept ranks above Project by words.
  "type/Concept.md": "---\ntype: concept\n---\nMarmot note.\n",
  "type/Project.md": "---\ntype: project\n---\nMarmot note with some more words.\n",
  // visibility: "ocelot" — the best matches are hidden.
  "hidden/Sensitive.md": "---\nvisibility: sensitive\n---\n# Ocelot\n\nOcelot ocelot ocelot, and [[Plain]].\n",
  "hidden/Draft.md": "---\ndraft: true\n---\n# Ocelot draft\n\nOcelot ocelot.\n",
  "hidden/Journal.md": "---\nprivate_journal: true\n---\nOcelot ocelot.\n",
  "hidden/Open.md": "---\nvisibility: public\n---\nOcelot once, among other words. See [[Sensitive]].\n",
};

interface Hit {
  path: string;
  score: number;
  explanation?: { score: number; words?: unknown[]; fusion: Fusion };
}
interface Fusion {
  formula: string;
  weights?: Record<string, number>;
  keyword: { value: number; weight: number; lexical: number };
  similarity?: unknown;
  graph?: { value: number; weight: number; walks: Array<{ seed: string; edges: Array<{ from: string; relation: string; to: string; hop: number; weight: number; direction: string }> }> };
  time?: { value: number; weight: number; age_days: number; lambda: number; source: string };
  type?: { value: number; weight: number; type: string | null; source: string };
}

let server: TestServer;
let fixture: string;

before(async () => {
  fixture = mkdtempSync(path.join(os.tmpdir(), "sbmcp-hybrid-"));
  for (const [name, text] of Object.entries(NOTES)) {
    mkdirSync(path.dirname(path.join(fixture, name)), { recursive: true });
    writeFileSync(path.join(fixture, name), text);
  }
  server = await startTestServer({ fixture, extra: { rateLimit: { perMinute: 1_000_000, burst: 100_000 } } });
});
after(async () => {
  await server.stop();
  server.vault.cleanup();
  rmSync(fixture, { recursive: true, force: true });
});

const CONFIG = path.join("_config", "types.md");

function typesNote(retrieval: Record<string, number>, extra = ""): string {
  const weights = Object.entries(retrieval).map(([key, value]) => `  ${key}: ${value}`).join("\n");
  return [
    "# Types",
    "",
    "```yaml",
    "version: 1",
    "types:",
    "  concept: { chunk_profile: medium, edge_defaults: [references, related_to], retriever_weight: 0.1 }",
    "  project: { chunk_profile: long, edge_defaults: [references, depends_on], retriever_weight: 0.95 }",
    "retrieval:",
    weights,
    "relation_weights:",
    "  depends_on: 1.2",
    "time_decay:",
    "  lambda: 0.01",
    extra,
    "```",
    "",
  ].join("\n");
}

async function search(query: string, extra: Record<string, unknown> = {}): Promise<Hit[]> {
  const result = await server.call("note_search", { query, limit: 20, ...extra });
  assert.equal(result.isError, false, result.text);
  return result.structured.hits as Hit[];
}

/** Writes the types note (null: removes it) and waits until searches use it. */
async function useConfig(text: string | null, expect: (fusion: Fusion) => boolean): Promise<void> {
  const file = path.join(server.vault.dir, CONFIG);
  mkdirSync(path.dirname(file), { recursive: true });
  if (text === null) unlinkSync(file);
  else writeFileSync(file, text);
  await within(10_000, "the types note in effect", async () => {
    const hits = await search("zephyr", { explain: true });
    return hits.length > 0 && expect(hits[0]!.explanation!.fusion);
  }, 100);
}

const order = (hits: readonly Hit[], ...paths: string[]): string[] => hits.map((hit) => hit.path).filter((path) => paths.includes(path));

describe("without a types note", () => {
  test("ranking is lexical: scores are the lexical scores and explain says so", async () => {
    const hits = await search("zephyr", { explain: true });
    assert.deepEqual(order(hits, "graph/Plain.md", "graph/Linked.md"), ["graph/Plain.md", "graph/Linked.md"]);
    assert.ok(!hits.some((hit) => hit.path === "graph/Reached.md"));
    for (const hit of hits) {
      assert.equal(hit.explanation!.fusion.formula, "lexical");
      assert.equal(hit.explanation!.fusion.keyword.lexical, hit.score);
      assert.ok(Array.isArray(hit.explanation!.words));
    }
    const status = (await server.call("vault_list")).structured.vaults as Array<{ types: { state: string } }>;
    assert.equal(status[0]!.types.state, "absent");
  });

  test("hidden notes ranked above a page of one are passed over, not returned as an empty page", async () => {
    const first = await server.call("note_search", { query: "ocelot", limit: 1 });
    assert.deepEqual((first.structured.hits as Hit[]).map((hit) => hit.path), ["hidden/Open.md"]);
    assert.equal(first.structured.total, 1);
  });
});

describe("each component flips a pair of notes", () => {
  test("graph: a note the top hit depends on passes one with more weight by words; a note reached only by a link joins", async () => {
    const before = await search("zephyr");
    assert.deepEqual(order(before, "graph/Plain.md", "graph/Linked.md"), ["graph/Plain.md", "graph/Linked.md"]);
    await useConfig(typesNote({ alpha: 0, beta: 1, gamma: 1, delta: 0, epsilon: 0 }), (fusion) => fusion.weights?.graph === 1);
    const after = await search("zephyr");
    assert.deepEqual(order(after, "graph/Plain.md", "graph/Linked.md"), ["graph/Linked.md", "graph/Plain.md"]);
    assert.ok(after.some((hit) => hit.path === "graph/Reached.md"), "reached through `related: [[Reached]]` only");
    assert.equal(after[0]!.path, "graph/Hub.md");
    const required = await search("+zephyr");
    assert.ok(!required.some((hit) => hit.path === "graph/Reached.md"), "a required word keeps out notes that lack it");
    assert.deepEqual(order(required, "graph/Plain.md", "graph/Linked.md"), ["graph/Linked.md", "graph/Plain.md"], "and still re-ranks");
  });

  test("time: a note updated today passes an older one with more weight by words", async () => {
    await useConfig(null, (fusion) => fusion.formula === "lexical");
    assert.deepEqual(order(await search("quokka"), "time/Old.md", "time/New.md"), ["time/Old.md", "time/New.md"]);
    await useConfig(typesNote({ alpha: 0, beta: 1, gamma: 0, delta: 1, epsilon: 0 }), (fusion) => fusion.weights?.time === 1);
    assert.deepEqual(order(await search("quokka"), "time/Old.md", "time/New.md"), ["time/New.md", "time/Old.md"]);
  });

  test("type: a project note (retriever_weight 0.95) passes a concept note (0.1) with more weight by words", async () => {
    await useConfig(null, (fusion) => fusion.formula === "lexical");
    assert.deepEqual(order(await search("marmot"), "type/Concept.md", "type/Project.md"), ["type/Concept.md", "type/Project.md"]);
    await useConfig(typesNote({ alpha: 0, beta: 1, gamma: 0, delta: 0, epsilon: 1 }), (fusion) => fusion.weights?.type === 1);
    assert.deepEqual(order(await search("marmot"), "type/Concept.md", "type/Project.md"), ["type/Project.md", "type/Concept.md"]);
  });

  test("visibility: sensitive, draft and private_journal notes are left out unless include_sensitive, also from the recent list", async () => {
    const hidden = ["hidden/Sensitive.md", "hidden/Draft.md", "hidden/Journal.md"];
    const shown = await server.call("note_search", { query: "ocelot" });
    assert.deepEqual((shown.structured.hits as Hit[]).map((hit) => hit.path), ["hidden/Open.md"]);
    assert.equal(shown.structured.total, 1);
    const all = await search("ocelot", { include_sensitive: true });
    assert.equal(all[0]!.path, "hidden/Sensitive.md");
    assert.deepEqual(order(all, "hidden/Sensitive.md", "hidden/Open.md"), ["hidden/Sensitive.md", "hidden/Open.md"]);
    assert.deepEqual(new Set(all.map((hit) => hit.path)), new Set([...hidden, "hidden/Open.md"]));
    const recent = (await server.call("note_search", { prefix: "hidden/", limit: 50 })).structured;
    assert.deepEqual((recent.hits as Hit[]).map((hit) => hit.path), ["hidden/Open.md"]);
    const recentAll = (await server.call("note_search", { prefix: "hidden/", limit: 50, include_sensitive: true })).structured;
    assert.equal((recentAll.hits as Hit[]).length, 4);
  });

  test("visibility: a hidden note is not walked through nor joined by the graph", async () => {
    await useConfig(typesNote({ alpha: 0, beta: 1, gamma: 1, delta: 0, epsilon: 0 }), (fusion) => fusion.weights?.graph === 1);
    const hits = await search("ocelot", { explain: true });
    const walked = JSON.stringify(hits.map((hit) => hit.explanation!.fusion.graph));
    assert.deepEqual(hits.map((hit) => hit.path), ["hidden/Open.md"], "Plain is linked only from the sensitive note");
    assert.ok(!walked.includes("hidden/Sensitive.md"), walked);
    const all = await search("ocelot", { include_sensitive: true });
    assert.ok(all.some((hit) => hit.path === "graph/Plain.md"), "asked for, the sensitive note's links are walked");
  });
});

describe("explain and a broken types note", () => {
  test("explain lists keyword, graph with its edges, time with age and λ, type with its weight, and the weights used", async () => {
    await useConfig(typesNote({ alpha: 0.45, beta: 0.25, gamma: 0.2, delta: 0.07, epsilon: 0.03 }), (fusion) => fusion.weights?.keyword === 0.25);
    const hits = await search("zephyr", { explain: true });
    const linked = hits.find((hit) => hit.path === "graph/Linked.md")!.explanation!;
    const fusion = linked.fusion;
    assert.equal(fusion.formula, "fused");
    assert.deepEqual(fusion.weights, { similarity: 0.45, keyword: 0.25, graph: 0.2, time: 0.07, type: 0.03 });
    assert.ok(fusion.keyword.value > 0 && fusion.keyword.value < 1 && fusion.keyword.weight === 0.25);
    assert.equal(fusion.similarity, undefined, "no vectors: no similarity part");
    const walk = fusion.graph!.walks.find((candidate) => candidate.seed === "graph/Hub.md")!;
    assert.deepEqual(walk.edges, [{ from: "graph/Hub.md", relation: "depends_on", to: "graph/Linked.md", hop: 1, weight: 1.2, direction: "out" }]);
    assert.equal(fusion.time!.lambda, 0.01);
    assert.equal(fusion.time!.source, "mtime");
    assert.ok(fusion.time!.age_days >= 0 && fusion.time!.value > 0 && fusion.time!.value <= 1);
    assert.deepEqual({ type: fusion.type!.type, source: fusion.type!.source, value: fusion.type!.value }, { type: null, source: "default", value: 0.5 });
    const score = 0.25 * fusion.keyword.value + 0.2 * fusion.graph!.value + 0.07 * fusion.time!.value + 0.03 * fusion.type!.value;
    assert.ok(Math.abs(score - hits.find((hit) => hit.path === "graph/Linked.md")!.score) < 0.002, `${score}`);
    const reached = hits.find((hit) => hit.path === "graph/Reached.md")!.explanation!;
    assert.equal(reached.fusion.keyword.lexical, 0);
    assert.equal(reached.words, undefined, "reached by the graph alone: no words matched");
    assert.equal(reached.fusion.graph!.walks[0]!.edges[0]!.relation, "related");
    const project = (await search("marmot", { explain: true })).find((hit) => hit.path === "type/Project.md")!.explanation!.fusion;
    assert.deepEqual({ type: project.type!.type, source: project.type!.source, value: project.type!.value }, { type: "project", source: "type", value: 0.95 });
    const old = (await search("quokka", { explain: true })).find((hit) => hit.path === "time/Old.md")!.explanation!.fusion;
    assert.equal(old.time!.source, "updated");
    assert.ok(old.time!.age_days > 365 * 20);
  });

  test("a types note that does not validate leaves search lexical and says why in vault_list", async () => {
    await useConfig(typesNote({ alpha: 0, beta: 1, gamma: 2, delta: 0, epsilon: 0 }, "graph: { hops: 5 }").replace("lambda: 0.01", "lambda: soon"), (fusion) => fusion.formula === "lexical");
    const vaults = (await server.call("vault_list")).structured.vaults as Array<{ types: { state: string; error: string; path: string } }>;
    assert.equal(vaults[0]!.types.state, "invalid");
    assert.equal(vaults[0]!.types.path, "_config/types.md");
    assert.match(vaults[0]!.types.error, /time_decay\.lambda must be a number/);
    assert.match(vaults[0]!.types.error, /graph\.hops must be 0, 1 or 2/);
    const hits = await search("zephyr");
    assert.deepEqual(order(hits, "graph/Plain.md", "graph/Linked.md"), ["graph/Plain.md", "graph/Linked.md"]);
    writeFileSync(path.join(server.vault.dir, CONFIG), "# Types\n\n```yaml\ntypes: [unclosed\n```\n");
    await within(10_000, "the unparsable types note reported", async () => {
      const broken = (await server.call("vault_list")).structured.vaults as Array<{ types: { state: string; error: string } }>;
      return broken[0]!.types.state === "invalid" && /does not parse/.test(broken[0]!.types.error);
    }, 100);
    assert.deepEqual(order(await search("zephyr"), "graph/Plain.md", "graph/Linked.md"), ["graph/Plain.md", "graph/Linked.md"]);
    assert.ok(!server.logs.some((line) => line.includes("unclosed")), "the note's text stays out of the log");
  });
});
