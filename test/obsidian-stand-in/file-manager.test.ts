// The stand-in's FileManager against obsidian-api.md §7 and checklist 10–12: renameFile with link
// updates, processFrontMatter, trashFile and generateMarkdownLink.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { withApp } from "./fixtures";
import type { TAbstractFile, TFile } from "./vault";
import type { App } from "./app";

function read(dir: string, vaultPath: string): string {
  return readFileSync(path.join(dir, vaultPath), "utf8");
}

function processCalls(app: App): number {
  return app.vault.calls.process ?? 0;
}

const LINKS_MD = [
  "---",
  'related: "[[Old]]"',
  "other: plain",
  "---",
  "A [[Old]] B [[Old|Old]] C [[Old|custom]] D [[folder/Old#Heading]] E ![[Old]] F [Old](Old.md) G [text](<folder/Old.md>) H [[Sib]]",
  "",
].join("\n");

const RENAME_FILES = {
  "folder/Old.md": "# Heading\nSee [[./Sib]] and [[Old#Heading]].\n",
  "folder/Sib.md": "",
  "archive/": "",
  "Links.md": LINKS_MD,
  "Untouched.md": "[[Sib]] only\n",
};

test("renameFile rewrites every spelling of a moved note's links, once per file through process", async () => {
  await withApp(RENAME_FILES, async (app, dir) => {
    const old = app.vault.getFileByPath("folder/Old.md")!;
    const processBefore = processCalls(app);
    const modifyBefore = app.vault.calls.modify ?? 0;
    const processed: string[] = [];
    const originalProcess = app.vault.process.bind(app.vault);
    app.vault.process = (file, fn, options) => {
      processed.push(file.path);
      return originalProcess(file, fn, options);
    };
    await app.fileManager.renameFile(old, "archive/New Name.md");
    assert.equal(old.path, "archive/New Name.md");
    assert.equal(
      read(dir, "Links.md"),
      [
        "---",
        'related: "[[New Name]]"',
        "other: plain",
        "---",
        "A [[New Name]] B [[New Name|New Name]] C [[New Name|custom]] D [[New Name#Heading]] E ![[New Name]] F [New Name](New%20Name.md) G [text](<New Name.md>) H [[Sib]]",
        "",
      ].join("\n"),
    );
    assert.equal(read(dir, "archive/New Name.md"), "# Heading\nSee [[Sib]] and [[New Name#Heading]].\n", "the moved note's own links are re-checked from its new folder");
    assert.equal(read(dir, "Untouched.md"), RENAME_FILES["Untouched.md"]);
    assert.deepEqual(processed.sort(), ["Links.md", "archive/New Name.md"], "each touched file written once through process");
    assert.equal(processCalls(app) - processBefore, 2);
    assert.equal((app.vault.calls.modify ?? 0) - modifyBefore, 0);
    await app.metadataCache.whenIdle();
    assert.deepEqual(app.metadataCache.resolvedLinks["Links.md"], { "archive/New Name.md": 8, "folder/Sib.md": 1 });
    assert.deepEqual(app.metadataCache.unresolvedLinks["Links.md"], {});
  });
});

test("renameFile leaves links that still resolve alone", async () => {
  const files = { "a/Unique.md": "", "b/": "", "Ref.md": "[[Unique]] and [[a/Unique|x]]", "Bare.md": "[[Unique]] ![[Unique]] [u](Unique.md)" };
  await withApp(files, async (app, dir) => {
    const before = processCalls(app);
    await app.fileManager.renameFile(app.vault.getFileByPath("a/Unique.md")!, "b/Unique.md");
    assert.equal(read(dir, "Ref.md"), "[[Unique]] and [[Unique|x]]");
    assert.equal(read(dir, "Bare.md"), files["Bare.md"]);
    assert.equal(processCalls(app) - before, 1, "only Ref.md was written");
  });
});

test("renameFile keeps an alias listed in the target's aliases; a folder rename rewrites the links into it", async () => {
  const files = { "f/Old.md": "---\naliases: [Old]\n---\n", "g/": "", "Ref.md": "[[Old|Old]] [[f/Old]] [x](f/Old.md)" };
  await withApp(files, async (app, dir) => {
    await app.fileManager.renameFile(app.vault.getFileByPath("f/Old.md")!, "g/Fresh.md");
    assert.equal(read(dir, "Ref.md"), "[[Fresh|Old]] [[Fresh]] [x](Fresh.md)");
  });
  const folderFiles = { "f/A.md": "", "f/Dup.md": "", "Dup.md": "", "Ref.md": "[[f/A]] [[f/Dup]] [a](f/A.md)" };
  await withApp(folderFiles, async (app, dir) => {
    await app.fileManager.renameFile(app.vault.getFolderByPath("f")!, "moved");
    assert.equal(read(dir, "Ref.md"), "[[A]] [[moved/Dup]] [a](A.md)");
  });
});

