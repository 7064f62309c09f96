import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type MiniSearch from "minisearch";
import type { Query } from "minisearch";
import { QueryEvaluator, matchedTerm, type DocumentTable } from "../../../src/core/search/evaluator";
import { NoteIndex, type IndexDoc } from "../../../src/core/search/note-index";
import { phraseCandidateTerms } from "../../../src/core/search/phrase";
import { parseQuery, type QueryTerm } from "../../../src/core/search/query";
import { positiveTerms } from "../../../src/core/search/scoring";
import { HELP_VAULT } from "../../support/vaults";

function helpDocs(): IndexDoc[] {
  const docs: IndexDoc[] = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(join(HELP_VAULT, folder), { withFileTypes: true })) {
      const path = folder ? `${folder}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".md")) {
        const body = readFileSync(join(HELP_VAULT, path), "utf8");
        const title = entry.name.replace(/\.md$/, "");
        const headings = [...body.matchAll(/^#{1,6}\s+(.+)$/gm)].map((match) => match[1]!);
        docs.push({ path, title, aliases: [], headings, tags: [], body });
      }
    }
  };
  walk("");
  return docs;
}

/** The MiniSearch instance inside a NoteIndex: the library's own search is the reference here. */
function engineOf(index: NoteIndex): MiniSearch<never> {
  return (index as unknown as { engine: MiniSearch<never> }).engine;
}

function evaluatorOf(index: NoteIndex): QueryEvaluator {
  const inside = index as unknown as { engine: MiniSearch<never>; documents: DocumentTable };
  return new QueryEvaluator(inside.engine, inside.documents);
}

/** The same terms as a query for MiniSearch's own search. */
function queryTree(terms: readonly QueryTerm[]): Query {
  return {
    combineWith: "OR",
    queries: terms.map((term) => ({
      queries: [term.term],
      prefix: term.prefix,
      fuzzy: term.fuzzy > 0 ? term.fuzzy : false,
      boostTerm: () => term.weight,
    })),
  };
}

function termsOf(query: string): QueryTerm[] {
  const parsed = parseQuery(query);
  const phrases = [...parsed.phrases, ...parsed.groups.flatMap((group) => group.alternatives.flatMap((alternative) => alternative.phrases))];
  return [...positiveTerms(parsed, phrases.map((words) => ({ candidates: phraseCandidateTerms(words) }))).values()];
}

const QUERIES = [
  "sync",
  "how do I restore an older version of a note",
  "canvas* embed",
  "hotkeys",
  '"command palette" settings',
  "graph view filters -local",
  "publsh custom domain",
  "a of the",
  "東京",
  "plugin +community",
  "mobile OR desktop AND sync",
];

test("the evaluator scores, matches and expands exactly as MiniSearch's own search", () => {
  const index = new NoteIndex();
  for (const doc of helpDocs()) index.add(doc);
  const engine = engineOf(index);
  const evaluator = evaluatorOf(index);
  let compared = 0;
  for (const query of QUERIES) {
    const terms = termsOf(query);
    const evaluation = evaluator.evaluate(terms);
    const reference = engine.search(queryTree(terms));
    assert.equal(evaluation.ids.length, reference.length, query);
    const byPath = new Map(reference.map((result) => [result.id as string, result]));
    for (let i = 0; i < evaluation.ids.length; i++) {
      const id = evaluation.ids[i]!;
      const result = byPath.get(evaluation.path(id));
      assert.ok(result, `${query}: ${evaluation.path(id)}`);
      const matched = terms.filter((_, t) => matchedTerm(evaluation, i, t)).map((term) => term.term);
      assert.deepEqual(matched.sort(), [...result.queryTerms].sort(), query);
      // Bit for bit: the same additions in the same order.
      assert.equal(evaluation.scores[i]! * Math.max(1, matched.length), result.score, `${query}: ${result.id as string}`);
      assert.deepEqual(evaluation.terms([i])[0], [...result.terms].sort(), query);
      compared += 1;
    }
  }
  assert.ok(compared > 500, `${compared} hits compared`);
});

test("terms of several hits at once are each hit's own, for terms with one expansion or many", () => {
  const index = new NoteIndex();
  for (const doc of helpDocs()) index.add(doc);
  for (const query of ["sync* plugin", '"command palette" vault']) {
    const terms = termsOf(query);
    const evaluation = evaluatorOf(index).evaluate(terms);
    const matches = Array.from({ length: Math.min(25, evaluation.ids.length) }, (_, i) => i).reverse();
    assert.deepEqual(evaluation.terms(matches), matches.map((at) => evaluation.terms([at])[0]), query);
    assert.ok(new Set(evaluation.terms(matches).map((found) => found.join(" "))).size > 1, `${query}: the hits differ in their terms`);
  }
});

test("a removed note is skipped and counted out of the term's frequency, as MiniSearch does once it met it", () => {
  const index = new NoteIndex();
  const docs = helpDocs();
  for (const doc of docs) index.add(doc);
  for (const doc of docs.slice(0, 5)) index.remove(doc.path);
  const engine = engineOf(index);
  for (const query of ["sync", "note links"]) {
    const terms = termsOf(query);
    // The engine drops a list's removed postings before scoring it; MiniSearch drops them as its
    // search meets them, so its scores match from its second search on.
    const evaluation = evaluatorOf(index).evaluate(terms);
    engine.search(queryTree(terms));
    const reference = new Map(engine.search(queryTree(terms)).map((result) => [result.id as string, result.score]));
    assert.equal(evaluation.ids.length, reference.size, query);
    for (let i = 0; i < evaluation.ids.length; i++) {
      const path = evaluation.path(evaluation.ids[i]!);
      assert.ok(!docs.slice(0, 5).some((doc) => doc.path === path), "no removed note");
      const quality = terms.filter((_, t) => matchedTerm(evaluation, i, t)).length;
      assert.equal(evaluation.scores[i]! * quality, reference.get(path), `${query}: ${path}`);
    }
  }
});

test("a note replaced after a query was answered is scored by its new terms only", async () => {
  const index = new NoteIndex();
  index.add({ path: "a.md", title: "a", aliases: [], headings: [], tags: [], body: "heron heron" });
  index.add({ path: "b.md", title: "b", aliases: [], headings: [], tags: [], body: "heron" });
  const terms = [{ term: "heron", prefix: false, fuzzy: 0, weight: 1 }];
  const before = evaluatorOf(index).evaluate(terms);
  assert.equal(before.ids.length, 2);
  index.add({ path: "a.md", title: "a", aliases: [], headings: [], tags: [], body: "pelican" });
  const fresh = new NoteIndex();
  fresh.add({ path: "b.md", title: "b", aliases: [], headings: [], tags: [], body: "heron" });
  fresh.add({ path: "a.md", title: "a", aliases: [], headings: [], tags: [], body: "pelican" });
  const page = await index.search(parseQuery("heron"), { limit: 10, offset: 0 });
  assert.deepEqual(page, await fresh.search(parseQuery("heron"), { limit: 10, offset: 0 }));
});

test("a query of more than 32 terms keeps every term's bit apart", () => {
  const index = new NoteIndex();
  for (const doc of helpDocs()) index.add(doc);
  const engine = engineOf(index);
  const words = [...Array.from({ length: 40 }, (_, i) => `nosuchword${i}`), "sync", "canvas", "hotkeys"];
  const terms = words.map((term) => ({ term, prefix: false, fuzzy: 0, weight: 1 }));
  const evaluation = evaluatorOf(index).evaluate(terms);
  assert.equal(evaluation.words, 2);
  const reference = new Map(engine.search(queryTree(terms)).map((result) => [result.id as string, result]));
  assert.equal(evaluation.ids.length, reference.size);
  for (let i = 0; i < evaluation.ids.length; i++) {
    const result = reference.get(evaluation.path(evaluation.ids[i]!))!;
    const matched = words.filter((_, t) => matchedTerm(evaluation, i, t));
    assert.deepEqual(matched.sort(), [...result.queryTerms].sort());
    assert.equal(evaluation.scores[i]! * matched.length, result.score);
  }
});

test("every page is the slice of the full ranking, ties broken by path", async () => {
  const index = new NoteIndex();
  for (const doc of helpDocs()) index.add(doc);
  // Identical notes tie on score: their order must be by path on every page.
  for (let i = 9; i >= 0; i--) index.add({ path: `Ties/${i}.md`, title: `${i}`, aliases: [], headings: [], tags: [], body: "zebracorn" });
  for (const query of ["sync", "note", "zebracorn", "plugin settings", "a of the"]) {
    const full = await index.search(parseQuery(query), { limit: 10_000, offset: 0 });
    const sorted = [...full.hits].sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    assert.deepEqual(full.hits, sorted, query);
    for (const [limit, offset] of [[1, 0], [3, 2], [10, 0], [7, 13], [50, 5]] as const) {
      const page = await index.search(parseQuery(query), { limit, offset });
      assert.equal(page.total, full.total, query);
      assert.deepEqual(page.hits, full.hits.slice(offset, offset + limit), `${query} ${limit}@${offset}`);
    }
  }
});
