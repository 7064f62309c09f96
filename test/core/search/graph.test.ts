// Typed edges from a note's metadata and the walk that scores a query's neighbourhood.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseNote } from "../../../src/core/notes/structure";
import type { CachedMetadata } from "../../../src/core/notes/metadata";
import { typedEdges, walkGraph, type GraphSource } from "../../../src/core/search/graph";
import { parseTypesConfig } from "../../../src/core/search/types-config";

const config = parseTypesConfig("```yaml\ntypes:\n  task: { edge_defaults: [depends_on, belongs_to] }\nrelation_weights: { up: 0.9 }\ngraph: { hop_decay: 0.5, default_relation_weight: 0.3 }\n```");
const resolve = (linkpath: string): string | null => (linkpath === "Missing" ? null : `${linkpath.replace(/\.md$/, "")}.md`);

test("body and Markdown links are links_to; frontmatter properties holding links are typed by the property; quoted, listed and unquoted [[X]] alike", () => {
  const cache = parseNote('---\ndepends_on: "[[A]]"\nrelated: ["[[B]]", "[[C#Part]]"]\nup: [[D]]\naliases: [E]\nnote: plain text\n---\nSee [[E]], [F](F.md), [[A]] and [[Missing]] and [[self]].\n');
  const edges = typedEdges("self.md", cache, config, resolve).map(({ relation, to, source }) => `${relation}>${to}:${source}`);
  assert.deepEqual(edges.sort(), ["depends_on>A.md:declared", "links_to>A.md:declared", "links_to>E.md:declared", "links_to>F.md:declared", "related>B.md:declared", "related>C.md:declared", "up>D.md:declared"]);
});

test("a note whose type has edge_defaults: its plain links stand for those relations (rule edges)", () => {
  const cache = parseNote("---\ntype: task\n---\nSee [[E]].\n");
  const edges = typedEdges("t.md", cache, config, resolve).map(({ relation, to, source }) => `${relation}>${to}:${source}`);
  assert.deepEqual(edges, ["depends_on>E.md:rule", "belongs_to>E.md:rule"]);
});

function source(notes: Record<string, string>, skip: (path: string) => boolean = () => false): GraphSource {
  const caches = new Map<string, CachedMetadata>(Object.entries(notes).map(([path, text]) => [path, parseNote(text)]));
  const incoming = new Map<string, Map<string, number>>();
  for (const [path, cache] of caches) {
    for (const edge of typedEdges(path, cache, config, resolve)) {
      if (!incoming.has(edge.to)) incoming.set(edge.to, new Map());
      incoming.get(edge.to)!.set(path, 1);
    }
  }
  return { cache: (path) => caches.get(path) ?? null, resolve, incoming: (path) => incoming.get(path) ?? new Map(), skip };
}

test("walk: relation weights multiply, the second hop decays, backlinks are walked too, each seed's best walk counts once", () => {
  const graph = source({
    "S.md": "---\nup: \"[[A]]\"\n---\n[[B]]",
    "A.md": "[[C]]",
    "B.md": "",
    "C.md": "",
    "P.md": "[[S]]",
  });
  const parts = walkGraph(new Map([["S.md", 0.8]]), graph, config);
  assert.equal(Math.round(parts.get("A.md")!.value * 1000), Math.round(0.8 * 0.9 * 1000));
  assert.equal(Math.round(parts.get("B.md")!.value * 1000), 800);
  assert.equal(Math.round(parts.get("C.md")!.value * 1000), Math.round(0.8 * 0.9 * 1 * 0.5 * 1000));
  assert.deepEqual(parts.get("C.md")!.walks[0]!.edges.map(({ from, relation, to, hop, direction }) => `${hop}:${from}-${relation}->${to}:${direction}`), [
    "1:S.md-up->A.md:out",
    "2:A.md-links_to->C.md:out",
  ]);
  assert.equal(parts.get("P.md")!.walks[0]!.edges[0]!.direction, "in");
  assert.equal(parts.has("S.md"), false, "the seed is not its own neighbour");
});

test("walk: skipped notes are neither reached nor walked through; hops 1 stops at the first", () => {
  const notes = { "S.md": "[[H]] [[A]]", "H.md": "[[X]]", "A.md": "[[Y]]", "X.md": "", "Y.md": "" };
  const parts = walkGraph(new Map([["S.md", 1]]), source(notes, (path) => path === "H.md"), config);
  assert.deepEqual([...parts.keys()].sort(), ["A.md", "Y.md"]);
  const oneHop = parseTypesConfig("```yaml\ngraph: { hops: 1 }\n```");
  assert.deepEqual([...walkGraph(new Map([["S.md", 1]]), source(notes), oneHop).keys()].sort(), ["A.md", "H.md"]);
});
