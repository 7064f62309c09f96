// The stand-in's startup, Vault and adapter against obsidian-api.md §4 and checklist 2–6, 13.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, writeFileSync, rmSync, existsSync } from "node:fs";
import path from "node:path";
import { createStandInApp } from "./app";
import { withApp, withVaultDir } from "./fixtures";
import { TFile, TFolder, type TAbstractFile } from "./vault";

test("startup: create for every file and folder before layout-ready, then the onLayoutReady queue, then resolved last", async () => {
  const files = {
    "a.md": "alpha",
    "folder/b.md": "[[a]]",
    "folder/sub/c.txt": "c",
    "empty/": "",
    ".obsidian/app.json": "{}",
    ".trash/old.md": "old",
  };
  await withVaultDir(files, async (dir) => {
    const app = createStandInApp({ vaultDir: dir });
    const log: string[] = [];
    const created: string[] = [];
    app.vault.on("create", (file: TAbstractFile) => {
      created.push(file.path);
      log.push(`create ready=${app.workspace.layoutReady}`);
    });
    app.workspace.onLayoutReady(() => log.push(`layout ready=${app.workspace.layoutReady}`));
    app.workspace.onLayoutReady(() => log.push("layout second"));
    let linksAtResolved: unknown = null;
    app.metadataCache.on("resolved", () => {
      log.push("resolved");
      linksAtResolved = structuredClone(app.metadataCache.resolvedLinks);
    });
    assert.equal(app.workspace.layoutReady, false);
    assert.equal(log.length, 0, "nothing happens before finishStartup");
    await app.finishStartup();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(created.sort(), ["a.md", "empty", "folder", "folder/b.md", "folder/sub", "folder/sub/c.txt"]);
    assert.deepEqual(log, [...created.map(() => "create ready=false"), "layout ready=true", "layout second", "resolved"]);
    assert.deepEqual(linksAtResolved, { "a.md": {}, "folder/b.md": { "a.md": 1 } }, "links are resolved when `resolved` fires");
    app.workspace.onLayoutReady(() => log.push("late"));
    assert.equal(log.at(-1), "late", "onLayoutReady after ready runs at once");
  });
});

test("tree: TFile/TFolder shape, root, case-sensitive lookups", async () => {
  await withApp({ "Folder/My.Note.MD": "x", "top.md": "y", "pic.PNG": "p" }, async (app) => {
    const root = app.vault.getRoot();
    assert.equal(root.path, "/");
    assert.equal(root.parent, null);
    assert.equal(root.isRoot(), true);
    assert.equal(app.vault.getAbstractFileByPath("/"), root);
    const note = app.vault.getFileByPath("Folder/My.Note.MD");
    assert.ok(note instanceof TFile);
    assert.equal(note.name, "My.Note.MD");
    assert.equal(note.basename, "My.Note");
    assert.equal(note.extension, "md");
    assert.equal(note.stat.size, 1);
    assert.ok(note.stat.mtime > 0);
    const folder = app.vault.getFolderByPath("Folder");
    assert.ok(folder instanceof TFolder);
    assert.equal(note.parent, folder);
    assert.equal(folder.parent, root);
    assert.deepEqual(folder.children, [note]);
    assert.equal(app.vault.getFileByPath("folder/My.Note.MD"), null);
    assert.equal(app.vault.getFileByPath("Folder/my.note.md"), null);
    assert.equal(app.vault.getAbstractFileByPath("TOP.md"), null);
    assert.equal(app.vault.getFileByPath("Folder"), null, "getFileByPath returns files only");
    assert.equal(app.vault.getFolderByPath("top.md"), null);
    assert.deepEqual(app.vault.getFiles().map((file) => file.path).sort(), ["Folder/My.Note.MD", "pic.PNG", "top.md"]);
    assert.deepEqual(app.vault.getMarkdownFiles().map((file) => file.path).sort(), ["Folder/My.Note.MD", "top.md"]);
  });
});

