import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FIELD_COUNT, NoteIndex, type DocVector, type IndexDoc, type LoadedIndex, type NoteSearchOptions } from "../../../src/core/search/note-index";
import { IndexBuilder } from "../../../src/core/search/index-builder";
import { parseQuery } from "../../../src/core/search/query";
import { PostingList } from "../../../src/core/search/posting-list";
import { SnapshotError } from "../../../src/core/search/snapshot";
import { tokenize } from "../../../src/core/search/tokenizer";
import { HELP_VAULT } from "../../support/vaults";

function doc(path: string, body: string, extra: Partial<IndexDoc> = {}): IndexDoc {
  const title = path.slice(path.lastIndexOf("/") + 1).replace(/\.md$/, "");
  return { path, title, aliases: [], headings: [], tags: [], body, ...extra };
}

const corpus: IndexDoc[] = [
  doc("Rate limiting/Token bucket.md", "The token bucket algorithm refills tokens at a fixed rate. Each request takes a token from the bucket."),
  doc("Notes/Leaky bucket.md", "A leaky bucket drains at a constant rate; requests overflow when the bucket is full."),
  doc("Notes/Bucket brigade.md", "Pass the bucket along the line; each helper gets a token of thanks."),
  doc("Notes/Painting.md", "We bought buckets of paint and a ladder for the weekend."),
  doc("Sync/Version history.md", "Restore an earlier version of a note from its history. Every change creates a new snapshot you can restore.", {
    aliases: ["Snapshots"],
    headings: ["Restore a version"],
    tags: ["sync"],
  }),
  doc("Plugins/File recovery.md", "File recovery saves snapshots of your notes at intervals, so you can bring a note back to a previous state.", {
    headings: ["Recover a snapshot"],
  }),
  doc("Journal/2024-05-01.md", "Went to a lecture about the history of rate limiting. The speaker mentioned the token limit of an API."),
  doc("Deutsch/Überlegungen.md", "Die Größe der Straße ist über zehn Meter."),
  doc("日本/天気.md", "今日は東京で雨が降っています。"),
  doc("Mobile/Sync on mobile.md", "Sync your vault on a mobile device.", { tags: ["sync", "mobile"] }),
];

const texts = new Map(corpus.map((entry) => [entry.path, entry.body]));

function buildIndex(docs: readonly IndexDoc[] = corpus): NoteIndex {
  const index = new NoteIndex();
  for (const entry of docs) index.add(entry);
  return index;
}

async function paths(index: NoteIndex, query: string, options: Partial<NoteSearchOptions> = {}): Promise<string[]> {
  const page = await index.search(parseQuery(query), {
    limit: 50,
    offset: 0,
    loadText: async (path) => texts.get(path) ?? null,
    ...options,
  });
  return page.hits.map((hit) => hit.path);
}

test("a word in the title outranks the same word in the body", async () => {
  const index = buildIndex([
    doc("a/Body mention.md", "Some notes on rhubarb and other plants in the garden."),
    doc("b/Rhubarb.md", "Some notes on plants in the garden, and other things."),
  ]);
  assert.deepEqual(await paths(index, "rhubarb"), ["b/Rhubarb.md", "a/Body mention.md"]);
});

test("aliases, headings and tags are searched", async () => {
  const index = buildIndex();
  assert.ok((await paths(index, "snapshots")).includes("Sync/Version history.md"));
  assert.ok((await paths(index, "recover")).includes("Plugins/File recovery.md"));
  assert.ok((await paths(index, "mobile")).includes("Mobile/Sync on mobile.md"));
});

test("notes matching more of the words rank higher", async () => {
  const hits = await paths(buildIndex(), "token bucket refills rate");
  assert.equal(hits[0], "Rate limiting/Token bucket.md");
  assert.ok(hits.indexOf("Notes/Leaky bucket.md") > 0);
  assert.ok(hits.indexOf("Notes/Painting.md") > hits.indexOf("Notes/Leaky bucket.md"));
});