test("renameFile with alwaysUpdateLinks off moves the file and rewrites nothing", async () => {
  await withApp(
    RENAME_FILES,
    async (app, dir) => {
      const before = processCalls(app);
      await app.fileManager.renameFile(app.vault.getFileByPath("folder/Old.md")!, "archive/New Name.md");
      assert.ok(app.vault.getFileByPath("archive/New Name.md"));
      assert.equal(read(dir, "Links.md"), LINKS_MD);
      assert.equal(read(dir, "archive/New Name.md"), RENAME_FILES["folder/Old.md"]);
      assert.equal(processCalls(app) - before, 0);
    },
    { alwaysUpdateLinks: false },
  );
});

test("renameFile calls run one after another", async () => {
  await withApp({ "A.md": "", "B.md": "", "x/": "", "Ref.md": "[[A]] [[B]]" }, async (app, dir) => {
    await Promise.all([
      app.fileManager.renameFile(app.vault.getFileByPath("A.md")!, "x/A2.md"),
      app.fileManager.renameFile(app.vault.getFileByPath("B.md")!, "x/B2.md"),
    ]);
    assert.equal(read(dir, "Ref.md"), "[[A2]] [[B2]]");
  });
});

test("processFrontMatter: no-op on a non-md file; rejects on bad YAML without writing", async () => {
  await withApp({ "data.txt": "---\na: 1\n---\n", "bad.md": "---\na: [unclosed\n---\nbody\n" }, async (app, dir) => {
    let called = false;
    await app.fileManager.processFrontMatter(app.vault.getFileByPath("data.txt")!, () => {
      called = true;
    });
    assert.equal(called, false);
    assert.equal(read(dir, "data.txt"), "---\na: 1\n---\n");
    await assert.rejects(
      app.fileManager.processFrontMatter(app.vault.getFileByPath("bad.md")!, (fm) => {
        fm.b = 2;
      }),
    );
    assert.equal(read(dir, "bad.md"), "---\na: [unclosed\n---\nbody\n");
  });
});

test("processFrontMatter: an emptied object removes the whole block; a missing block is prepended", async () => {
  await withApp({ "one.md": "---\na: 1\n---\nbody\n", "none.md": "# Title\nbody\n", "empty.md": "plain\n" }, async (app, dir) => {
    await app.fileManager.processFrontMatter(app.vault.getFileByPath("one.md")!, (fm) => {
      delete fm.a;
    });
    assert.equal(read(dir, "one.md"), "body\n");
    await app.fileManager.processFrontMatter(app.vault.getFileByPath("none.md")!, (fm) => {
      fm.status = "draft";
      fm.tags = ["a", "b"];
    });
    assert.equal(read(dir, "none.md"), "---\nstatus: draft\ntags:\n  - a\n  - b\n---\n# Title\nbody\n");
    const before = processCalls(app);
    let modifies = 0;
    app.vault.on("modify", () => modifies++);
    await app.fileManager.processFrontMatter(app.vault.getFileByPath("empty.md")!, () => undefined);
    assert.equal(read(dir, "empty.md"), "plain\n");
    assert.equal(processCalls(app) - before, 1, "through vault.process");
    assert.equal(modifies, 0, "nothing changed, nothing written");
  });
});

test("processFrontMatter: only the YAML span is rewritten; body and fences byte-identical; new keys last; comments lost", async () => {
  const body = "\r\n```yaml\n---\nnot: frontmatter\n---\n```\n  trailing spaces  \n\n\n";
  const text = `---\nzeta: 1 # a comment\nalpha: 'quoted'\nlist: [x, y]\n---${body}`;
  await withApp({ "n.md": text }, async (app, dir) => {
    await app.fileManager.processFrontMatter(app.vault.getFileByPath("n.md")!, (fm) => {
      assert.deepEqual({ ...fm }, { zeta: 1, alpha: "quoted", list: ["x", "y"] });
      fm.alpha = "changed";
      fm.added = true;
    });
    assert.equal(read(dir, "n.md"), `---\nzeta: 1\nalpha: changed\nlist:\n  - x\n  - y\nadded: true\n---${body}`);
  });
});