test("dot-folders are not in the vault but the adapter reaches them", async () => {
  await withApp({ "note.md": "n", ".obsidian/app.json": '{"a":1}', ".obsidian/plugins/x/data.json": "{}", ".trash/old.md": "old", "folder/.hidden.md": "h" }, async (app) => {
    for (const hidden of [".obsidian", ".obsidian/app.json", ".trash", ".trash/old.md", "folder/.hidden.md"]) {
      assert.equal(app.vault.getAbstractFileByPath(hidden), null, hidden);
    }
    assert.ok(app.vault.getAllLoadedFiles().every((file) => !file.path.split("/").some((part) => part.startsWith("."))));
    const adapter = app.vault.adapter;
    assert.equal(await adapter.exists(".obsidian/app.json"), true);
    assert.equal(await adapter.exists(".obsidian/none.json"), false);
    assert.equal(await adapter.read(".trash/old.md"), "old");
    assert.deepEqual(await adapter.list(".obsidian"), { files: [".obsidian/app.json"], folders: [".obsidian/plugins"] });
    const stat = await adapter.stat(".obsidian/app.json");
    assert.equal(stat?.type, "file");
    assert.equal(stat?.size, 7);
    assert.equal((await adapter.stat(".obsidian"))?.type, "folder");
    assert.equal(await adapter.stat("missing.md"), null);
    await adapter.write(".obsidian/new.json", "[]");
    assert.equal(readFileSync(adapter.getFullPath(".obsidian/new.json"), "utf8"), "[]");
    assert.equal(app.vault.getAbstractFileByPath(".obsidian/new.json"), null);
    assert.equal(path.isAbsolute(adapter.getBasePath()), true);
  });
});

test("create: the tree is updated inside the handler, which runs before the promise resolves; existing file and missing parent reject", async () => {
  await withApp({ "Note.md": "old", "folder/": "" }, async (app, dir) => {
    const seen: string[] = [];
    let resolved = false;
    app.vault.on("create", (file: TAbstractFile) => {
      seen.push(`${file.path} inTree=${app.vault.getAbstractFileByPath(file.path) === file} resolved=${resolved}`);
    });
    const made = await app.vault.create("folder/New.md", "hello");
    resolved = true;
    assert.deepEqual(seen, ["folder/New.md inTree=true resolved=false"]);
    assert.equal(made.parent, app.vault.getFolderByPath("folder"));
    assert.equal(readFileSync(path.join(dir, "folder/New.md"), "utf8"), "hello");
    await assert.rejects(app.vault.create("Note.md", "new"), { message: "File already exists." });
    assert.equal(readFileSync(path.join(dir, "Note.md"), "utf8"), "old");
    await assert.rejects(app.vault.create("missing/Note.md", "x"));
    assert.equal(existsSync(path.join(dir, "missing")), false);
    assert.equal(app.vault.getAbstractFileByPath("missing/Note.md"), null);
    assert.equal(seen.length, 1, "no create event for the refused calls");
    const folder = await app.vault.createFolder("folder/sub");
    assert.ok(folder instanceof TFolder);
    assert.equal(seen.at(-1), "folder/sub inTree=true resolved=true");
    await assert.rejects(app.vault.createFolder("folder/sub"), { message: "Folder already exists." });
    await assert.rejects(app.vault.createFolder("folder"), { message: "Folder already exists." });
    const binary = await app.vault.createBinary("folder/data.bin", new Uint8Array([1, 2, 3]).buffer);
    assert.equal(binary.extension, "bin");
    await assert.rejects(app.vault.createBinary("folder/data.bin", new ArrayBuffer(1)), { message: "File already exists." });
  });
});

test("rename: same object, target exists rejects, folder rename fires for every descendant with the tree already updated", async () => {
  const files = { "src/a.md": "[[b]]", "src/deep/b.md": "b", "src/deep/c.png": "c", "Links.md": "[[src/a]] [[src/deep/b]] [b](src/deep/b.md)", "taken.md": "t" };
  await withApp(files, async (app, dir) => {
    const a = app.vault.getFileByPath("src/a.md")!;
    await assert.rejects(app.vault.rename(a, "taken.md"), { message: "Destination file already exists!" });
    assert.equal(a.path, "src/a.md");
    const events: string[] = [];
    app.vault.on("rename", (file: TAbstractFile, oldPath: string) => {
      const inTree = app.vault.getAbstractFileByPath(file.path) === file && app.vault.getAbstractFileByPath(oldPath) === null;
      const parentOk = file.parent !== null && file.parent.children.includes(file) && (file.parent.isRoot() ? "" : `${file.parent.path}/`) + file.name === file.path;
      events.push(`${oldPath} -> ${file.path} inTree=${inTree} parentOk=${parentOk}`);
    });
    await app.vault.rename(a, "a2.md");
    assert.equal(app.vault.getFileByPath("a2.md"), a, "rename keeps the same object");
    assert.equal(a.name, "a2.md");
    assert.equal(a.basename, "a2");
    const b = app.vault.getFileByPath("src/deep/b.md")!;
    const deep = app.vault.getFolderByPath("src/deep")!;
    await app.vault.rename(app.vault.getFolderByPath("src")!, "moved");
    assert.deepEqual(events.sort(), [
      "src -> moved inTree=true parentOk=true",
      "src/a.md -> a2.md inTree=true parentOk=true",
      "src/deep -> moved/deep inTree=true parentOk=true",
      "src/deep/b.md -> moved/deep/b.md inTree=true parentOk=true",
      "src/deep/c.png -> moved/deep/c.png inTree=true parentOk=true",
    ]);
    assert.equal(app.vault.getFileByPath("moved/deep/b.md"), b);
    assert.equal(app.vault.getFolderByPath("moved/deep"), deep);
    assert.equal(b.parent, deep);
    assert.equal(readFileSync(path.join(dir, "moved/deep/b.md"), "utf8"), "b");
    assert.equal(existsSync(path.join(dir, "src")), false);
    await app.metadataCache.whenIdle();
    assert.equal(await app.vault.read(app.vault.getFileByPath("Links.md")!), files["Links.md"], "vault.rename never touches links");
    assert.equal(app.vault.calls.process ?? 0, 0);
  });
});

