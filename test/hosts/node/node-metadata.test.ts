import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { CachedMetadata } from "../../../src/core/notes/metadata";
import { encodeMetadata } from "../../../src/core/notes/metadata-codec";
import type { PackedMetadata } from "../../../src/core/ports";
import { encodeMetadataFile, pinnedBytes, readMetadataTable } from "../../../src/core/vault/metadata-file";
import { NodeMetadata } from "../../../src/hosts/node/node-metadata";
import { EDGE_VAULT, vaultFiles } from "../../support/vaults";

const INDEX = "wiki/index.md";
const ALPHA = "projects/alpha/plan.md";
const BETA = "projects/beta/plan.md";


/** setFiles without giving the event loop back. */
const noPause = async (): Promise<void> => undefined;
const edgeFiles = vaultFiles(EDGE_VAULT);
const edgeNotes = edgeFiles.filter((path) => path.endsWith(".md"));
const edgeTexts = new Map(edgeNotes.map((path) => [path, readFileSync(join(EDGE_VAULT, path), "utf8")]));

async function edgeMetadata(): Promise<NodeMetadata> {
  const metadata = new NodeMetadata();
  await metadata.setFiles(edgeFiles, noPause);
  for (const [path, text] of edgeTexts) metadata.update(path, text);
  return metadata;
}

test("getCache: parsed notes, {} for other known files, null for unseen paths", async () => {
  const metadata = await edgeMetadata();
  assert.equal(metadata.getCache(INDEX)?.headings?.[0]?.heading, "Index");
  assert.deepEqual(metadata.getCache("board.canvas"), {});
  assert.deepEqual(metadata.getCache("Attachments/diagram.png"), {});
  assert.equal(metadata.getCache("nope.md"), null);
  assert.equal(metadata.getCache(".trash/old.md"), null);
  assert.equal(metadata.getCache("wiki/bom-crlf.md")?.frontmatter?.["title"], "BOM and CRLF");
});

test("link maps on the edge vault count body links, embeds and frontmatter links", async () => {
  const metadata = await edgeMetadata();
  const resolved = metadata.resolvedLinks();
  const unresolved = metadata.unresolvedLinks();
  assert.deepEqual(Object.keys(resolved).sort(), edgeNotes);
  assert.deepEqual(Object.keys(unresolved).sort(), edgeNotes);
  // What wiki/index.md says its links reach: ten spellings of rate-limiting, two of alpha/plan, …
  assert.deepEqual(resolved[INDEX], {
    "wiki/rate-limiting.md": 10,
    [ALPHA]: 2,
    [BETA]: 1,
    "Attachments/diagram.png": 1,
    "projects/alpha/Team notes.md": 1,
    [INDEX]: 1,
    "Deutsch Notizen/Überlegungen.md": 1,
    "日本語/ノート.md": 1,
  });
  assert.deepEqual(unresolved[INDEX], { "does-not-exist": 1 });
  assert.deepEqual(resolved[ALPHA], { [BETA]: 1, [ALPHA]: 1 });
  assert.deepEqual(resolved["journal/2026/2026-01-05.md"], { [ALPHA]: 1 });
  assert.deepEqual(resolved["README.md"], { [INDEX]: 1 });
  assert.deepEqual(resolved["wiki/rate-limiting.md"], {}, "a link inside a code fence does not count");
  assert.deepEqual(resolved["archive/orphan.md"], {});
  assert.deepEqual(unresolved["archive/orphan.md"], {});
  assert.equal(resolved["board.canvas"], undefined);
});

test("the resolver's candidates are exposed best first", async () => {
  const metadata = await edgeMetadata();
  assert.deepEqual(metadata.getLinkpathCandidates("plan", INDEX), [BETA, ALPHA]);
  assert.equal(metadata.getFirstLinkpathDest("plan", ALPHA), ALPHA);
  assert.equal(metadata.getFirstLinkpathDest("does-not-exist", INDEX), null);
});

test("editing one note recomputes only that note", async () => {
  const metadata = await edgeMetadata();
  const before = metadata.resolvedLinks();
  const indexCache = metadata.getCache(INDEX);
  metadata.update("README.md", "Now [[plan]] and [[plan]] and [[nowhere]].");
  const after = metadata.resolvedLinks();
  assert.notEqual(after, before);
  assert.deepEqual(after["README.md"], { [BETA]: 2 });
  assert.deepEqual(metadata.unresolvedLinks()["README.md"], { nowhere: 1 });
  for (const path of edgeNotes.filter((note) => note !== "README.md")) {
    assert.equal(after[path], before[path], `${path} was recomputed`);
  }
  assert.equal(metadata.getCache(INDEX), indexCache, "other notes are not re-parsed");
  assert.deepEqual(before["README.md"], { [INDEX]: 1 }, "an earlier snapshot does not change");
});