test("trashFile: local moves into .trash/ with a numeric suffix on a clash and fires delete; none deletes", async () => {
  await withApp({ "Note.md": "first", "sub/Note.md": "second" }, async (app, dir) => {
    const deleted: string[] = [];
    app.vault.on("delete", (file: TAbstractFile) => deleted.push(file.path));
    await app.fileManager.trashFile(app.vault.getFileByPath("Note.md")!);
    await app.fileManager.trashFile(app.vault.getFileByPath("sub/Note.md")!);
    assert.deepEqual(deleted, ["Note.md", "sub/Note.md"]);
    const trashed = readdirSync(path.join(dir, ".trash")).sort();
    assert.equal(trashed.length, 2);
    const suffixed = trashed.find((name) => name !== "Note.md")!;
    assert.match(suffixed, /^Note \d+\.md$/);
    assert.equal(read(dir, ".trash/Note.md"), "first");
    assert.equal(read(dir, `.trash/${suffixed}`), "second");
    assert.equal(app.vault.getFileByPath("Note.md"), null);
    assert.equal(app.vault.getAbstractFileByPath(".trash/Note.md"), null, ".trash is not in the vault");
  });
  await withApp(
    { "Note.md": "x", "f/a.md": "a" },
    async (app, dir) => {
      const deleted: string[] = [];
      app.vault.on("delete", (file: TAbstractFile) => deleted.push(file.path));
      await app.fileManager.trashFile(app.vault.getFileByPath("Note.md")!);
      await app.fileManager.trashFile(app.vault.getFolderByPath("f")!);
      assert.deepEqual(deleted.sort(), ["Note.md", "f", "f/a.md"]);
      assert.equal(existsSync(path.join(dir, "Note.md")), false);
      assert.equal(existsSync(path.join(dir, "f")), false);
      assert.equal(existsSync(path.join(dir, ".trash")), false);
    },
    { trashOption: "none" },
  );
});

test("generateMarkdownLink: wikilinks", async () => {
  const files = { "Note.md": "", "f/Dup.md": "", "g/Dup.md": "", "img a.png": "", "src.md": "" };
  await withApp(files, async (app) => {
    const file = (p: string): TFile => app.vault.getFileByPath(p)!;
    const fm = app.fileManager;
    assert.equal(fm.generateMarkdownLink(file("Note.md"), "src.md"), "[[Note]]");
    assert.equal(fm.generateMarkdownLink(file("Note.md"), "src.md", "#Part", "Shown"), "[[Note#Part|Shown]]");
    assert.equal(fm.generateMarkdownLink(file("Note.md"), "src.md", undefined, "Note"), "[[Note]]");
    // An alias equal to the link text apart from case replaces it (X2), so the link carries no `|`.
    assert.equal(fm.generateMarkdownLink(file("Note.md"), "src.md", undefined, "note"), "[[note]]");
    assert.equal(fm.generateMarkdownLink(file("f/Dup.md"), "src.md"), "[[f/Dup]]");
    assert.equal(fm.generateMarkdownLink(file("img a.png"), "src.md"), "![[img a.png]]");
    assert.equal(fm.generateMarkdownLink(file("src.md"), "src.md", "#Heading"), "[[#Heading]]", "a same-file link with a subpath is the subpath");
    assert.equal(fm.generateMarkdownLink(file("src.md"), "src.md"), "[[src]]");
  });
});

test("generateMarkdownLink: markdown links with useMarkdownLinks", async () => {
  const files = { "My Note.md": "", "img a.png": "", "src.md": "" };
  await withApp(
    files,
    async (app) => {
      const file = (p: string): TFile => app.vault.getFileByPath(p)!;
      const fm = app.fileManager;
      assert.equal(fm.generateMarkdownLink(file("My Note.md"), "src.md"), "[My Note](My%20Note.md)");
      assert.equal(fm.generateMarkdownLink(file("My Note.md"), "src.md", "#Some Part", "shown"), "[shown](My%20Note.md#Some%20Part)");
      assert.equal(fm.generateMarkdownLink(file("img a.png"), "src.md"), "![](img%20a.png)");
      assert.equal(fm.generateMarkdownLink(file("src.md"), "src.md", "#Top"), "[src](#Top)");
    },
    { useMarkdownLinks: true },
  );
});

test("getNewFileParent follows newFileLocation", async () => {
  await withApp({ "inbox/": "", "notes/src.md": "" }, async (app) => {
    const fm = app.fileManager;
    assert.equal(fm.getNewFileParent("notes/src.md"), app.vault.getRoot(), "the root by default");
    app.vault.config.newFileLocation = "current";
    assert.equal(fm.getNewFileParent("notes/src.md"), app.vault.getFolderByPath("notes"));
    assert.equal(fm.getNewFileParent("gone/src.md"), app.vault.getRoot(), "a missing folder falls back to the root");
    app.vault.config.newFileLocation = "folder";
    app.vault.config.newFileFolderPath = "inbox";
    assert.equal(fm.getNewFileParent("notes/src.md"), app.vault.getFolderByPath("inbox"));
    app.vault.config.newFileFolderPath = "missing";
    assert.equal(fm.getNewFileParent("notes/src.md"), app.vault.getRoot());
  });
});