test("copy: refuses an existing target, copies a file, and a folder with everything in it", async () => {
  await withApp({ "a.md": "A", "f/x.md": "X", "f/g/y.md": "Y", "taken.md": "T" }, async (app, dir) => {
    const a = app.vault.getFileByPath("a.md")!;
    await assert.rejects(app.vault.copy(a, "taken.md"), { message: "Destination file already exists!" });
    assert.equal(readFileSync(path.join(dir, "taken.md"), "utf8"), "T");
    const created: string[] = [];
    app.vault.on("create", (file: TAbstractFile) => created.push(file.path));
    const copy = await app.vault.copy(a, "b.md");
    assert.ok(copy instanceof TFile);
    assert.notEqual(copy, a);
    assert.equal(await app.vault.read(copy), "A");
    const folderCopy = await app.vault.copy(app.vault.getFolderByPath("f")!, "f2");
    assert.ok(folderCopy instanceof TFolder);
    assert.equal(readFileSync(path.join(dir, "f2/g/y.md"), "utf8"), "Y");
    assert.ok(app.vault.getFileByPath("f2/x.md"));
    assert.deepEqual(created.sort(), ["b.md", "f2", "f2/g", "f2/g/y.md", "f2/x.md"]);
  });
});

test("read and cachedRead strip a BOM", async () => {
  await withApp({ "bom.md": "\uFEFF# Title\n" }, async (app) => {
    const file = app.vault.getFileByPath("bom.md")!;
    assert.equal(await app.vault.read(file), "# Title\n");
    assert.equal(await app.vault.cachedRead(file), "# Title\n");
  });
});

test("process: fn gets the current text, the result is written once and returned, with one modify", async () => {
  await withApp({ "n.md": "v1" }, async (app, dir) => {
    const file = app.vault.getFileByPath("n.md")!;
    await app.vault.modify(file, "v2");
    const modifies: string[] = [];
    app.vault.on("modify", (changed: TAbstractFile) => modifies.push(changed.path));
    const seen: string[] = [];
    const result = await app.vault.process(file, (data) => {
      seen.push(data);
      return `${data}+v3`;
    });
    assert.deepEqual(seen, ["v2"]);
    assert.equal(result, "v2+v3");
    assert.equal(readFileSync(path.join(dir, "n.md"), "utf8"), "v2+v3");
    assert.deepEqual(modifies, ["n.md"]);
  });
});

test("process: 20 concurrent appends lose nothing", async () => {
  await withApp({ "log.md": "" }, async (app) => {
    const file = app.vault.getFileByPath("log.md")!;
    let modifies = 0;
    app.vault.on("modify", () => modifies++);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => app.vault.process(file, (data) => `${data}line ${i}\n`)));
    const lines = (await app.vault.read(file)).trim().split("\n");
    assert.equal(lines.length, 20);
    assert.deepEqual([...lines].sort(), Array.from({ length: 20 }, (_, i) => `line ${i}`).sort());
    assert.equal(results.at(-1), `${lines.join("\n")}\n`);
    assert.equal(modifies, 20);
  });
});

