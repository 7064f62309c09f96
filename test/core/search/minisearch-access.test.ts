import { test } from "node:test";
import assert from "node:assert/strict";
import MiniSearch from "minisearch";
import { MiniSearchWriter } from "../../../src/core/search/minisearch-access";
import { PostingList } from "../../../src/core/search/posting-list";
import { tokenize } from "../../../src/core/search/tokenizer";

interface Note {
  id: string;
  title: string;
  body: string;
}

const notes: Note[] = [
  { id: "a.md", title: "Token bucket", body: "The token bucket refills tokens; a bucket of tokens." },
  { id: "b.md", title: "Leaky bucket", body: "A leaky bucket drains at a constant rate." },
  { id: "c.md", title: "Empty", body: "" },
  { id: "d.md", title: "Größe", body: "Die Größe der Straße, 東京で雨." },
];

function options() {
  return {
    fields: ["title", "body"],
    tokenize: (text: string) => tokenize(text),
    processTerm: (term: string) => term,
    extractField: (note: Note, field: string) => note[field as keyof Note],
  };
}

test("documents written directly hold exactly what MiniSearch's own add builds", () => {
  const added = new MiniSearch<Note>(options());
  added.addAll(notes);
  const written = new MiniSearch<Note>(options());
  const writer = new MiniSearchWriter(written as MiniSearch<unknown>);
  for (const note of notes) {
    const fields = [note.title, note.body].map((text) => {
      const frequencies = new Map<string, number>();
      for (const term of tokenize(text)) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
      return frequencies;
    });
    const shortId = writer.addDocument(note.id, fields.map((terms) => terms.size));
    fields.forEach((terms, field) => {
      for (const [term, frequency] of terms) {
        const data = writer.termData(term);
        let list = data.get(field);
        if (!list) data.set(field, (list = new PostingList()));
        list.append(shortId, frequency);
      }
    });
  }
  assert.deepEqual(written.toJSON(), added.toJSON());
  assert.deepEqual([...writer.ids()].sort(), notes.map((note) => note.id).sort());
  assert.equal(writer.shortId("b.md"), 1);
  assert.equal(writer.documentId(1), "b.md");
  assert.equal(writer.nextShortId, notes.length);
  for (const query of ["bucket", "grosse", "東京", "tok"]) {
    assert.deepEqual(written.search(query, { prefix: true }), added.search(query, { prefix: true }), query);
  }
  written.discard("a.md");
  assert.deepEqual(written.search("refills").map((result) => String(result.id)), [], "MiniSearch's discard works on written documents");
});

test("an object that is not a MiniSearch 7 instance is refused", () => {
  assert.throws(() => new MiniSearchWriter({} as MiniSearch<unknown>), /MiniSearch/);
});