test("a natural-language question finds notes although one of its words is in no note", async () => {
  const vocabulary = new Set(corpus.flatMap((entry) => tokenize([entry.title, ...entry.aliases, ...entry.headings, entry.body].join(" "))));
  assert.ok(!vocabulary.has("older"), "the test needs a word absent from every note");
  const hits = await paths(buildIndex(), "restore an older snapshot of a note");
  assert.deepEqual(hits.slice(0, 2).sort(), ["Plugins/File recovery.md", "Sync/Version history.md"]);
});

test("a note matching only stop words of the query is not a hit", async () => {
  assert.deepEqual(await paths(buildIndex(), "the zebra"), []);
  assert.ok((await paths(buildIndex(), "the")).length > 3, "a stop word alone still searches");
  assert.ok((await paths(buildIndex(), "+the zebra")).length > 3, "a required stop word defines the hits itself");
});

test("prefix search with buck*", async () => {
  const hits = await paths(buildIndex(), "buck*");
  assert.deepEqual(hits.slice().sort(), [
    "Notes/Bucket brigade.md",
    "Notes/Leaky bucket.md",
    "Notes/Painting.md",
    "Rate limiting/Token bucket.md",
  ]);
});

test("inflections are found by stem; near spellings only for a word the vault lacks", async () => {
  assert.ok((await paths(buildIndex(), "snapshot")).includes("Plugins/File recovery.md"), "snapshot → snapshots");
  assert.ok((await paths(buildIndex(), "bocket")).includes("Notes/Leaky bucket.md"), "bocket → bucket");
  const index = buildIndex([doc("y/Near.md", "a word about a bucket"), doc("x/Exact.md", "a word about a bocket")]);
  assert.deepEqual(await paths(index, "bocket"), ["x/Exact.md"], "bocket is in the vault: bucket is another word");
  const prefixed = buildIndex([doc("y/Longer.md", "many snapshots here"), doc("x/Same.md", "one snapshot here")]);
  assert.deepEqual(await paths(prefixed, "snapshot"), ["x/Same.md", "y/Longer.md"]);
});

test("diacritics: uberlegungen, grosse and strasse find the German note", async () => {
  const index = buildIndex();
  for (const query of ["uberlegungen", "grosse", "strasse", "über", "UBER"]) {
    assert.deepEqual(await paths(index, query), ["Deutsch/Überlegungen.md"], query);
  }
});

test("CJK: 東京 is found inside a Japanese sentence", async () => {
  assert.deepEqual(await paths(buildIndex(), "東京"), ["日本/天気.md"]);
  assert.deepEqual(await paths(buildIndex(), '"東京で雨"'), ["日本/天気.md"]);
  assert.deepEqual(await paths(buildIndex(), '"大阪で雨"'), []);
});

test("a phrase is verified on the text of the candidates only", async () => {
  const index = buildIndex();
  const loaded: string[] = [];
  const loadText = async (path: string): Promise<string | null> => {
    loaded.push(path);
    return texts.get(path) ?? null;
  };
  const hits = await paths(index, '"token bucket"', { loadText });
  assert.deepEqual(hits, ["Rate limiting/Token bucket.md"]);
  // "Bucket brigade" holds both words, never side by side: its phrase filter rules it out unread.
  assert.deepEqual(loaded.sort(), ["Rate limiting/Token bucket.md"], "only notes whose filter holds the pair");
});

test("without loadText a phrase counts as present when all its words are and the filter holds its pairs", async () => {
  const index = buildIndex();
  const page = await index.search(parseQuery('"token bucket"'), { limit: 10, offset: 0 });
  assert.deepEqual(page.hits.map((hit) => hit.path), ["Rate limiting/Token bucket.md"]);
  // Notes loaded without filters (a snapshot that lacks them) fall back to the words alone.
  const stored = await storedIndex(index);
  const unfiltered = new NoteIndex();
  await unfiltered.load({ ...stored, filters: stored.filters.map(() => undefined) }, noPause);
  const fallback = await unfiltered.search(parseQuery('"token bucket"'), { limit: 10, offset: 0 });
  assert.deepEqual(fallback.hits.map((hit) => hit.path).sort(), ["Notes/Bucket brigade.md", "Rate limiting/Token bucket.md"]);
});