test("a note created later resolves the broken links that named it", async () => {
  const metadata = await edgeMetadata();
  const before = metadata.resolvedLinks();
  metadata.update("inbox/Does-Not-Exist.md", "# Now it does");
  assert.equal(metadata.resolvedLinks()[INDEX]?.["inbox/Does-Not-Exist.md"], 1);
  assert.deepEqual(metadata.unresolvedLinks()[INDEX], {});
  assert.deepEqual(metadata.resolvedLinks()["inbox/Does-Not-Exist.md"], {});
  assert.equal(metadata.resolvedLinks()[ALPHA], before[ALPHA], "notes not naming it keep their entry");
});

test("a new file in the linking note's folder takes over a shared name", async () => {
  const metadata = await edgeMetadata();
  metadata.update("wiki/plan.md", "");
  const resolved = metadata.resolvedLinks();
  assert.equal(resolved[INDEX]?.["wiki/plan.md"], 1);
  assert.equal(resolved[INDEX]?.[BETA], undefined);
  assert.deepEqual(resolved[ALPHA], { [BETA]: 1, [ALPHA]: 1 });
});

test("attachments count as destinations once they exist", async () => {
  const metadata = await edgeMetadata();
  metadata.update("README.md", "![[chart.png]]");
  assert.deepEqual(metadata.unresolvedLinks()["README.md"], { "chart.png": 1 });
  metadata.update("Attachments/chart.png", "");
  assert.deepEqual(metadata.resolvedLinks()["README.md"], { "Attachments/chart.png": 1 });
  assert.deepEqual(metadata.getCache("Attachments/chart.png"), {});
  assert.equal(metadata.resolvedLinks()["Attachments/chart.png"], undefined);
});

test("removing a note drops its entry and re-resolves only the notes that named it", async () => {
  const metadata = await edgeMetadata();
  const before = metadata.resolvedLinks();
  metadata.remove(BETA);
  const resolved = metadata.resolvedLinks();
  assert.equal(resolved[BETA], undefined);
  assert.equal(metadata.getCache(BETA), null);
  assert.deepEqual(resolved[ALPHA], { [ALPHA]: 1 });
  assert.deepEqual(metadata.unresolvedLinks()[ALPHA], { "projects/beta/plan": 1 });
  assert.equal(resolved[INDEX]?.[ALPHA], 3, "[[plan]] now reaches the other plan");
  assert.equal(resolved["README.md"], before["README.md"]);
  assert.equal(resolved["wiki/rate-limiting.md"], before["wiki/rate-limiting.md"]);
});

test("a burst of creates and deletes is settled when the maps are next read", async () => {
  const metadata = await edgeMetadata();
  metadata.update("a/does-not-exist.md", "");
  metadata.update("b/Überlegungen.md", "");
  metadata.remove("a/does-not-exist.md");
  metadata.remove("Deutsch Notizen/Überlegungen.md");
  metadata.update("c/does-not-exist.md", "");
  const resolved = metadata.resolvedLinks()[INDEX] ?? {};
  assert.equal(resolved["c/does-not-exist.md"], 1);
  assert.equal(resolved["b/Überlegungen.md"], 1);
  assert.equal(resolved["a/does-not-exist.md"], undefined);
  assert.equal(resolved["Deutsch Notizen/Überlegungen.md"], undefined);
});

test("setFiles replaces the file set and forgets notes that left it", async () => {
  const metadata = await edgeMetadata();
  await metadata.setFiles(edgeFiles.filter((path) => path !== INDEX), noPause);
  assert.equal(metadata.getCache(INDEX), null);
  assert.equal(metadata.resolvedLinks()[INDEX], undefined);
  await metadata.setFiles(edgeFiles, noPause);
  assert.equal(metadata.getCache(INDEX), null, "re-listing a note does not bring back its old parse");
  assert.deepEqual(metadata.resolvedLinks()[INDEX], {});
  assert.deepEqual(metadata.resolvedLinks()["README.md"], { [INDEX]: 1 }, "a listed note is a destination unparsed");
});

