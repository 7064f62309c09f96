// Names saved in another Unicode form than NFC (macOS writes NFD): the vault shows them by their NFC
// spelling, tools address them by it, and writes go back to the file under its own name on disk,
// never to a second, identical-looking file.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startTestServer, type TestServer } from "../support/server";
import { EDGE_VAULT } from "../support/vaults";
import { within } from "../support/poll";

const NOTE = "Café.md";
const FOLDER = "Übersicht";
const NESTED = `${FOLDER}/Grüße.md`;
const nfd = (name: string): string => name.normalize("NFD");

let server: TestServer;
before(async () => {
  server = await startTestServer({ fixture: EDGE_VAULT });
  const dir = server.vault.dir;
  writeFileSync(path.join(dir, nfd(NOTE)), "# Café\n\nEspresso with quinoacrumbs.\n");
  mkdirSync(path.join(dir, nfd(FOLDER)));
  writeFileSync(path.join(dir, nfd(FOLDER), nfd("Grüße.md")), "# Grüße\n\nGreetings from the marmotvalley.\n");
  await server.server.hosts[0]!.engine.reconcile();
});
after(async () => server.stop());

/** The names on disk in a folder of the vault, exactly as stored. */
function onDisk(folder = ""): string[] {
  return readdirSync(path.join(server.vault.dir, folder)).filter((name) => !name.startsWith("."));
}

function assertOneSpelling(folder: string, name: string): void {
  const twins = onDisk(folder).filter((entry) => entry.normalize("NFC") === name);
  assert.deepEqual(twins, [nfd(name)], `${name} stays one file, under its NFD name`);
}

test("an NFD note and an NFD folder are listed and found by their NFC paths", async () => {
  const listed = await server.call("note_list", { limit: 1000 });
  const paths = (listed.structured.entries as Array<{ path: string }>).map((entry) => entry.path);
  assert.ok(paths.includes(NOTE), JSON.stringify(paths));
  assert.ok(paths.includes(NESTED), JSON.stringify(paths));
  const inFolder = await server.call("note_list", { prefix: FOLDER });
  assert.deepEqual((inFolder.structured.entries as Array<{ path: string }>).map((entry) => entry.path), [NESTED]);
  for (const [query, expected] of [["quinoacrumbs", NOTE], ["marmotvalley", NESTED]] as const) {
    const found = await server.call("note_search", { query });
    assert.deepEqual((found.structured.hits as Array<{ path: string }>).map((hit) => hit.path), [expected], query);
  }
});

test("note_read by the NFC path (and by the NFD spelling) reads the NFD file", async () => {
  const read = await server.call("note_read", { path: NOTE });
  assert.equal(read.isError, false, read.text);
  assert.match(String(read.structured.content), /quinoacrumbs/);
  assert.equal(read.structured.path, NOTE);
  const typedNfd = await server.call("note_read", { path: nfd(NESTED) });
  assert.equal(typedNfd.isError, false, typedNfd.text);
  assert.equal(typedNfd.structured.path, NESTED);
});

test("note_edit by the NFC path writes the NFD file, under its own name", async () => {
  const edited = await server.call("note_edit", { path: NOTE, old_string: "Espresso", new_string: "Ristretto", reason: "stronger" });
  assert.equal(edited.isError, false, edited.text);
  assert.match(readFileSync(path.join(server.vault.dir, nfd(NOTE)), "utf8"), /Ristretto with quinoacrumbs/);
  assertOneSpelling("", NOTE);
  const nested = await server.call("note_edit", { path: NESTED, old_string: "Greetings", new_string: "Regards" });
  assert.equal(nested.isError, false, nested.text);
  assert.match(readFileSync(path.join(server.vault.dir, nfd(FOLDER), nfd("Grüße.md")), "utf8"), /Regards from/);
  assertOneSpelling("", FOLDER);
  assertOneSpelling(nfd(FOLDER), "Grüße.md");
});

test("note_create of the NFC name refuses as existing; create: true writes to the NFD note", async () => {
  const created = await server.call("note_create", { path: NOTE, content: "A second café.\n" });
  assert.equal(created.isError, true, created.text);
  assert.match(created.text, /exist/);
  const upsert = await server.call("note_section_edit", { path: NOTE, mode: "append_to_note", content: "Appended once.", create: true, reason: "more" });
  assert.equal(upsert.isError, false, upsert.text);
  assert.equal(upsert.structured.created, false);
  assert.match(readFileSync(path.join(server.vault.dir, nfd(NOTE)), "utf8"), /Appended once\./);
  assertOneSpelling("", NOTE);
  const listed = await server.call("note_list", { limit: 1000 });
  assert.equal((listed.structured.entries as Array<{ path: string }>).filter((entry) => entry.path === NOTE).length, 1);
});

test("a new note in an NFD folder goes into that folder, not into an NFC twin of it", async () => {
  const created = await server.call("note_create", { path: `${FOLDER}/Neu.md`, content: "New in the folder.\n" });
  assert.equal(created.isError, false, created.text);
  assertOneSpelling("", FOLDER);
  assert.ok(onDisk(nfd(FOLDER)).includes("Neu.md"));
  const read = await server.call("note_read", { path: `${FOLDER}/Neu.md` });
  assert.equal(read.isError, false, read.text);
});

test("an NFD note saved by another program after the start is found by its NFC path at once, and indexed from the watcher's report", async () => {
  writeFileSync(path.join(server.vault.dir, nfd("Ärger.md")), "# Ärger\n\nTrouble with the zebrafinch.\n");
  const read = await server.call("note_read", { path: "Ärger.md" });
  assert.equal(read.isError, false, read.text);
  assert.match(String(read.structured.content), /zebrafinch/);
  const created = await server.call("note_create", { path: "Ärger", content: "Twin.\n" });
  assert.equal(created.isError, true, created.text);
  assertOneSpelling("", "Ärger.md");
  await within(5000, "searchable", async () => {
    const found = await server.call("note_search", { query: "zebrafinch" });
    return (found.structured.hits as Array<{ path: string }>).some((hit) => hit.path === "Ärger.md");
  }, 50);
});

test("the history records the NFD note under its NFC path, not as deleted", async () => {
  await server.server.historyIdle();
  const history = await server.call("note_history", { path: NOTE });
  assert.equal(history.isError, false, history.text);
  const revisions = history.structured.revisions as Array<{ id: string }>;
  assert.ok(revisions.length >= 2, JSON.stringify(history.structured));
  const diff = await server.call("note_diff", { path: NOTE, from: revisions[revisions.length - 1]!.id });
  assert.equal(diff.isError, false, diff.text);
  assert.match(diff.text, /Appended once/);
  assert.doesNotMatch(diff.text, /deleted/i);
});