test("a phrase in the file name counts, and a vanished note is dropped", async () => {
  const index = buildIndex();
  assert.deepEqual(await paths(index, '"version history"'), ["Sync/Version history.md"]);
  assert.deepEqual(await paths(index, '"token bucket"', { loadText: async () => null }), []);
});

test("required and excluded words", async () => {
  const index = buildIndex();
  assert.deepEqual(await paths(index, "+leaky bucket"), ["Notes/Leaky bucket.md"]);
  assert.ok(!(await paths(index, "bucket -paint")).includes("Notes/Painting.md"));
  assert.ok((await paths(index, "bucket -paint")).includes("Notes/Leaky bucket.md"));
  assert.deepEqual(await paths(index, "bucket AND rate AND token"), ["Rate limiting/Token bucket.md"]);
  assert.deepEqual((await paths(index, "sync NOT mobile")).sort(), ["Sync/Version history.md"]);
  assert.ok((await paths(index, "bucket -buck*")).length === 0);
});

test("an excluded phrase removes only the notes that really contain it", async () => {
  const hits = await paths(buildIndex(), 'bucket -"token bucket"');
  assert.ok(!hits.includes("Rate limiting/Token bucket.md"));
  assert.ok(hits.includes("Notes/Bucket brigade.md"), "has both words, not the phrase");
});

test("OR groups: AND binds tighter than OR", async () => {
  const hits = await paths(buildIndex(), "leaky OR token AND refills");
  assert.deepEqual(hits.sort(), ["Notes/Leaky bucket.md", "Rate limiting/Token bucket.md"]);
  const withPhrase = await paths(buildIndex(), '"constant rate" OR "fixed rate"');
  assert.deepEqual(withPhrase.sort(), ["Notes/Leaky bucket.md", "Rate limiting/Token bucket.md"]);
});

test("the filter callback keeps only accepted paths", async () => {
  const hits = await paths(buildIndex(), "bucket", { filter: (path) => path.startsWith("Notes/") });
  assert.ok(hits.length > 0);
  assert.ok(hits.every((path) => path.startsWith("Notes/")));
});

test("offset, limit and total", async () => {
  const index = buildIndex();
  const all = await index.search(parseQuery("bucket"), { limit: 100, offset: 0 });
  assert.equal(all.total, all.hits.length);
  assert.ok(all.total >= 3);
  const page = await index.search(parseQuery("bucket"), { limit: 2, offset: 1 });
  assert.equal(page.total, all.total);
  assert.deepEqual(page.hits, all.hits.slice(1, 3));
  assert.deepEqual((await index.search(parseQuery("bucket"), { limit: 5, offset: 99 })).hits, []);
});

test("scores are positive, descending, rounded to 3 decimals, ties broken by path", async () => {
  const index = buildIndex([doc("b/Same.md", "identical words here"), doc("a/Same.md", "identical words here"), doc("c/x.md", "words")]);
  const page = await index.search(parseQuery("identical words"), { limit: 10, offset: 0 });
  assert.deepEqual(page.hits.map((hit) => hit.path), ["a/Same.md", "b/Same.md", "c/x.md"]);
  assert.equal(page.hits[0]!.score, page.hits[1]!.score);
  for (const hit of page.hits) {
    assert.ok(hit.score > 0);
    assert.equal(hit.score, Math.round(hit.score * 1000) / 1000);
  }
  assert.ok(page.hits[1]!.score > page.hits[2]!.score);
  assert.deepEqual(page.hits[0]!.terms, ["identical", "words"]);
});

