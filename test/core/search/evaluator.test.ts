import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { QueryEvaluator, matchedTerm, type DocumentTable, type Evaluation } from "../../../src/core/search/evaluator";
import type { PlannedWord } from "../../../src/core/search/expansion";
import { NoteIndex, type DocVector, type IndexDoc } from "../../../src/core/search/note-index";
import { FIELDS, RANKING, type RankingParameters } from "../../../src/core/search/ranking";
import { phraseCandidateTerms } from "../../../src/core/search/phrase";
import { parseQuery, type QueryTerm } from "../../../src/core/search/query";
import { positiveTerms } from "../../../src/core/search/query-plan";
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

type Inside = { documents: DocumentTable; plan(terms: readonly QueryTerm[]): PlannedWord[] };

function evaluate(index: NoteIndex, terms: readonly QueryTerm[], ranking: RankingParameters = RANKING): Evaluation {
  const inside = index as unknown as Inside;
  return new QueryEvaluator(inside.documents).evaluate(inside.plan(terms), ranking);
}

function termsOf(query: string): QueryTerm[] {
  const parsed = parseQuery(query);
  const phrases = [...parsed.phrases, ...parsed.groups.flatMap((group) => group.alternatives.flatMap((alternative) => alternative.phrases))];
  return [...positiveTerms(parsed, phrases.map((words) => ({ candidates: phraseCandidateTerms(words) }))).values()];
}

const exact = (term: string, weak = false): QueryTerm => ({ term, prefix: false, weak, match: "exact" });

/** BM25F as ranking.ts states it, computed the long way from each note's term vector. */
function referenceScores(vectors: ReadonlyMap<string, DocVector>, words: readonly QueryTerm[], ranking: RankingParameters): Map<string, number> {
  const count = vectors.size;
  const averages = FIELDS.map((_, f) => [...vectors.values()].reduce((sum, vector) => sum + vector.lengths[f]!, 0) / count);
  const frequency = (vector: DocVector, f: number, term: string): number => {
    const at = vector.terms[f]!.indexOf(term);
    return at < 0 ? 0 : vector.frequencies[f]![at]!;
  };
  const scores = new Map<string, number>();
  for (const word of words) {
    const df = [...vectors.values()].filter((vector) => FIELDS.some((_, f) => frequency(vector, f, word.term) > 0)).length;
    const idf = Math.log(1 + (count - df + 0.5) / (df + 0.5));
    for (const [path, vector] of vectors) {
      let tf = 0;
      FIELDS.forEach((field, f) => {
        const b = ranking.lengthNormalisation[field];
        if (frequency(vector, f, word.term) === 0) return;
        tf += (ranking.fieldWeights[field] * frequency(vector, f, word.term)) / (1 - b + (b * vector.lengths[f]!) / averages[f]!);
      });
      if (tf === 0) continue;
      const weight = word.weak ? ranking.stopWordWeight : 1;
      scores.set(path, (scores.get(path) ?? 0) + (weight * idf * (ranking.k1 + 1) * tf) / (ranking.k1 + tf));
    }
  }
  return scores;
}

function closeTo(actual: number, expected: number, message: string): void {
  assert.ok(Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)), `${message}: ${actual} vs ${expected}`);
}

test("the evaluator computes BM25F over a note's fields as ranking.ts states it", () => {
  const index = new NoteIndex();
  const vectors = new Map<string, DocVector>();
  for (const doc of helpDocs()) vectors.set(doc.path, index.add(doc, true)!);
  let compared = 0;
  for (const query of [["sync"], ["restore", "older", "version", "note"], ["canvas", "embed"], ["the", "command", "palette"], ["nosuchword", "hotkeys"]]) {
    const words = query.map((term) => exact(term, term === "the"));
    const evaluation = evaluate(index, words);
    const reference = referenceScores(vectors, words, RANKING);
    assert.equal(evaluation.ids.length, reference.size, query.join(" "));
    for (let i = 0; i < evaluation.ids.length; i++) {
      const path = evaluation.path(evaluation.ids[i]!);
      closeTo(evaluation.scores[i]!, reference.get(path)!, `${query.join(" ")}: ${path}`);
      const matched = words.filter((_, t) => matchedTerm(evaluation, i, t)).map(({ term }) => term);
      assert.deepEqual(matched, words.filter(({ term }) => vectors.get(path)!.terms.some((terms) => terms.includes(term))).map(({ term }) => term));
      compared += 1;
    }
  }
  assert.ok(compared > 200, `${compared} hits compared`);
});

