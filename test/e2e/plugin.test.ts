// The built main.js in the Obsidian stand-in, driven over HTTP by the official SDK client: reads and
// writes work, every note write goes through Vault.process, structure comes from metadataCache, and
// unloading frees the port.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { localDate } from "../../src/core/write/write-path";
import { EDGE_VAULT, tempVault } from "../support/vaults";
import { REPO_ROOT, startPlugin } from "../support/plugin";
import { callTool } from "../support/server";
import { chooseSuggestion, openModals, suggestions } from "../obsidian-stand-in/ui/modal";

test("npm run build leaves main.js, manifest.json and styles.css at the root, installable as a plugin", () => {
  for (const name of ["main.js", "manifest.json", "styles.css"]) assert.ok(existsSync(path.join(REPO_ROOT, name)), name);
  const code = readFileSync(path.join(REPO_ROOT, "main.js"), "utf8");
  assert.match(code, /require\("obsidian"\)/);
  const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, "manifest.json"), "utf8")) as { id: string; isDesktopOnly: boolean };
  assert.equal(manifest.id, "secondbrain-mcp");
  assert.equal(manifest.isDesktopOnly, true);
});

test("read tools answer from the plugin, with structure from metadataCache", async () => {
  const harness = await startPlugin({ fixture: EDGE_VAULT });
  try {
    const { app } = harness;
    const list = await harness.call("vault_list");
    assert.equal(list.isError, false, list.text);
    assert.equal((list.structured.vaults as Array<{ name: string }>)[0]!.name, "default");

    const read = await harness.call("note_read", { path: "wiki/index.md" });
    assert.equal(read.isError, false, read.text);
    assert.equal(read.structured.path, "wiki/index.md");

    const before = app.metadataCache.calls.getFileCache ?? 0;
    const outline = await harness.call("note_outline", { path: "wiki/rate-limiting.md" });
    assert.equal(outline.isError, false, outline.text);
    const file = app.vault.getFileByPath("wiki/rate-limiting.md")!;
    const cached = app.metadataCache.getFileCache(file)!;
    const headings = (outline.structured.headings as Array<{ heading: string }>).map((heading) => heading.heading);
    assert.deepEqual(headings, (cached.headings ?? []).map((heading) => heading.heading));
    assert.ok((app.metadataCache.calls.getFileCache ?? 0) > before, "the outline asked metadataCache");

    const backlinks = await harness.call("note_backlinks", { path: "wiki/rate-limiting.md" });
    assert.equal(backlinks.isError, false, backlinks.text);
    const sources = (backlinks.structured.incoming as Array<{ path: string }>).map((entry) => entry.path);
    assert.ok(sources.includes("wiki/index.md"), JSON.stringify(backlinks.structured));

    const search = await harness.call("note_search", { query: "token bucket" });
    assert.equal(search.isError, false, search.text);
    assert.ok((search.structured.hits as Array<{ path: string }>).some((hit) => hit.path === "wiki/rate-limiting.md"));
  } finally {
    await harness.stop();
  }
});