test("add (replacing a known path), remove, has, size and paths", async () => {
  const index = buildIndex();
  assert.equal(index.size, corpus.length);
  assert.ok(index.has("Notes/Painting.md"));
  index.add(doc("Notes/Painting.md", "Watercolours on a rainy afternoon."));
  assert.ok(!(await paths(index, "ladder")).includes("Notes/Painting.md"));
  assert.deepEqual(await paths(index, "watercolours"), ["Notes/Painting.md"]);
  index.add(doc("Notes/Painting.md", "Oil on canvas."));
  assert.equal(index.size, corpus.length, "adding a known path replaces it");
  assert.deepEqual(await paths(index, "watercolours"), []);
  assert.equal(index.remove("Notes/Painting.md"), true);
  assert.equal(index.remove("Notes/Painting.md"), false);
  assert.ok(!index.has("Notes/Painting.md"));
  assert.deepEqual(await paths(index, "canvas"), []);
  index.add(doc("New/Fresh.md", "a brand new canvas"));
  assert.deepEqual(await paths(index, "canvas"), ["New/Fresh.md"]);
  assert.deepEqual(index.paths(), [...corpus.map((entry) => entry.path).filter((path) => path !== "Notes/Painting.md"), "New/Fresh.md"].sort());
});

/**
 * The index as a snapshot stores it: documents numbered in short-id order, each term's lists
 * renumbered to match and concatenated.
 */
async function storedIndex(index: NoteIndex): Promise<LoadedIndex> {
  const documents = await index.storedDocuments(async () => undefined);
  const numbers = new Map(documents.map((document, d) => [document.id, d]));
  const terms: string[] = [];
  const ranges: number[] = [];
  const bytes: number[] = [];
  for (const { term, lists } of index.storedTerms()) {
    const encoded = lists.map((list) => {
      const out = new PostingList();
      list?.forEachPosting((id, frequency) => {
        const d = numbers.get(id);
        if (d !== undefined) out.append(d, frequency);
      });
      const { bytes: raw, start, end } = out.encoded();
      return Array.from(raw.subarray(start, end));
    });
    if (encoded.every((list) => list.length === 0)) continue;
    terms.push(term);
    for (const list of encoded) {
      ranges.push(list.length);
      bytes.push(...list);
    }
  }
  return {
    paths: documents.map((document) => document.path),
    lengths: Int32Array.from(documents.flatMap((document) => document.lengths)),
    filters: documents.map((document) => document.filter),
    terms,
    ranges: Uint32Array.from(ranges),
    postings: Uint8Array.from(bytes),
  };
}

const noPause = async (): Promise<void> => undefined;

test("an index stored and loaded as views of its bytes answers exactly as the index it came from", async () => {
  const index = buildIndex();
  index.remove("Notes/Painting.md");
  index.add(doc("Notes/Leaky bucket.md", "A leaky bucket loses water at a constant rate."));
  const options = { limit: 20, offset: 0, loadText: async (path: string) => texts.get(path) ?? null };
  const restored = new NoteIndex();
  await restored.load(await storedIndex(index), noPause);
  assert.equal(restored.size, index.size);
  assert.deepEqual(restored.paths(), index.paths());
  // Compared with an index built from the final notes: the loaded one holds no removed postings.
  const fresh = buildIndex(corpus.filter((entry) => entry.path !== "Notes/Painting.md" && entry.path !== "Notes/Leaky bucket.md"));
  fresh.add(doc("Notes/Leaky bucket.md", "A leaky bucket loses water at a constant rate."));
  for (const query of ["bucket", "restore an older snapshot of a note", '"token bucket"', "grosse", "東京", "buck* -token", "water", "a"]) {
    assert.deepEqual(await restored.search(parseQuery(query), options), await fresh.search(parseQuery(query), options), query);
    assert.deepEqual(await restored.search(parseQuery(query), options), await index.search(parseQuery(query), options), query);
  }
  restored.add(doc("Notes/Later.md", "a later bucket"));
  assert.ok((await paths(restored, "later")).includes("Notes/Later.md"), "adding after a load works");
  restored.add(doc("Notes/Leaky bucket.md", "now about herons"));
  assert.deepEqual(await paths(restored, "herons"), ["Notes/Leaky bucket.md"], "a loaded note can be replaced");
  assert.ok(!(await paths(restored, "water")).includes("Notes/Leaky bucket.md"));
  restored.remove("Notes/Later.md");
  assert.deepEqual(await paths(restored, "later"), []);
});