test("a hand-computed BM25F score: one word, two fields, two notes", () => {
  const index = new NoteIndex();
  index.add({ path: "a.md", title: "heron", aliases: [], headings: [], tags: [], body: "heron heron egret" });
  index.add({ path: "b.md", title: "pond", aliases: [], headings: [], tags: [], body: "egret" });
  const evaluation = evaluate(index, [exact("heron")]);
  assert.equal(evaluation.ids.length, 1);
  // N 2, df 1: idf ln(1 + 1.5/1.5) = ln 2. Title: 1 distinct term against an average of 1, so
  // weight 3 × 1 / 1. Body: 2 distinct terms against an average of 1.5, so 1 × 2 / (0.25 + 0.75 × 4/3).
  const tf = 3 + 2 / (0.25 + 0.75 * (2 / 1.5));
  const expected = (Math.log(2) * (RANKING.k1 + 1) * tf) / (RANKING.k1 + tf);
  closeTo(evaluation.scores[0]!, expected, "a.md");
  assert.equal(evaluation.df[0], 1);
  closeTo(evaluation.idf[0]!, Math.log(2), "idf");
  assert.equal(evaluation.titleWords[0], 1);
});

test("a word reaches its inflections by stem, and longer words or near spellings only when the vault lacks it", () => {
  const index = new NoteIndex();
  index.add({ path: "restore.md", title: "one", aliases: [], headings: [], tags: [], body: "restoring an older snapshot" });
  index.add({ path: "restored.md", title: "two", aliases: [], headings: [], tags: [], body: "the note was restored" });
  index.add({ path: "reading.md", title: "three", aliases: [], headings: [], tags: [], body: "reading about headings" });
  index.add({ path: "restoration.md", title: "four", aliases: [], headings: [], tags: [], body: "restoration of furniture" });
  const plan = (query: string): Array<[string, string]> =>
    (index as unknown as Inside).plan(termsOf(query)).flatMap((word) => word.expansions.map(({ term, kind }): [string, string] => [term, kind]));
  assert.deepEqual(plan("restore").sort(), [["restored", "stem"], ["restoring", "stem"], ["restoration", "stem"]].sort());
  // "heading" is in the vault: "reading" (one edit away) is not reached.
  assert.deepEqual(plan("headings"), [["headings", "exact"]]);
  assert.deepEqual(plan("heading").sort(), [["headings", "stem"]].sort());
  // Missing words: a cut-short word reaches the words it begins, a typo its near spellings, weighted down.
  assert.deepEqual(plan("snapsh"), [["snapshot", "prefix"]]);
  assert.deepEqual(plan("furnitre"), [["furniture", "fuzzy"]]);
  const weights = (index as unknown as Inside).plan(termsOf("snapsh furnitre")).map((word) => word.expansions[0]!.weight);
  assert.ok(weights.every((weight) => weight < 0.5), String(weights));
  // Quoted words reach only themselves; word* every word it begins, at full weight.
  assert.deepEqual(plan('"restore"'), []);
  assert.deepEqual(plan("rest*").map(([term]) => term).sort(), ["restoration", "restored", "restoring"]);
});

test("terms of several hits at once are each hit's own, for words with one expansion or many", () => {
  const index = new NoteIndex();
  for (const doc of helpDocs()) index.add(doc);
  for (const query of ["sync* plugin", '"command palette" vault', "plugins settings"]) {
    const terms = termsOf(query);
    const evaluation = evaluate(index, terms);
    const matches = Array.from({ length: Math.min(25, evaluation.ids.length) }, (_, i) => i).reverse();
    assert.deepEqual(evaluation.terms(matches), matches.map((at) => evaluation.terms([at])[0]), query);
    assert.ok(new Set(evaluation.terms(matches).map((found) => found.join(" "))).size > 1, `${query}: the hits differ in their terms`);
  }
});