test("addFile makes an attachment a destination without parsing it", async () => {
  const metadata = await edgeMetadata();
  metadata.update("README.md", "![[chart.png]]");
  assert.deepEqual(metadata.unresolvedLinks()["README.md"], { "chart.png": 1 });
  metadata.addFile("Attachments/chart.png");
  metadata.addFile("Attachments/chart.png");
  assert.deepEqual(metadata.resolvedLinks()["README.md"], { "Attachments/chart.png": 1 });
  assert.deepEqual(metadata.getCache("Attachments/chart.png"), {});
});

/** Many files under a folder, each a note linking to the next one's name. */
function manyNotes(count: number): { paths: string[]; texts: Map<string, string> } {
  const paths = Array.from({ length: count }, (_, i) => `many/n${i}.md`);
  return { paths, texts: new Map(paths.map((path, i) => [path, `[[n${(i + 1) % count}]]`])) };
}

test("setFiles on many files pauses between stretches, resolving against the old set until it ends", async () => {
  const { paths, texts } = manyNotes(5000);
  const metadata = new NodeMetadata();
  await metadata.setFiles(paths, noPause);
  for (const [path, text] of texts) metadata.update(path, text);
  const next = [...paths.filter((path) => path !== "many/n1.md"), "many/extra.png"];
  let pauses = 0;
  const seenDuring: (number | undefined)[] = [];
  const done = metadata.setFiles(next, async () => {
    pauses += 1;
    if (pauses === 1) {
      seenDuring.push(metadata.resolvedLinks()["many/n0.md"]?.["many/n1.md"]);
      metadata.update("many/late.md", "[[extra.png]]");
      metadata.remove("many/n2.md");
    }
    await new Promise((resolve) => setImmediate(resolve));
  });
  await done;
  assert.ok(pauses >= 2, `${pauses} pauses`);
  assert.deepEqual(seenDuring, [1], "during the build, n1 still counted as a file");
  const resolved = metadata.resolvedLinks();
  assert.deepEqual(resolved["many/n0.md"], {}, "n1 left the file set");
  assert.deepEqual(metadata.unresolvedLinks()["many/n0.md"], { n1: 1 });
  assert.equal(resolved["many/n1.md"], undefined);
  assert.deepEqual(resolved["many/late.md"], { "many/extra.png": 1 }, "a note added meanwhile stays, and so does the listed attachment");
  assert.equal(resolved["many/n2.md"], undefined, "a note removed meanwhile stays removed");
  assert.deepEqual(metadata.unresolvedLinks()["many/n1.md"], undefined);
  assert.deepEqual(resolved["many/n3.md"], { "many/n4.md": 1 });
});

test("prepareLinks builds the link maps too, between pauses, and an edit meanwhile is not lost", async () => {
  const { paths, texts } = manyNotes(5000);
  const build = async (): Promise<NodeMetadata> => {
    const metadata = new NodeMetadata();
    await metadata.setFiles(paths, noPause);
    for (const [path, text] of texts) metadata.update(path, text);
    return metadata;
  };
  const expected = (await build()).resolvedLinks();
  const prepared = await build();
  let pauses = 0;
  await prepared.prepareLinks(async () => void (pauses += 1));
  assert.ok(pauses >= 2 * Math.floor(5000 / 256), `${pauses} pauses: the links, then the maps`);
  assert.deepEqual(prepared.resolvedLinks(), expected);
  const edited = await build();
  let seen = 0;
  await edited.prepareLinks(async () => {
    if (++seen === pauses - 3) edited.update("many/n0.md", "[[n7]]");
  });
  assert.deepEqual(edited.resolvedLinks()["many/n0.md"], { "many/n7.md": 1 }, "the edit made during the maps' build shows");
  assert.deepEqual(edited.resolvedLinks()["many/n5.md"], { "many/n6.md": 1 });
});

test("a note's link counts read as ordinary objects, in the order the links were first met", async () => {
  const metadata = await edgeMetadata();
  metadata.update("README.md", "[[wiki/index]] [[Attachments/diagram.png]] [[missing]] [[wiki/index]] [[gone]]");
  const resolved = metadata.resolvedLinks()["README.md"]!;
  const unresolved = metadata.unresolvedLinks()["README.md"]!;
  assert.equal(Object.getPrototypeOf(resolved), Object.prototype);
  assert.equal(Object.getPrototypeOf(unresolved), Object.prototype);
  assert.ok("hasOwnProperty" in resolved, "it inherits what an object literal does");
  assert.deepEqual(Object.entries(resolved), [[INDEX, 2], ["Attachments/diagram.png", 1]]);
  assert.deepEqual(Object.keys(unresolved), ["missing", "gone"]);
  assert.equal(JSON.stringify(unresolved), '{"missing":1,"gone":1}');
  assert.ok(Object.isFrozen(resolved));
});