test("batches of a builder with its own term table index exactly what adding the notes one by one does", async () => {
  const one = new NoteIndex();
  const batched = new NoteIndex();
  one.add(doc("Before/Bucket.md", "an older bucket of tokens"));
  batched.add(doc("Before/Bucket.md", "an older bucket of tokens"));
  const builder = new IndexBuilder();
  const terms = batched.batchTerms();
  for (const [position, entry] of corpus.entries()) {
    one.add(entry);
    builder.addNote(entry);
    if (position % 4 === 3) batched.appendBatch(builder.take(), terms);
  }
  batched.appendBatch(builder.take(), terms);
  assert.deepEqual(batched.paths(), one.paths());
  const options = { limit: 20, offset: 0, loadText: async (path: string) => texts.get(path) ?? null };
  for (const query of ["bucket", "tokens", '"token bucket"', "grosse", "東京", "snapshots", "sync -mobile"]) {
    assert.deepEqual(await batched.search(parseQuery(query), options), await one.search(parseQuery(query), options), query);
  }
});

test("add returns the note's term vector, and insert from it indexes the same", async () => {
  const index = new NoteIndex();
  const copy = new NoteIndex();
  for (const entry of corpus) {
    const vector: DocVector = index.add(entry, true)!;
    assert.deepEqual(vector.lengths.length, FIELD_COUNT);
    vector.terms.forEach((terms, field) => assert.equal(terms.length, vector.lengths[field]));
    copy.insert(entry.path, JSON.parse(JSON.stringify({ ...vector, filter: undefined })) as DocVector);
  }
  assert.equal(index.add(corpus[0]!), null, "no vector unless asked");
  for (const query of ["bucket", "tokens", "grosse", "東京", "snapshots"]) {
    assert.deepEqual(await copy.search(parseQuery(query), { limit: 20, offset: 0 }), await index.search(parseQuery(query), { limit: 20, offset: 0 }), query);
  }
});

test("load refuses malformed tables, terms and postings, leaving the index empty and usable", async () => {
  const stored = await storedIndex(buildIndex());
  const format = (error: unknown): boolean => error instanceof SnapshotError && error.reason === "format";
  const broken: Array<[string, LoadedIndex]> = [
    ["lengths of another count", { ...stored, lengths: stored.lengths.subarray(1) }],
    ["a negative length", { ...stored, lengths: stored.lengths.map((length, i) => (i === 2 ? -1 : length)) }],
    ["a filter of a wrong size", { ...stored, filters: stored.filters.map((filter, i) => (i === 0 ? new Uint8Array(5) : filter)) }],
    ["a note twice", { ...stored, paths: stored.paths.map((path, i) => (i === 1 ? stored.paths[0]! : path)) }],
    ["a term twice", { ...stored, terms: stored.terms.map((term, i) => (i === 1 ? stored.terms[0]! : term)) }],
    ["ranges past the postings", { ...stored, postings: stored.postings.subarray(0, stored.postings.length - 1) }],
    ["postings no term names", { ...stored, postings: Uint8Array.from([...stored.postings, 4]) }],
    ["an id past the notes", { ...stored, paths: stored.paths.slice(0, 3), lengths: stored.lengths.subarray(0, 3 * FIELD_COUNT), filters: stored.filters.slice(0, 3) }],
  ];
  for (const [what, index] of broken) {
    const target = new NoteIndex();
    await assert.rejects(target.load(index, noPause), format, what);
    assert.equal(target.size, 0, what);
    target.add(doc("a.md", "still usable"));
    assert.deepEqual(await paths(target, "usable"), ["a.md"], what);
  }
  const busy = buildIndex();
  await assert.rejects(busy.load(stored, noPause), /empty index/);
});

