import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FIELD_COUNT, NoteIndex, type IndexDoc, type NoteSearchOptions, type StoredShard } from "../../../src/core/search/note-index";
import { PostingsBuilder, encodeChunk, type DocVector } from "../../../src/core/search/postings";
import { parseQuery } from "../../../src/core/search/query";
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

test("inflections are found by prefix and near-misses by fuzzy matching, ranked below real matches", async () => {
  assert.ok((await paths(buildIndex(), "snapshot")).includes("Plugins/File recovery.md"), "snapshot → snapshots");
  assert.ok((await paths(buildIndex(), "bocket")).includes("Notes/Leaky bucket.md"), "bocket → bucket");
  const index = buildIndex([doc("y/Near.md", "a word about a bucket"), doc("x/Exact.md", "a word about a bocket")]);
  assert.deepEqual(await paths(index, "bocket"), ["x/Exact.md", "y/Near.md"]);
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
  const vectors = corpus.map((entry) => ({ path: entry.path, vector: index.add(entry) }));
  const unfiltered = new NoteIndex();
  const builder = new PostingsBuilder(FIELD_COUNT);
  vectors.forEach(({ vector }, position) => builder.addVector(position, vector));
  await unfiltered.loadShards(
    [{ paths: vectors.map(({ path }) => path), lengths: vectors.map(({ vector }) => vector.lengths), chunks: builder.chunks(vectors.length).map(encodeChunk) }],
    noPause,
  );
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

test("add, replace, remove, has, size and paths", async () => {
  const index = buildIndex();
  assert.equal(index.size, corpus.length);
  assert.ok(index.has("Notes/Painting.md"));
  index.replace(doc("Notes/Painting.md", "Watercolours on a rainy afternoon."));
  assert.ok(!(await paths(index, "ladder")).includes("Notes/Painting.md"));
  assert.deepEqual(await paths(index, "watercolours"), ["Notes/Painting.md"]);
  index.add(doc("Notes/Painting.md", "Oil on canvas."));
  assert.equal(index.size, corpus.length, "adding a known path replaces it");
  assert.deepEqual(await paths(index, "watercolours"), []);
  assert.equal(index.remove("Notes/Painting.md"), true);
  assert.equal(index.remove("Notes/Painting.md"), false);
  assert.ok(!index.has("Notes/Painting.md"));
  assert.deepEqual(await paths(index, "canvas"), []);
  index.replace(doc("New/Fresh.md", "a brand new canvas"));
  assert.deepEqual(await paths(index, "canvas"), ["New/Fresh.md"]);
  assert.deepEqual(index.paths(), [...corpus.map((entry) => entry.path).filter((path) => path !== "Notes/Painting.md"), "New/Fresh.md"].sort());
});

const noPause = async (): Promise<void> => undefined;

/** The index's notes spread over `count` shards as a snapshot stores them, chunks cut small. */
function storedShards(vectors: ReadonlyMap<string, DocVector>, count: number): StoredShard[] {
  const ordered = [...vectors.keys()].sort();
  return Array.from({ length: count }, (_, shard) => {
    const paths = ordered.filter((_, position) => position % count === shard);
    const builder = new PostingsBuilder(FIELD_COUNT);
    paths.forEach((path, position) => builder.addVector(position, vectors.get(path)!));
    return {
      paths,
      lengths: JSON.parse(JSON.stringify(paths.map((path) => vectors.get(path)!.lengths))) as unknown[],
      filters: paths.map((path) => vectors.get(path)!.filter),
      chunks: builder.chunks(Math.max(1, paths.length), 40).map(encodeChunk),
    };
  });
}

test("shards' postings, encoded and merged, load into a fresh index that answers identically", async () => {
  const index = new NoteIndex();
  const vectors = new Map<string, DocVector>();
  for (const entry of corpus) vectors.set(entry.path, index.add(entry));
  index.remove("Notes/Painting.md");
  vectors.delete("Notes/Painting.md");
  vectors.set("Notes/Leaky bucket.md", index.replace(doc("Notes/Leaky bucket.md", "A leaky bucket loses water at a constant rate.")));
  // Compared with an index built from the final notes: the edited one keeps discarded postings until
  // vacuumed, which MiniSearch still counts in document frequencies.
  const fresh = buildIndex(corpus.filter((entry) => entry.path !== "Notes/Painting.md" && entry.path !== "Notes/Leaky bucket.md"));
  fresh.add(doc("Notes/Leaky bucket.md", "A leaky bucket loses water at a constant rate."));
  const options = { limit: 20, offset: 0, loadText: async (path: string) => texts.get(path) ?? null };
  for (const count of [1, 3, 4]) {
    const shards = storedShards(vectors, count);
    assert.ok(shards.some((shard) => shard.chunks.length > 1), "several chunks");
    const restored = new NoteIndex();
    for (const shard of shards) restored.checkShard(shard);
    await restored.loadShards(shards, noPause);
    assert.equal(restored.size, index.size);
    assert.deepEqual(restored.paths(), index.paths());
    for (const query of ["bucket", "restore an older snapshot of a note", '"token bucket"', "grosse", "東京", "buck* -token", "water", "a"]) {
      assert.deepEqual(await restored.search(parseQuery(query), options), await fresh.search(parseQuery(query), options), `${count} shards: ${query}`);
    }
    restored.add(doc("Notes/Later.md", "a later bucket"));
    assert.ok((await paths(restored, "later")).includes("Notes/Later.md"), "adding after a load works");
    restored.add(doc("Notes/Leaky bucket.md", "now about herons"));
    assert.deepEqual(await paths(restored, "herons"), ["Notes/Leaky bucket.md"], "a loaded note can be replaced");
    assert.ok(!(await paths(restored, "water")).includes("Notes/Leaky bucket.md"));
  }
});

test("shards loaded into an index that already holds notes add to its postings", async () => {
  const vectors = new Map<string, DocVector>();
  const reference = new NoteIndex();
  for (const entry of corpus) vectors.set(entry.path, reference.add(entry));
  const index = new NoteIndex();
  index.add(doc("Before/Bucket.md", "an older bucket of tokens"));
  await index.loadShards(storedShards(vectors, 2), noPause);
  reference.add(doc("Before/Bucket.md", "an older bucket of tokens"));
  assert.deepEqual(index.paths(), reference.paths());
  for (const query of ["bucket", "tokens"]) {
    assert.deepEqual(
      (await index.search(parseQuery(query), { limit: 20, offset: 0 })).hits.map((hit) => hit.path).sort(),
      (await reference.search(parseQuery(query), { limit: 20, offset: 0 })).hits.map((hit) => hit.path).sort(),
      query,
    );
  }
});

test("checkShard refuses malformed lengths and filters, and loadShards a malformed chunk, leaving the index empty", async () => {
  const index = new NoteIndex();
  const lengths = [[1, 0, 0, 0, 1]];
  const format = (error: unknown): boolean => error instanceof SnapshotError && error.reason === "format";
  const refused: Array<[string, StoredShard]> = [
    ["too few lengths", { paths: ["a.md"], lengths: [[1, 0]], chunks: [] }],
    ["lengths of another count", { paths: ["a.md", "b.md"], lengths, chunks: [] }],
    ["a negative length", { paths: ["a.md"], lengths: [[1, 0, 0, 0, -1]], chunks: [] }],
    ["a filter of a foreign size", { paths: ["a.md"], lengths, filters: [new Uint8Array(3)], chunks: [] }],
  ];
  const good = encodeChunk({ terms: ["x", "y"], lists: [[0, 1, 0], [4, 1, 0]] });
  refused.push(["postings without notes", { paths: [], lengths: [], chunks: [good] }]);
  for (const [what, shard] of refused) {
    assert.throws(() => index.checkShard(shard), format, what);
    await assert.rejects(index.loadShards([shard], noPause), format, what);
    assert.equal(index.size, 0, what);
  }
  index.add(doc("Kept/Before.md", "x marks the spot"));
  const broken: Array<[string, Uint8Array]> = [
    ["a chunk cut short", good.subarray(0, good.length - 1)],
    ["a field out of range", encodeChunk({ terms: ["x", "y"], lists: [[0, 1, 0], [9, 1, 0]] })],
  ];
  for (const [what, chunk] of broken) {
    const shards = [{ paths: ["a.md"], lengths, chunks: [good] }, { paths: ["b.md"], lengths, chunks: [chunk] }];
    await assert.rejects(index.loadShards(shards, noPause), format, what);
    assert.equal(index.size, 0, what);
    assert.deepEqual(await paths(index, "x"), [], what);
  }
  await index.loadShards([{ paths: ["a.md"], lengths, chunks: [good] }], noPause);
  assert.deepEqual(await paths(index, "y"), ["a.md"]);
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