test("a setFiles that a later one overtook does not take over", async () => {
  const { paths, texts } = manyNotes(5000);
  const metadata = new NodeMetadata();
  await metadata.setFiles(paths, noPause);
  for (const [path, text] of texts) metadata.update(path, text);
  let release = (): void => undefined;
  const overtaken = metadata.setFiles(paths, () => new Promise<void>((resolve) => (release = resolve)));
  const later = metadata.setFiles(["many/n0.md", "many/n1.md"], noPause);
  release();
  await Promise.all([overtaken, later]);
  assert.deepEqual(metadata.resolvedLinks(), { "many/n0.md": { "many/n1.md": 1 }, "many/n1.md": {} });
});

test("frontmatter values shaped like positions are left alone by the export", async () => {
  const metadata = new NodeMetadata();
  await metadata.setFiles(["n.md"], noPause);
  const text = "---\nposition:\n  start: {line: 1, col: 2, offset: 3}\n  end: {line: 4, col: 5, offset: 6}\nlist: [1, 2, 3, 4, 5, 6]\n---\nbody";
  metadata.update("n.md", text);
  const restored = new NodeMetadata();
  await restored.setFiles(["n.md"], noPause);
  restored.importNote("n.md", metadata.exportNote("n.md")!);
  assert.deepEqual(restored.getCache("n.md"), metadata.getCache("n.md"));
  assert.deepEqual(restored.getCache("n.md")?.frontmatter?.["list"], [1, 2, 3, 4, 5, 6]);
});

test("decoded caches are kept for the notes read last only, and read back equal", async () => {
  const metadata = new NodeMetadata();
  const paths = Array.from({ length: 600 }, (_, i) => `n/${i}.md`);
  await metadata.setFiles(paths, noPause);
  for (const path of paths) metadata.update(path, `# ${path}\n\n- [ ] task of ${path}\n`);
  const first = metadata.getCache(paths[0]!);
  assert.equal(metadata.getCache(paths[0]!), first, "read again right away: the same object");
  for (const path of paths) metadata.getCache(path);
  const again = metadata.getCache(paths[0]!);
  assert.notEqual(again, first, "decoded anew once hundreds of others were read since");
  assert.deepEqual(again, first);
  metadata.update(paths[0]!, "# changed\n");
  assert.equal(metadata.getCache(paths[0]!)?.headings?.[0]?.heading, "changed", "an update replaces the kept cache");
});

function notACache(): Uint8Array {
  return encodeMetadata({ links: "x" } as unknown as CachedMetadata);
}

test("a packed cache that does not decode reads as an unparsed note, and is exported as it came", async () => {
  const metadata = new NodeMetadata();
  await metadata.setFiles(["a.md", "b.md"], noPause);
  const truncated = encodeMetadata({ headings: [{ heading: "H", level: 1, position: { start: { line: 0, col: 0, offset: 0 }, end: { line: 0, col: 3, offset: 3 } } }] }).subarray(0, 5);
  metadata.importNote("a.md", { links: ["b"], packed: truncated });
  metadata.importNote("b.md", { links: [], packed: notACache() });
  assert.equal(metadata.getCache("a.md"), null);
  assert.equal(metadata.getCache("b.md"), null);
  assert.deepEqual(metadata.resolvedLinks()["a.md"], { "b.md": 1 });
  assert.deepEqual(metadata.exportNote("a.md")?.packed, truncated, "a restart reads it as unparsed too");
});

function exportedNotes(metadata: NodeMetadata): Map<string, PackedMetadata> {
  const notes = new Map<string, PackedMetadata>();
  for (const path of edgeFiles) {
    const note = metadata.exportNote(path);
    if (note) notes.set(path, note);
  }
  return notes;
}

test("notes exported one by one restore caches and link maps without parsing", async () => {
  const original = await edgeMetadata();
  const notes = exportedNotes(original);
  assert.deepEqual([...notes.keys()], edgeNotes, "every note, and only notes");
  const restored = new NodeMetadata();
  await restored.setFiles(edgeFiles, noPause);
  for (const [path, note] of notes) restored.importNote(path, { links: [...note.links], packed: note.packed.slice() });
  assert.deepEqual(restored.resolvedLinks(), original.resolvedLinks());
  assert.deepEqual(restored.unresolvedLinks(), original.unresolvedLinks());
  const fresh = await edgeMetadata();
  for (const path of edgeNotes) {
    assert.deepEqual(restored.getCache(path), fresh.getCache(path), path);
    assert.equal(JSON.stringify(restored.getCache(path)), JSON.stringify(fresh.getCache(path)), `${path} key order`);
    assert.deepEqual(original.getCache(path), fresh.getCache(path), `${path} after its export, from memory`);
  }
  assert.deepEqual(restored.exportNote(INDEX)?.links, notes.get(INDEX)?.links, "a decoded note exports again");
  restored.update("README.md", "[[plan]]");
  assert.deepEqual(restored.resolvedLinks()["README.md"], { [BETA]: 1 });
});