test("process: a throwing fn writes nothing and fires no modify; unchanged text writes nothing either", async () => {
  await withApp({ "n.md": "keep" }, async (app, dir) => {
    const file = app.vault.getFileByPath("n.md")!;
    const full = path.join(dir, "n.md");
    const mtimeBefore = file.stat.mtime;
    let modifies = 0;
    app.vault.on("modify", () => modifies++);
    await assert.rejects(
      app.vault.process(file, () => {
        throw new Error("refused");
      }),
      { message: "refused" },
    );
    assert.equal(readFileSync(full, "utf8"), "keep");
    assert.equal(await app.vault.process(file, (data) => data), "keep");
    assert.equal(modifies, 0);
    assert.equal(file.stat.mtime, mtimeBefore);
    // The lock is released after a failure: later calls still run.
    assert.equal(await app.vault.process(file, (data) => `${data}!`), "keep!");
    assert.equal(modifies, 1);
  });
});

test("modify and append always write and fire modify, even with identical text", async () => {
  await withApp({ "n.md": "same" }, async (app, dir) => {
    const file = app.vault.getFileByPath("n.md")!;
    let modifies = 0;
    app.vault.on("modify", (changed: TAbstractFile) => {
      assert.equal(changed, file);
      modifies++;
    });
    await app.vault.modify(file, "same");
    assert.equal(modifies, 1);
    await app.vault.append(file, " more");
    assert.equal(modifies, 2);
    assert.equal(readFileSync(path.join(dir, "n.md"), "utf8"), "same more");
    assert.equal(file.stat.size, 9);
  });
});

test("vault.calls counts each API call", async () => {
  await withApp({ "n.md": "x" }, async (app) => {
    const file = app.vault.getFileByPath("n.md")!;
    const before = { ...app.vault.calls };
    await app.vault.read(file);
    await app.vault.read(file);
    await app.vault.process(file, (data) => `${data}y`);
    await app.vault.modify(file, "z");
    await app.vault.create("m.md", "");
    const delta = (name: string): number => (app.vault.calls[name] ?? 0) - (before[name] ?? 0);
    assert.equal(delta("read"), 2);
    assert.equal(delta("process"), 1);
    assert.equal(delta("modify"), 1, "process does not count as modify");
    assert.equal(delta("create"), 1);
    assert.equal(delta("rename"), 0);
  });
});

test("outside edits: rescan fires the vault events and the metadata pipeline follows", async () => {
  await withApp({ "n.md": "# Old\n", "gone.md": "bye" }, async (app, dir) => {
    const file = app.vault.getFileByPath("n.md")!;
    const vaultEvents: string[] = [];
    for (const name of ["create", "modify", "delete"] as const) app.vault.on(name, (changed: TAbstractFile) => vaultEvents.push(`${name} ${changed.path}`));
    const changed: string[] = [];
    app.metadataCache.on("changed", (changedFile: TFile, data: string) => changed.push(`${changedFile.path}:${data}`));
    writeFileSync(path.join(dir, "n.md"), "# New heading\n");
    writeFileSync(path.join(dir, "born.md"), "[[n]]");
    rmSync(path.join(dir, "gone.md"));
    await app.vault.rescan();
    assert.deepEqual(vaultEvents.sort(), ["create born.md", "delete gone.md", "modify n.md"]);
    assert.equal(app.vault.getFileByPath("n.md"), file);
    assert.equal(app.vault.getFileByPath("gone.md"), null);
    await app.metadataCache.whenIdle();
    assert.deepEqual(changed.sort(), ["born.md:[[n]]", "n.md:# New heading\n"]);
    assert.equal(app.metadataCache.getFileCache(file)?.headings?.[0]?.heading, "New heading");
    assert.deepEqual(app.metadataCache.resolvedLinks["born.md"], { "n.md": 1 });
    assert.equal("gone.md" in app.metadataCache.resolvedLinks, false);
    vaultEvents.length = 0;
    await app.vault.rescan();
    assert.deepEqual(vaultEvents, [], "an unchanged disk fires nothing");
  });
});

test("delete removes a folder with its descendants, firing delete for each", async () => {
  await withApp({ "f/a.md": "a", "f/g/b.md": "b" }, async (app, dir) => {
    const deleted: string[] = [];
    app.vault.on("delete", (file: TAbstractFile) => deleted.push(file.path));
    await app.vault.delete(app.vault.getFolderByPath("f")!, true);
    assert.deepEqual(deleted.sort(), ["f", "f/a.md", "f/g", "f/g/b.md"]);
    assert.deepEqual(readdirSync(dir), []);
    assert.deepEqual(app.vault.getRoot().children, []);
  });
});