test("a phrase with many candidates reads them in rank order only until the page is full, and estimates the total", async () => {
  const docs: IndexDoc[] = [];
  for (let i = 0; i < 60; i++) {
    const filler = Array.from({ length: i }, (_, j) => ` filler${j}`).join("");
    docs.push(doc(`n/${String(i).padStart(2, "0")}.md`, i % 2 === 0 ? `the token bucket here${filler}` : `bucket of token${filler}`));
  }
  const index = buildIndex(docs);
  const bodies = new Map(docs.map((entry) => [entry.path, entry.body]));
  const loaded: string[] = [];
  const loadText = async (path: string): Promise<string | null> => {
    loaded.push(path);
    return bodies.get(path) ?? null;
  };
  const full = await index.search(parseQuery('"token bucket"'), { limit: 100, offset: 0, loadText: async (path) => bodies.get(path) ?? null });
  assert.equal(full.total, 30);
  assert.equal(full.totalEstimated, undefined, "an exact total when every candidate was read");
  const page = await index.search(parseQuery('"token bucket"'), { limit: 5, offset: 2, loadText });
  assert.deepEqual(page.hits, full.hits.slice(2, 7), "the same hits as a full verification");
  assert.ok(loaded.length < 30, `read ${loaded.length} of 60 candidates`);
  assert.equal(page.totalEstimated, true);
  assert.ok(page.total >= 7 && page.total <= 60, `estimate ${page.total}`);
});

function readHelpVault(): Map<string, { text: string; doc: IndexDoc }> {
  const root = HELP_VAULT;
  const notes = new Map<string, { text: string; doc: IndexDoc }>();
  const walk = (folder: string): void => {
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
      const path = folder ? `${folder}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".md")) {
        const text = readFileSync(join(root, path), "utf8");
        const frontmatter = /^---\n([\s\S]*?)\n---\n?/.exec(text);
        const body = frontmatter ? text.slice(frontmatter[0].length) : text;
        const aliases = frontmatter ? [...frontmatter[1]!.matchAll(/^\s+-\s+(.+)$/gm)].map((match) => match[1]!) : [];
        const headings = [...body.matchAll(/^#{1,6}\s+(.+)$/gm)].map((match) => match[1]!);
        notes.set(path, { text, doc: doc(path, body, { aliases, headings }) });
      }
    }
  };
  walk("");
  return notes;
}

test("Obsidian Help vault: the notes really about a query rank in the top 3", async () => {
  const notes = readHelpVault();
  assert.ok(notes.size > 150);
  const index = buildIndex([...notes.values()].map((note) => note.doc));
  const options = { limit: 3, offset: 0, loadText: async (path: string) => notes.get(path)?.text ?? null };
  const top = async (query: string): Promise<string[]> =>
    (await index.search(parseQuery(query), options)).hits.map((hit) => hit.path);
  assert.ok((await top("version history")).includes("Obsidian Sync/Version history.md"));
  const restore = await top("restore an older snapshot of a note");
  assert.ok(restore.includes("Plugins/File recovery.md"), restore.join(", "));
  assert.ok(restore.includes("Obsidian Sync/Version history.md"), restore.join(", "));
  assert.equal((await top('"command palette"'))[0], "Plugins/Command palette.md");
  assert.equal((await top("publish custom domain"))[0], "Obsidian Publish/Custom domains.md");
  assert.ok((await top("keyboard shortcuts")).includes("User interface/Hotkeys.md"));
});