test("exportNote: null for unknown paths and files that are not notes; packing once is enough", async () => {
  const metadata = await edgeMetadata();
  assert.equal(metadata.exportNote("nope.md"), null);
  assert.equal(metadata.exportNote("board.canvas"), null);
  assert.equal(metadata.exportNote(".trash/old.md"), null);
  const first = metadata.exportNote(INDEX);
  assert.ok(first);
  assert.equal(metadata.exportNote(INDEX)?.packed, first.packed, "the packed form is kept, not packed again");
  metadata.getCache(INDEX);
  assert.equal(metadata.exportNote(INDEX)?.packed, first.packed, "reading the cache does not unpack the note");
  assert.ok(first.links.includes("does-not-exist"));
  await metadata.setFiles(edgeFiles.filter((path) => path !== INDEX), noPause);
  assert.equal(metadata.exportNote(INDEX), null, "a note that left the file set");
});

test("importNote replaces a known note, ignores paths that are not notes, and reads a bad cache as null", async () => {
  const metadata = await edgeMetadata();
  const readme = metadata.exportNote("README.md");
  assert.ok(readme);
  metadata.importNote(INDEX, readme);
  assert.deepEqual(metadata.resolvedLinks()[INDEX], { [INDEX]: 1 }, "INDEX now has README's links");
  assert.deepEqual(metadata.getCache(INDEX), (await edgeMetadata()).getCache("README.md"));
  metadata.importNote("board.canvas", readme);
  assert.deepEqual(metadata.getCache("board.canvas"), {});
  metadata.importNote(ALPHA, { links: ["plan"], packed: notACache() });
  assert.equal(metadata.getCache(ALPHA), null);
  assert.deepEqual(metadata.resolvedLinks()[ALPHA], { [ALPHA]: 1 }, "its links still count");
});

test("a note stored in a metadata file is read from it; moved there only if unchanged since its export", async () => {
  const text = "# Title\n\nSee [[Other]].\n";
  const metadata = new NodeMetadata();
  await metadata.setFiles(["a.md", "b.md", "Other.md"], noPause);
  metadata.update("a.md", text);
  metadata.update("b.md", "# B\n");
  const exportedA = metadata.exportNote("a.md")!;
  const exportedB = metadata.exportNote("b.md")!;
  const file = pinnedBytes(joinedParts(await encodeMetadataFile(3, [{ position: 0, bytes: exportedA.packed }, { position: 1, bytes: exportedB.packed }], noPause)));
  const table = readMetadataTable(file, 3, 2)!;
  metadata.update("b.md", "# B changed\n");
  metadata.importStored("a.md", exportedA.links, table.get(0)!, exportedA);
  metadata.importStored("b.md", exportedB.links, table.get(1)!, exportedB);
  assert.deepEqual(metadata.getCache("a.md")?.headings?.map((heading) => heading.heading), ["Title"]);
  assert.deepEqual(metadata.getCache("b.md")?.headings?.map((heading) => heading.heading), ["B changed"], "b changed after its export: not moved");
  assert.deepEqual(metadata.resolvedLinks()["a.md"], { "Other.md": 1 });
  // Once the file is let go, a stored note with nothing else to read from reads as unparsed.
  const bare = new NodeMetadata();
  await bare.setFiles(["a.md"], noPause);
  bare.importStored("a.md", exportedA.links, table.get(0)!);
  assert.deepEqual(bare.exportNote("a.md")?.packed, exportedA.packed, "the export reads the stored bytes");
  file.release();
  assert.equal(bare.getCache("a.md"), null);
  const reparsing = new NodeMetadata({ readNote: (path) => (path === "a.md" ? text : null) });
  await reparsing.setFiles(["a.md"], noPause);
  reparsing.importStored("a.md", exportedA.links, null);
  assert.deepEqual(reparsing.getCache("a.md")?.headings?.map((heading) => heading.heading), ["Title"], "parsed from the note");
  assert.deepEqual(reparsing.resolvedLinks()["a.md"], {}, "Other.md is not a file of this set");
});

function joinedParts(parts: readonly Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}