test("every note write goes through Vault.process (or create for a new note), and fresh metadata follows", async () => {
  const harness = await startPlugin({ fixture: EDGE_VAULT });
  try {
    const { app } = harness;
    const processBefore = app.vault.calls.process ?? 0;
    const created = await harness.call("note_create", { path: "wiki/new-topic.md", content: "# New topic\n\nSee [[rate-limiting]].\n" });
    assert.equal(created.isError, false, created.text);
    assert.equal(app.vault.calls.create, 1);
    assert.ok(existsSync(path.join(harness.vault.dir, "wiki/new-topic.md")));

    const edited = await harness.call("note_edit", {
      path: "wiki/new-topic.md",
      content_hash: created.structured.content_hash,
      old_string: "See [[rate-limiting]].",
      new_string: "See [[rate-limiting]].\n\n## Added section\n\nMore.",
    });
    assert.equal(edited.isError, false, edited.text);
    const appended = await harness.call("note_section_edit", { path: "wiki/new-topic.md", heading: "Added section", mode: "append_to_section", content: "Even more." });
    assert.equal(appended.isError, false, appended.text);
    assert.equal((app.vault.calls.process ?? 0) - processBefore, 2, "two updates, two process() calls");
    assert.equal(app.vault.calls.modify ?? 0, 0, "nothing wrote through modify()");

    // The result of a tool right after a write reflects the new structure (metadataCache re-parsed).
    const outline = await harness.call("note_outline", { path: "wiki/new-topic.md" });
    const headings = (outline.structured.headings as Array<{ heading: string }>).map((heading) => heading.heading);
    assert.deepEqual(headings, ["New topic", "Added section"]);
    const backlinks = await harness.call("note_backlinks", { path: "wiki/rate-limiting.md" });
    assert.ok((backlinks.structured.incoming as Array<{ path: string }>).some((entry) => entry.path === "wiki/new-topic.md"));

    // A stale hash is refused inside the write path; the file keeps its bytes.
    const text = readFileSync(path.join(harness.vault.dir, "wiki/new-topic.md"), "utf8");
    const stale = await harness.call("note_edit", { path: "wiki/new-topic.md", content_hash: created.structured.content_hash, old_string: "More.", new_string: "Less." });
    assert.equal(stale.isError, true);
    assert.equal((stale.structured.error as { code: string }).code, "conflict");
    assert.equal(readFileSync(path.join(harness.vault.dir, "wiki/new-topic.md"), "utf8"), text);

    // An edit made in the editor (outside the server) reaches the index through the vault's events.
    await app.vault.process(app.vault.getFileByPath("wiki/new-topic.md")!, (data) => `${data}\nquetzalcoatl\n`);
    await app.metadataCache.whenIdle();
    let found = false;
    for (let attempt = 0; attempt < 50 && !found; attempt++) {
      const search = await harness.call("note_search", { query: "quetzalcoatl" });
      found = (search.structured.hits as Array<{ path: string }>).some((hit) => hit.path === "wiki/new-topic.md");
      if (!found) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(found, "the editor's change is searchable");

    const deleted = await harness.call("note_delete", { path: "wiki/new-topic.md", content_hash: (await harness.call("note_read", { path: "wiki/new-topic.md" })).structured.content_hash });
    assert.equal(deleted.isError, false, deleted.text);
    assert.equal(app.vault.getFileByPath("wiki/new-topic.md"), null);
    assert.ok(typeof deleted.structured.trash === "string");
  } finally {
    await harness.stop();
  }
});

test("the restore command puts back an earlier version through the write path, with a trash copy of the state it replaces", async () => {
  const harness = await startPlugin({ fixture: EDGE_VAULT });
  try {
    const { app } = harness;
    const onDisk = (): string => readFileSync(path.join(harness.vault.dir, "wiki/versions.md"), "utf8");
    const first = await harness.call("note_create", { path: "wiki/versions.md", content: "version one\n" });
    assert.equal(first.isError, false, first.text);
    const versionOne = onDisk();
    const second = await harness.call("note_write", { path: "wiki/versions.md", content: "version two\n", content_hash: first.structured.content_hash });
    assert.equal(second.isError, false, second.text);
    const third = await harness.call("note_write", { path: "wiki/versions.md", content: "version three\n", content_hash: second.structured.content_hash });
    assert.equal(third.isError, false, third.text);
    const versionThree = onDisk();

    const file = app.vault.getFileByPath("wiki/versions.md")!;
    await app.workspace.getLeaf(false).openFile(file);
    const commandId = "secondbrain-mcp:restore-note-version";
    assert.equal(app.commands.isAvailable(commandId), true);
    const modalsBefore = openModals.length;
    assert.equal(app.commands.executeCommandById(commandId), true);
    for (let attempt = 0; attempt < 50 && openModals.length === modalsBefore; attempt++) await new Promise((resolve) => setTimeout(resolve, 20));
    const modal = openModals[openModals.length - 1]!;
    const listed = suggestions(modal as never);
    const texts = listed.map((entry) => entry.el.textContent ?? "");
    // Two trash copies (versions one and two) and two recorded versions (the create and the first write);
    // the newest recorded version is the note as it is and is not offered.
    const trashCopies = texts.flatMap((text, index) => (text.includes("Before a change") ? [index] : []));
    assert.equal(trashCopies.length, 2, texts.join(" | "));
    assert.equal(texts.filter((text) => / note_(create|write): wiki\/versions\.md/.test(text)).length, 2, texts.join(" | "));
    const processBefore = app.vault.calls.process ?? 0;
    // Newest first: the older trash copy is "version one".
    await chooseSuggestion(modal as never, trashCopies[1]!);
    let text = "";
    for (let attempt = 0; attempt < 50; attempt++) {
      text = onDisk();
      if (text === versionOne) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(text, versionOne);
    assert.equal((app.vault.calls.process ?? 0) - processBefore, 1, "restored through Vault.process");
    const trashDir = path.join(harness.vault.dir, ".trash/secondbrain");
    const copies = readdirSync(trashDir)
      .filter((name) => name.endsWith("wiki__versions.md"))
      .map((name) => readFileSync(path.join(trashDir, name), "utf8"));
    assert.equal(copies.length, 3);
    assert.ok(copies.includes(versionThree), "the replaced state has its own trash copy");
  } finally {
    await harness.stop();
  }
});

test("with history on, the restore command also offers recorded versions and restores their exact bytes", async () => {
  const harness = await startPlugin({ fixture: EDGE_VAULT });
  try {
    const { app } = harness;
    const onDisk = (): string => readFileSync(path.join(harness.vault.dir, "wiki/recorded.md"), "utf8");
    const client = await harness.connect(harness.token, "Claude Code");
    const first = await callTool(client, "note_create", { path: "wiki/recorded.md", content: "recorded one\n", reason: "first version" });
    assert.equal(first.isError, false, first.text);
    const versionOne = onDisk();
    const second = await callTool(client, "note_write", { path: "wiki/recorded.md", content: "recorded two\n", content_hash: first.structured.content_hash, reason: "second version" });
    assert.equal(second.isError, false, second.text);

    const history = await callTool(client, "note_history", { path: "wiki/recorded.md" });
    const revisions = history.structured.revisions as Array<{ message: string; via?: string }>;
    assert.deepEqual(revisions.map((revision) => revision.message), ["note_write: wiki/recorded.md", "note_create: wiki/recorded.md"]);
    assert.equal(revisions[0]!.via, "Claude Code");
    // The history sits in the plugin folder, not in a .git of the vault.
    assert.ok(existsSync(path.join(harness.vault.dir, harness.pluginDir, "history/default.git/HEAD")));
    assert.equal(existsSync(path.join(harness.vault.dir, ".git")), false);

    await app.workspace.getLeaf(false).openFile(app.vault.getFileByPath("wiki/recorded.md")!);
    const modalsBefore = openModals.length;
    assert.equal(app.commands.executeCommandById("secondbrain-mcp:restore-note-version"), true);
    for (let attempt = 0; attempt < 50 && openModals.length === modalsBefore; attempt++) await new Promise((resolve) => setTimeout(resolve, 20));
    const modal = openModals[openModals.length - 1]!;
    const listed = suggestions(modal as never);
    const texts = listed.map((entry) => entry.el.textContent ?? "");
    // One trash copy (of version one, replaced by the write) and one recorded version (the create);
    // the newest recorded version equals the note as it is and is not offered.
    assert.equal(listed.length, 2, texts.join(" | "));
    const recorded = texts.findIndex((text) => text.includes("note_create: wiki/recorded.md"));
    assert.ok(recorded >= 0, texts.join(" | "));
    await chooseSuggestion(modal as never, recorded);
    for (let attempt = 0; attempt < 50 && onDisk() !== versionOne; attempt++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(onDisk(), versionOne);
    let newest: Array<{ message: string }> = [];
    for (let attempt = 0; attempt < 50; attempt++) {
      newest = (await callTool(client, "note_history", { path: "wiki/recorded.md", limit: 1 })).structured.revisions as Array<{ message: string }>;
      if (newest[0]?.message.startsWith("note_restore")) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(newest[0]!.message, "note_restore(history): wiki/recorded.md");
  } finally {
    await harness.stop();
  }
});

test("in the plugin too, every tool write is its own revision, a reason its body", async () => {
  const harness = await startPlugin({ fixture: EDGE_VAULT });
  try {
    const client = await harness.connect(harness.token, "Plain Writer");
    const created = await callTool(client, "note_create", { path: "wiki/plain.md", content: "# Plain\n\nfirst\n" });
    assert.equal(created.isError, false, created.text);
    const edited = await callTool(client, "note_edit", { path: "wiki/plain.md", old_string: "first", new_string: "second", content_hash: created.structured.content_hash });
    assert.equal(edited.isError, false, edited.text);
    const appended = await callTool(client, "note_section_edit", { path: "wiki/plain.md", heading: "Plain", mode: "append_to_section", content: "third", reason: "one more line" });
    assert.equal(appended.isError, false, appended.text);
    const revisions = (await callTool(client, "note_history", { path: "wiki/plain.md" })).structured.revisions as Array<{ message: string; reason?: string; via?: string }>;
    assert.deepEqual(
      revisions.map((revision) => [revision.message, revision.reason ?? null, revision.via]),
      [
        ["note_section_edit(append_to_section): wiki/plain.md", "one more line", "Plain Writer"],
        ["note_edit: wiki/plain.md", null, "Plain Writer"],
        ["note_create: wiki/plain.md", null, "Plain Writer"],
      ],
    );
  } finally {
    await harness.stop();
  }
});

test("a created added to an existing note is the file's own date from TFile.stat, not today's", async () => {
  const vault = tempVault(EDGE_VAULT);
  const file = path.join(vault.dir, "wiki/old-note.md");
  writeFileSync(file, "---\nstatus: open\n---\nWritten long ago.\n");
  // Noon local time, so the date is the same in every time zone the machine may be in.
  const then = new Date(2024, 2, 10, 12, 0, 0);
  utimesSync(file, then, then);
  const harness = await startPlugin({ fixture: EDGE_VAULT, vault });
  try {
    const read = await harness.call("note_read", { path: "wiki/old-note.md" });
    assert.equal(read.isError, false, read.text);
    const written = await harness.call("note_frontmatter", { path: "wiki/old-note.md", set: { status: "done" }, content_hash: read.structured.content_hash });
    assert.equal(written.isError, false, written.text);
    const today = localDate(Date.now());
    assert.equal(readFileSync(file, "utf8"), `---\nstatus: done\ncreated: 2024-03-10\nupdated: ${today}\n---\nWritten long ago.\n`);
  } finally {
    await harness.stop();
    vault.cleanup();
  }
});

for (const alwaysUpdateLinks of [true, false]) {
  test(`note_move renames through FileManager.renameFile and ends with every link updated (alwaysUpdateLinks: ${String(alwaysUpdateLinks)})`, async () => {
    const harness = await startPlugin({ fixture: EDGE_VAULT, appConfig: { alwaysUpdateLinks } });
    try {
      const { app } = harness;
      const dry = await harness.call("note_move", { path: "wiki/rate-limiting.md", to: "archive/Rate limits.md", dry_run: true });
      assert.equal(dry.isError, false, dry.text);
      const processBefore = app.vault.calls.process ?? 0;
      const moved = await harness.call("note_move", { path: "wiki/rate-limiting.md", to: "archive/Rate limits.md" });
      assert.equal(moved.isError, false, moved.text);
      assert.deepEqual(moved.structured.warnings, []);
      assert.equal(app.fileManager.calls.renameFile, 1, "the rename went through FileManager.renameFile");
      const notes = moved.structured.notes as Array<{ path: string; diff: string; trash?: string }>;
      assert.deepEqual(
        notes.map(({ path: notePath, diff }) => ({ path: notePath, diff })),
        (dry.structured.notes as Array<{ path: string; diff: string }>).map(({ path: notePath, diff }) => ({ path: notePath, diff })),
        "what happened is what the dry run showed",
      );
      assert.ok(notes.length > 0 && notes.every((note) => typeof note.trash === "string"), "each rewritten note has a trash copy");
      // With the setting on, Obsidian made the rewrites (one process per note) and the tool had nothing
      // left to do; with it off, the tool made them through Vault.process itself.
      assert.equal((app.vault.calls.process ?? 0) - processBefore, notes.length);
      const backlinks = await harness.call("note_backlinks", { path: "archive/Rate limits.md" });
      assert.ok((backlinks.structured.incoming as Array<{ path: string }>).some((entry) => entry.path === "wiki/index.md"));
      assert.equal(app.vault.getFileByPath("wiki/rate-limiting.md"), null);
    } finally {
      await harness.stop();
    }
  });
}

test("onunload frees the port; loading the plugin again binds it again", async () => {
  const vault = tempVault(EDGE_VAULT);
  try {
    const first = await startPlugin({ fixture: EDGE_VAULT, vault });
    assert.equal((await first.call("vault_list")).isError, false);
    const port = first.port;
    await first.unload();
    await new Promise<void>((resolve, reject) => {
      const probe = createServer();
      probe.once("error", reject);
      probe.listen(port, "127.0.0.1", () => probe.close(() => resolve()));
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const second = await startPlugin({ fixture: EDGE_VAULT, vault });
    try {
      const listed = await second.call("vault_list");
      assert.equal(listed.isError, false, listed.text);
    } finally {
      await second.stop();
    }
  } finally {
    vault.cleanup();
  }
});
