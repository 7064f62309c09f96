import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { CHUNK_PROFILES, chunkId, chunkNote } from "../../../../src/core/search/semantic/chunks";

const hash = (text: string): string => createHash("sha256").update(text).digest("hex").slice(0, 16);
const note = (body: string, path = "a.md") => ({ vault: "v", path, title: "Title", body });

const words = (count: number, seed: string): string =>
  Array.from({ length: count }, (_, i) => `${seed}${i}`).join(" ");

test("short sections under one target are joined; a section over the target starts a new chunk", () => {
  const big = words(400, "w");
  const chunks = chunkNote(note(`intro line\n\n# One\n\nfirst\n\n## Two\n\nsecond\n\n# Three\n\n${big}`), "medium", hash);
  assert.equal(chunks[0]!.heading, "");
  assert.match(chunks[0]!.text, /intro line[\s\S]*# One[\s\S]*## Two[\s\S]*second/);
  assert.equal(chunks[1]!.heading, "Three");
  assert.ok(chunks[1]!.text.startsWith("Title\n# Three"));
  assert.deepEqual(chunks.map((chunk) => chunk.index), chunks.map((_, i) => i));
});

test("a long section is cut at word ends into pieces within the profile, each repeating the end of the one before", () => {
  const body = `# Long\n\n${words(800, "x")}`;
  for (const profile of ["short", "medium", "long"] as const) {
    const chunks = chunkNote(note(body), profile, hash);
    const sizes = CHUNK_PROFILES[profile];
    assert.ok(chunks.length >= Math.floor(body.length / sizes.target), `${profile}: ${chunks.length} chunks`);
    for (const chunk of chunks) {
      const text = chunk.text.replace(/^Title\n(Long\n)?/, "");
      assert.ok(text.length <= sizes.target, `${profile}: ${text.length}`);
      assert.match(text, /^(# Long|x\d+)/, "no piece starts inside a word");
    }
    for (let i = 1; i < chunks.length; i++) {
      const previousLast = chunks[i - 1]!.text.split(" ").pop()!;
      assert.ok(chunks[i]!.text.includes(` ${previousLast} `) || chunks[i]!.text.includes(`\n${previousLast} `), `${profile}: piece ${i} overlaps`);
    }
    assert.ok(chunks.slice(1).every((chunk) => chunk.heading === "Long" && chunk.text.startsWith("Title\nLong\n")));
  }
  assert.ok(chunkNote(note(body), "short", hash).length > chunkNote(note(body), "long", hash).length);
});

test("headings inside code fences do not cut", () => {
  const body = `# Real\n\n${words(200, "a")}\n\n\`\`\`sh\n# not a heading\n\`\`\`\n\n# Next\n\n${words(200, "b")}`;
  const headings = chunkNote(note(body), "medium", hash).map((chunk) => chunk.heading);
  assert.deepEqual([...new Set(headings)], ["Real", "Next"]);
});

test("ids are vault, path and index; hashes are of the text, so an edit in one section keeps the others' hashes", () => {
  const sectionA = `# A\n\n${words(200, "a")}`;
  const sectionB = `# B\n\n${words(200, "b")}`;
  const before = chunkNote(note(`${sectionA}\n\n${sectionB}`), "medium", hash);
  const after = chunkNote(note(`${sectionA}\n\n${sectionB.replace("b5 ", "changed ")}`), "medium", hash);
  assert.equal(before.length, 2);
  assert.deepEqual(before.map((chunk) => chunk.id), [chunkId("v", "a.md", 0), chunkId("v", "a.md", 1)]);
  assert.deepEqual(before.map((chunk) => chunk.id), after.map((chunk) => chunk.id));
  assert.equal(before[0]!.hash, after[0]!.hash);
  assert.notEqual(before[1]!.hash, after[1]!.hash);
  assert.deepEqual(chunkNote(note(`${sectionA}\n\n${sectionB}`), "medium", hash), before, "deterministic");
  assert.equal(before[0]!.hash, hash(before[0]!.text));
});

test("an empty body is one chunk holding the title", () => {
  const chunks = chunkNote(note("  \n"), "medium", hash);
  assert.equal(chunks.length, 1);
  assert.equal(chunks[0]!.text, "Title");
});
