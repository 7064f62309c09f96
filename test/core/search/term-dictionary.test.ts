import { test } from "node:test";
import assert from "node:assert/strict";
import MiniSearch, { type SearchResult } from "minisearch";
import { MiniSearchWriter, createTermData } from "../../../src/core/search/minisearch-access";
import { PostingList } from "../../../src/core/search/posting-list";
import { TermDictionary } from "../../../src/core/search/term-dictionary";
import { TermTable } from "../../../src/core/search/term-table";
import { tokenize } from "../../../src/core/search/tokenizer";

interface Note {
  id: string;
  title: string;
  body: string;
}

const notes: Note[] = [
  { id: "a.md", title: "Token bucket", body: "The token bucket refills tokens; a bucket of tokens." },
  { id: "b.md", title: "Leaky bucket", body: "A leaky bucket drains at a constant rate. Buckets, buckled, pocket." },
  { id: "c.md", title: "Empty", body: "" },
  { id: "d.md", title: "Größe", body: "Die Größe der Straße, 東京で雨. Tokenization of tokenizers." },
  { id: "e.md", title: "Long words", body: "pneumonoultramicroscopicsilicovolcanoconiosis and supercalifragilisticexpialidocious" },
];

function options() {
  return {
    fields: ["title", "body"],
    tokenize: (text: string) => tokenize(text),
    processTerm: (term: string) => term,
    extractField: (note: Note, field: string) => note[field as keyof Note],
  };
}

/** A MiniSearch whose term tree is a TermDictionary, filled through the writer as the note index fills it. */
function written(): { engine: MiniSearch<Note>; dictionary: TermDictionary; writer: MiniSearchWriter } {
  const engine = new MiniSearch<Note>(options());
  const writer = new MiniSearchWriter(engine as MiniSearch<unknown>);
  const table = new TermTable();
  const dictionary = new TermDictionary(table);
  writer.useTermDictionary(dictionary);
  for (const note of notes) {
    const fields = [note.title, note.body].map((text) => {
      const frequencies = new Map<string, number>();
      for (const term of tokenize(text)) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
      return frequencies;
    });
    const shortId = writer.addDocument(note.id, fields.map((terms) => terms.size));
    fields.forEach((terms, field) => {
      for (const [term, frequency] of terms) {
        const data = dictionary.fetchNumber(table.number(term), createTermData);
        let list = data.get(field);
        if (!list) data.set(field, (list = new PostingList()));
        list.append(shortId, frequency);
      }
    });
  }
  return { engine, dictionary, writer };
}

function native(): MiniSearch<Note> {
  const engine = new MiniSearch<Note>(options());
  engine.addAll(notes);
  return engine;
}

/** Results by id with scores rounded: near spellings may be summed in another order. */
function comparable(results: SearchResult[]): Array<[string, number, string[]]> {
  return results
    .map((result): [string, number, string[]] => [String(result.id), Math.round(result.score * 1e9) / 1e9, [...result.terms].sort()])
    .sort((a, b) => a[0].localeCompare(b[0]));
}

function sortedIndex(engine: MiniSearch<Note>): unknown {
  const json = engine.toJSON() as unknown as { index: Array<[string, unknown]> };
  return { ...json, index: [...json.index].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)) };
}

test("MiniSearch over the dictionary holds and finds what it does over its own tree", () => {
  const ours = written();
  const theirs = native();
  assert.deepEqual(sortedIndex(ours.engine), sortedIndex(theirs));
  assert.equal(ours.engine.termCount, theirs.termCount);
  assert.ok(ours.dictionary.size > 20);
  assert.deepEqual([...ours.writer.ids()].sort(), notes.map((note) => note.id).sort());
  assert.equal(ours.writer.shortId("b.md"), 1);
  assert.equal(ours.writer.documentId(1), "b.md");
  assert.equal(ours.writer.nextShortId, notes.length);
  const queries = ["bucket", "tok", "buckets", "pocket", "grosse", "東京", "tokenizer", "pneumonoultramicroscopicsilicovolcanoconiosus", "supercalifragilisticexpialidociuos", "zzz"];
  for (const query of queries) {
    for (const searchOptions of [{}, { prefix: true }, { fuzzy: 0.2 }, { prefix: true, fuzzy: 0.3 }]) {
      const expected = comparable(theirs.search(query, searchOptions));
      assert.deepEqual(comparable(ours.engine.search(query, searchOptions)), expected, `${query} ${JSON.stringify(searchOptions)}`);
    }
  }
  assert.ok(comparable(ours.engine.search("supercalifragilisticexpialidociuos", { fuzzy: 0.2 })).length === 1, "a long misspelling is found");
  assert.deepEqual(comparable(ours.engine.search("tok", { prefix: true })).map(([id]) => id), ["a.md", "d.md"]);
});

test("discard and vacuum empty and delete the dictionary's entries as they do the tree's", async () => {
  const ours = written();
  const theirs = native();
  for (const engine of [ours.engine, theirs]) {
    engine.discard("e.md");
    engine.discard("b.md");
    await engine.vacuum();
  }
  assert.equal(ours.engine.termCount, theirs.termCount);
  assert.equal(ours.dictionary.get("pneumonoultramicroscopicsilicovolcanoconiosis"), undefined);
  assert.equal(ours.dictionary.has("leaky"), false);
  assert.ok(ours.dictionary.has("bucket"));
  assert.deepEqual(sortedIndex(ours.engine), sortedIndex(theirs));
  assert.deepEqual(comparable(ours.engine.search("bucket", { prefix: true })), comparable(theirs.search("bucket", { prefix: true })));
  assert.deepEqual([...ours.dictionary.atPrefix("lea")], []);
});

test("prefix lookups see terms added after the last one, and the prefix itself", () => {
  const table = new TermTable();
  const dictionary = new TermDictionary(table);
  dictionary.set("bucket", createTermData());
  assert.deepEqual([...dictionary.atPrefix("buck")].map(([term]) => term), ["bucket"]);
  dictionary.set("buck", createTermData());
  dictionary.set("duck", createTermData());
  assert.deepEqual([...dictionary.atPrefix("buck")].map(([term]) => term), ["bucket", "buck"]);
  assert.equal(dictionary.delete("bucket"), true);
  assert.equal(dictionary.delete("bucket"), false);
  assert.deepEqual([...dictionary.keys()], ["buck", "duck"]);
  assert.equal(dictionary.size, 2);
  dictionary.set("b", createTermData());
  dictionary.set("bü", createTermData());
  assert.deepEqual([...dictionary.atPrefix("b")].map(([term]) => term), ["buck", "b", "bü"], "a one-letter prefix");
  assert.deepEqual([...dictionary.atPrefix("bü")].map(([term]) => term), ["bü"]);
  assert.deepEqual([...dictionary.atPrefix("bx")], []);
});

test("a dictionary only replaces the tree of an empty index", () => {
  const engine = native();
  const writer = new MiniSearchWriter(engine as MiniSearch<unknown>);
  assert.throws(() => writer.useTermDictionary(new TermDictionary(new TermTable())), /empty index/);
});