test("explain gives each word's part, and the parts add up to the score before coverage and title", () => {
  const index = new NoteIndex();
  for (const doc of helpDocs()) index.add(doc);
  const evaluation = evaluate(index, termsOf("restore older versions"));
  const matches = Array.from({ length: Math.min(10, evaluation.ids.length) }, (_, i) => i);
  const explained = evaluation.explain(matches);
  matches.forEach((at, position) => {
    const words = explained[position]!;
    assert.ok(words.length > 0);
    const sum = words.reduce((total, word) => total + word.contribution, 0);
    assert.ok(Math.abs(sum - evaluation.scores[at]!) < 0.002 * words.length, `${sum} vs ${evaluation.scores[at]}`);
    for (const word of words) {
      assert.ok(word.matches.length > 0 && word.idf > 0 && word.df > 0 && word.tf > 0);
      for (const match of word.matches) assert.ok(Object.values(match.fields).every((count) => count !== undefined && count > 0));
    }
  });
  assert.ok(explained.flat().some((word) => word.matches.some((match) => match.via === "stem")), "versions reaches version by stem");
});

test("a removed note is skipped and counted out of every word's document frequency", () => {
  const index = new NoteIndex();
  const vectors = new Map<string, DocVector>();
  const docs = helpDocs();
  for (const doc of docs) vectors.set(doc.path, index.add(doc, true)!);
  for (const doc of docs.slice(0, 5)) {
    index.remove(doc.path);
    vectors.delete(doc.path);
  }
  for (const query of [["sync"], ["note", "links"]]) {
    const words = query.map((term) => exact(term));
    const evaluation = evaluate(index, words);
    const reference = referenceScores(vectors, words, RANKING);
    assert.equal(evaluation.ids.length, reference.size, query.join(" "));
    for (let i = 0; i < evaluation.ids.length; i++) {
      const path = evaluation.path(evaluation.ids[i]!);
      closeTo(evaluation.scores[i]!, reference.get(path)!, `${query.join(" ")}: ${path}`);
    }
  }
});

test("a note replaced after a query was answered is scored by its new terms only", async () => {
  const index = new NoteIndex();
  index.add({ path: "a.md", title: "a", aliases: [], headings: [], tags: [], body: "heron heron" });
  index.add({ path: "b.md", title: "b", aliases: [], headings: [], tags: [], body: "heron" });
  const before = evaluate(index, [exact("heron")]);
  assert.equal(before.ids.length, 2);
  index.add({ path: "a.md", title: "a", aliases: [], headings: [], tags: [], body: "pelican" });
  const fresh = new NoteIndex();
  fresh.add({ path: "b.md", title: "b", aliases: [], headings: [], tags: [], body: "heron" });
  fresh.add({ path: "a.md", title: "a", aliases: [], headings: [], tags: [], body: "pelican" });
  const page = await index.search(parseQuery("heron"), { limit: 10, offset: 0 });
  assert.deepEqual(page, await fresh.search(parseQuery("heron"), { limit: 10, offset: 0 }));
});

test("a query of more than 32 words keeps every word's bit apart", () => {
  const index = new NoteIndex();
  const vectors = new Map<string, DocVector>();
  for (const doc of helpDocs()) vectors.set(doc.path, index.add(doc, true)!);
  const words = [...Array.from({ length: 40 }, (_, i) => exact(`nosuchword${i}`)), exact("sync"), exact("canvas"), exact("hotkeys")];
  const evaluation = evaluate(index, words);
  assert.equal(evaluation.words, 2);
  const reference = referenceScores(vectors, words, RANKING);
  assert.equal(evaluation.ids.length, reference.size);
  for (let i = 0; i < evaluation.ids.length; i++) {
    const path = evaluation.path(evaluation.ids[i]!);
    const matched = words.filter((_, t) => matchedTerm(evaluation, i, t)).map(({ term }) => term);
    assert.deepEqual(matched, ["sync", "canvas", "hotkeys"].filter((term) => vectors.get(path)!.terms.some((terms) => terms.includes(term))));
    closeTo(evaluation.scores[i]!, reference.get(path)!, path);
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
