// The stand-in's MetadataCache against obsidian-api.md §5, §6 and checklist 7–9: pipeline timing,
// CachedMetadata shape, link resolution, link maps and fileToLinktext.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { CachedMetadata } from "obsidian";
import { withApp } from "./fixtures";
import type { TAbstractFile, TFile } from "./vault";
import type { App } from "./app";

/** Records the cache's events as short strings, in order. */
function recordEvents(app: App): string[] {
  const log: string[] = [];
  app.metadataCache.on("changed", (file: TFile) => log.push(`changed ${file.path}`));
  app.metadataCache.on("resolve", (file: TFile) => log.push(`resolve ${file.path}`));
  app.metadataCache.on("resolved", () => log.push("resolved"));
  app.metadataCache.on("deleted", (file: TFile) => log.push(`deleted ${file.path}`));
  return log;
}

/** The events after `changed`: a block of resolves (any order) then exactly one resolved. */
function assertChangedThenResolves(log: string[], changed: string[], resolves: string[]): void {
  assert.deepEqual(log.slice(0, changed.length), changed.map((p) => `changed ${p}`));
  const rest = log.slice(changed.length);
  assert.equal(rest.at(-1), "resolved");
  assert.equal(rest.filter((entry) => entry === "resolved").length, 1, "one resolved");
  assert.deepEqual(rest.slice(0, -1).sort(), resolves.map((p) => `resolve ${p}`).sort());
}

const LINKED = { "B.md": "# B\n", "A.md": "see [[B]]\n", "C.md": "![[b]] and [b](B.md)\n", "D.md": "[[Other]]\n", "sub/E.md": "[[sub/B]]\n" };

test("timing: after vault.modify no changed in the same tick; then changed, resolve for the file and its linkers, one resolved", async () => {
  await withApp(LINKED, async (app) => {
    const log = recordEvents(app);
    const b = app.vault.getFileByPath("B.md")!;
    let changedInTick = false;
    app.vault.on("modify", () => {
      queueMicrotask(() => {
        changedInTick = log.length > 0;
      });
    });
    await app.vault.modify(b, "# B again\n");
    assert.deepEqual(log, [], "nothing before a later tick");
    assert.equal(changedInTick, false);
    await app.metadataCache.whenIdle();
    assertChangedThenResolves(log, ["B.md"], ["B.md", "A.md", "C.md", "sub/E.md"]);
    assert.equal(app.metadataCache.getFileCache(b)?.headings?.[0]?.heading, "B again");
  });
});

test("timing: changed carries the text and the new cache; identical content still fires changed", async () => {
  await withApp(LINKED, async (app) => {
    const b = app.vault.getFileByPath("B.md")!;
    const seen: Array<{ data: string; cache: CachedMetadata }> = [];
    app.metadataCache.on("changed", (file: TFile, data: string, cache: CachedMetadata) => {
      assert.equal(file, b);
      seen.push({ data, cache });
    });
    await app.vault.modify(b, "# B\n");
    await app.metadataCache.whenIdle();
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.data, "# B\n");
    assert.equal(seen[0]!.cache, app.metadataCache.getFileCache(b));
  });
});

test("timing: a create re-resolves the files naming the new basename", async () => {
  await withApp({ "A.md": "[[New]]", "D.md": "[[Other]]", "folder/": "" }, async (app) => {
    assert.deepEqual(app.metadataCache.unresolvedLinks["A.md"], { New: 1 });
    const log = recordEvents(app);
    await app.vault.create("folder/New.md", "fresh");
    await app.metadataCache.whenIdle();
    assertChangedThenResolves(log, ["folder/New.md"], ["folder/New.md", "A.md"]);
    assert.deepEqual(app.metadataCache.resolvedLinks["A.md"], { "folder/New.md": 1 });
    assert.deepEqual(app.metadataCache.unresolvedLinks["A.md"], {});
    assert.deepEqual(app.metadataCache.resolvedLinks["folder/New.md"], {});
  });
});

test("timing: a rename fires no changed; link-map keys move at once, linkers re-resolve, resolved fires", async () => {
  await withApp({ "B.md": "[[A]]", "A.md": "see [[B]]", "sub/": "" }, async (app) => {
    const log = recordEvents(app);
    const b = app.vault.getFileByPath("B.md")!;
    const cache = app.metadataCache.getFileCache(b);
    let keysInHandler: string[] = [];
    app.vault.on("rename", () => {
      keysInHandler = Object.keys(app.metadataCache.resolvedLinks).sort();
    });
    await app.vault.rename(b, "sub/Renamed.md");
    assert.deepEqual(keysInHandler, ["A.md", "sub/Renamed.md"], "keys moved before later listeners ran");
    assert.equal(app.metadataCache.getFileCache(b), cache, "the cache moved with the file");
    assert.equal(app.metadataCache.getCache("B.md"), null);
    await app.metadataCache.whenIdle();
    assert.equal(log.filter((entry) => entry.startsWith("changed")).length, 0, "a rename fires no changed");
    assert.ok(log.includes("resolve A.md"), "the linker re-resolved");
    assert.equal(log.at(-1), "resolved");
    assert.deepEqual(app.metadataCache.resolvedLinks["A.md"], {});
    assert.deepEqual(app.metadataCache.unresolvedLinks["A.md"], { B: 1 });
    assert.deepEqual(app.metadataCache.resolvedLinks["sub/Renamed.md"], { "A.md": 1 });
  });
});

test("timing: a delete fires deleted(file, prevCache) first, then the linkers re-resolve", async () => {
  await withApp({ "B.md": "# Gone soon\n", "A.md": "[[B]]" }, async (app) => {
    const b = app.vault.getFileByPath("B.md")!;
    const before = app.metadataCache.getFileCache(b);
    assert.ok(before?.headings);
    const log = recordEvents(app);
    let prev: CachedMetadata | null | undefined;
    app.metadataCache.on("deleted", (file: TAbstractFile, prevCache: CachedMetadata | null) => {
      assert.equal(file, b);
      prev = prevCache;
    });
    await app.vault.delete(b);
    await app.metadataCache.whenIdle();
    assert.equal(prev, before);
    assert.equal(prev?.headings?.[0]?.heading, "Gone soon");
    assert.equal(log[0], "deleted B.md");
    assert.ok(log.includes("resolve A.md"));
    assert.equal(log.at(-1), "resolved");
    assert.equal(app.metadataCache.getCache("B.md"), null);
    assert.equal("B.md" in app.metadataCache.resolvedLinks, false);
    assert.deepEqual(app.metadataCache.unresolvedLinks["A.md"], { B: 1 });
  });
});

const SHAPE = [
  "---",
  "tags: [alpha, beta]",
  "aliases: [Other Name]",
  'related: "[[x]]"',
  'see: "not a link [[y]]"',
  "list:",
  '  - "[[z|Zed]]"',
  "---",
  "# Title",
  "Text with [[Target#Section|shown]] and ![[pic.png]] and [md](My%20Note.md) and [ext](https://example.com) plus #inline/tag here.",
  "First [first](<Sub Dir/First.md>) then [[Second]] and https://x.org/#nottag #123 mail@host #ok_tag",
  "## Sub heading ##",
  "",
  "- item one",
  "- [ ] open task",
  "  - [x] done child",
  "- plain ^BlockID",
  "",
  "```js",
  "[[InCode]] #codetag ![[code.png]]",
  "# not a heading",
  "```",
  "Inline `[[InlineCode]] #inlinecode` text.",
  "",
].join("\n");

test("shape: frontmatter, frontmatter links, headings, links, embeds, tags, list items, blocks, code", async () => {
  await withApp({ "shape.md": SHAPE }, async (app) => {
    const cache = app.metadataCache.getCache("shape.md")!;
    assert.ok(cache);
    assert.deepEqual(cache.frontmatter, { tags: ["alpha", "beta"], aliases: ["Other Name"], related: "[[x]]", see: "not a link [[y]]", list: ["[[z|Zed]]"] });
    assert.deepEqual(cache.frontmatterPosition, { start: { line: 0, col: 0, offset: 0 }, end: { line: 7, col: 3, offset: SHAPE.indexOf("\n---\n") + 4 } });
    assert.deepEqual(cache.frontmatterLinks, [
      { key: "related", link: "x", original: "[[x]]" },
      { key: "list.0", link: "z", original: "[[z|Zed]]", displayText: "Zed" },
    ]);
    assert.deepEqual(
      cache.headings?.map((h) => [h.heading, h.level, h.position.start.line]),
      [
        ["Title", 1, 8],
        ["Sub heading", 2, 11],
      ],
    );
    // Exact positions: 0-based line and column, offset in characters, end exclusive.
    const heading = cache.headings[0]!;
    assert.deepEqual(heading.position, { start: { line: 8, col: 0, offset: 113 }, end: { line: 8, col: 7, offset: 120 } });
    assert.equal(SHAPE.slice(113, 120), "# Title");
    const links = cache.links!;
    assert.deepEqual(
      links.map((l) => [l.link, l.original]),
      [
        ["Target#Section", "[[Target#Section|shown]]"],
        ["My Note.md", "[md](My%20Note.md)"],
        ["Sub Dir/First.md", "[first](<Sub Dir/First.md>)"],
        ["Second", "[[Second]]"],
      ],
    );
    assert.equal(links[0]!.displayText, "shown");
    assert.deepEqual(links[0]!.position, { start: { line: 9, col: 10, offset: 131 }, end: { line: 9, col: 34, offset: 155 } });
    for (const ref of [...links, ...cache.embeds!, ...cache.tags!]) {
      const original = "original" in ref ? ref.original : ref.tag;
      assert.equal(SHAPE.slice(ref.position.start.offset, ref.position.end.offset), original, "offsets bound the source text");
      const lineStart = SHAPE.split("\n").slice(0, ref.position.start.line).join("\n").length + 1;
      assert.equal(ref.position.start.offset - ref.position.start.col, lineStart);
    }
    assert.deepEqual(
      cache.embeds?.map((e) => [e.link, e.original]),
      [["pic.png", "![[pic.png]]"]],
    );
    assert.deepEqual(
      cache.tags?.map((t) => t.tag),
      ["#inline/tag", "#ok_tag"],
      "inline tags with #; frontmatter tags, #123, URLs and code are not tags",
    );
    assert.deepEqual(cache.tags[0]!.position.start, { line: 9, col: 111, offset: 232 });
    assert.deepEqual(
      cache.listItems?.map((item) => [item.position.start.line, item.task, item.parent]),
      [
        [13, undefined, -13],
        [14, " ", -13],
        [15, "x", 14],
        [16, undefined, -13],
      ],
    );
    assert.equal("task" in cache.listItems[0]!, false, "a plain item has no task key");
    assert.deepEqual(Object.keys(cache.blocks ?? {}), ["blockid"]);
    assert.equal(cache.blocks!.blockid!.position.start.line, 16);
  });
});

test("shape: empty lists are left out; getCache is null for an unseen path and {} for a non-md file; invalid YAML gives no frontmatter", async () => {
  const files = { "plain.md": "Just words.\n", "pic.png": "png", "bad.md": "---\nkey: [unclosed\n---\n# Body\n", "data.json": "{}" };
  await withApp(files, async (app) => {
    assert.deepEqual(app.metadataCache.getCache("plain.md"), {});
    assert.equal(app.metadataCache.getCache("nowhere.md"), null);
    assert.equal(app.metadataCache.getCache("Plain.md"), null, "paths are case-sensitive");
    assert.deepEqual(app.metadataCache.getCache("pic.png"), {});
    assert.deepEqual(app.metadataCache.getFileCache(app.vault.getFileByPath("data.json")!), {});
    const bad = app.metadataCache.getCache("bad.md")!;
    assert.equal("frontmatter" in bad, false);
    assert.equal(bad.headings?.[0]?.heading, "Body", "the body is still parsed");
    assert.equal("pic.png" in app.metadataCache.resolvedLinks, false, "only md files have link-map entries");
  });
});

test("shape: a scalar-only YAML block and CRLF line ends", async () => {
  await withApp({ "crlf.md": "---\r\na: 1\r\n---\r\n# H\r\n[[L]]\r\n", "scalar.md": "---\njust text\n---\nbody" }, async (app) => {
    const crlf = app.metadataCache.getCache("crlf.md")!;
    assert.deepEqual(crlf.frontmatter, { a: 1 });
    assert.equal(crlf.headings?.[0]?.heading, "H");
    assert.deepEqual(crlf.links?.[0]?.position.start, { line: 4, col: 0, offset: 21 });
    assert.equal("frontmatter" in app.metadataCache.getCache("scalar.md")!, false);
  });
});

interface ResolveCase {
  name: string;
  files: string[];
  source: string;
  linkpath: string;
  expected: string | null;
}

const RESOLVE_CASES: ResolveCase[] = [
  { name: "1. an empty linkpath is the source itself", files: ["a/Note.md", "Note.md"], source: "a/Note.md", linkpath: "", expected: "a/Note.md" },
  { name: "2. bare first: a file literally named Note beats Note.md", files: ["Note", "Note.md"], source: "src.md", linkpath: "Note", expected: "Note" },
  { name: "2. then linkpath + .md", files: ["x/Note.md"], source: "src.md", linkpath: "Note", expected: "x/Note.md" },
  { name: "2. an explicit .md", files: ["x/Note.md"], source: "src.md", linkpath: "x/Note.md", expected: "x/Note.md" },
  { name: "3. any extension", files: ["assets/img.png"], source: "src.md", linkpath: "img.png", expected: "assets/img.png" },
  { name: "3. the name must match the last segment (no extension guessing beyond .md)", files: ["assets/img.png"], source: "src.md", linkpath: "img", expected: null },
  { name: "3. names match ignoring case", files: ["assets/img.png"], source: "src.md", linkpath: "IMG.PNG", expected: "assets/img.png" },
  { name: "4. ./ joins the source's folder", files: ["a/b/Sib.md", "Sib.md"], source: "a/b/src.md", linkpath: "./Sib", expected: "a/b/Sib.md" },
  { name: "4. ./ ignores case", files: ["a/b/Sib.md"], source: "a/b/src.md", linkpath: "./sib", expected: "a/b/Sib.md" },
  { name: "4. ../ goes up", files: ["a/Up.md", "Up.md"], source: "a/b/src.md", linkpath: "../Up", expected: "a/Up.md" },
  { name: "4. ../../ to the root", files: ["a/Up.md", "Up.md"], source: "a/b/src.md", linkpath: "../../Up", expected: "Up.md" },
  { name: "4. a relative miss stays unresolved, no basename fallback", files: ["Missing.md", "x/Missing.md"], source: "a/b/src.md", linkpath: "../Missing", expected: null },
  { name: "5. a leading / is an exact vault path", files: ["x/Note.md", "y/x/Note.md"], source: "y/src.md", linkpath: "/x/Note", expected: "x/Note.md" },
  { name: "5. the exact path ignores case", files: ["x/Note.md"], source: "src.md", linkpath: "/X/NOTE", expected: "x/Note.md" },
  { name: "5. the exact path wins before the folder preference", files: ["x/Note.md", "y/x/Note.md"], source: "y/src.md", linkpath: "x/Note", expected: "x/Note.md" },
  { name: "6. a leading / with no exact match is unresolved", files: ["x/Note.md"], source: "src.md", linkpath: "/Note", expected: null },
  { name: "7. a path suffix matches", files: ["a/b/Note.md"], source: "src.md", linkpath: "b/Note", expected: "a/b/Note.md" },
  { name: "7. a suffix that is not there does not", files: ["a/b/Note.md"], source: "src.md", linkpath: "c/Note", expected: null },
  { name: "5. Note.md at the root is the exact path of [[Note]] and beats the source's folder", files: ["Note.md", "f/Note.md"], source: "f/src.md", linkpath: "Note", expected: "Note.md" },
  { name: "7. the source's folder first", files: ["a/Note.md", "f/Note.md", "f/g/Note.md", "h/Note.md"], source: "f/g/src.md", linkpath: "Note", expected: "f/g/Note.md" },
  { name: "7. the source's folder first (another folder)", files: ["a/Note.md", "f/Note.md", "hh/Note.md"], source: "hh/src.md", linkpath: "Note", expected: "hh/Note.md" },
  { name: "7. subfolders of the source's folder count as its folder", files: ["a/Note.md", "f/sub/Note.md"], source: "f/src.md", linkpath: "Note", expected: "f/sub/Note.md" },
  { name: "7. otherwise the shortest path", files: ["long-folder/Note.md", "f/Note.md"], source: "z/src.md", linkpath: "Note", expected: "f/Note.md" },
  { name: "7. an ancestor folder gives no advantage", files: ["deep/Note.md", "xy/Note.md"], source: "deep/er/src.md", linkpath: "Note", expected: "xy/Note.md" },
  { name: "case-insensitive basename", files: ["Folder/Note.md"], source: "src.md", linkpath: "folder/NOTE", expected: "Folder/Note.md" },
  { name: "a URL is an unresolved note", files: ["Note.md"], source: "src.md", linkpath: "https://example.com/Note", expected: null },
];

test("resolution (§6): every step", async () => {
  for (const c of RESOLVE_CASES) {
    const files = Object.fromEntries([...c.files, c.source].map((p) => [p, ""]));
    await withApp(files, async (app) => {
      assert.equal(app.metadataCache.getFirstLinkpathDest(c.linkpath, c.source)?.path ?? null, c.expected, c.name);
    });
  }
});

test("resolution: aliases, titles and H1s never resolve; [[#H]] is a self-link; markdown links are decoded and looked up vault-wide", async () => {
  const files = {
    "Real.md": "---\naliases: [Nick]\ntitle: Fancy\n---\n# Heading One\n",
    "sub/My Note.md": "",
    "src.md": "[[Nick]] [[Fancy]] [[Heading One]] [[#Part]] [t](My%20Note.md)\n# Part\n",
  };
  await withApp(files, async (app) => {
    assert.equal(app.metadataCache.getFirstLinkpathDest("Nick", "src.md"), null);
    assert.deepEqual(app.metadataCache.unresolvedLinks["src.md"], { Nick: 1, Fancy: 1, "Heading One": 1 });
    assert.deepEqual(app.metadataCache.resolvedLinks["src.md"], { "src.md": 1, "sub/My Note.md": 1 });
  });
});

test("link maps count frontmatter links, links and embeds; every md file has an entry", async () => {
  const files = {
    "A.md": "",
    "x.png": "",
    "src.md": '---\nrelated: "[[A]]"\nmore: ["[[A#h]]", "[[Missing]]"]\n---\n[[A]] ![[A]] [a](A.md) [[Missing]] ![[gone.png]] ![[x.png]]\n',
  };
  await withApp(files, async (app) => {
    assert.deepEqual(app.metadataCache.resolvedLinks, { "A.md": {}, "src.md": { "A.md": 5, "x.png": 1 } });
    assert.deepEqual(app.metadataCache.unresolvedLinks, { "A.md": {}, "src.md": { Missing: 2, "gone.png": 1 } });
  });
});

test("fileToLinktext: shortest (the default) names a file by its name only when that resolves to it alone", async () => {
  const files = { "f/Unique.md": "", "f/Dup.md": "", "g/Dup.md": "", "assets/img.png": "", "f/src.md": "" };
  await withApp(files, async (app) => {
    const file = (p: string): TFile => app.vault.getFileByPath(p)!;
    assert.equal(app.metadataCache.fileToLinktext(file("f/Unique.md"), "src.md"), "Unique");
    assert.equal(app.metadataCache.fileToLinktext(file("f/Unique.md"), "src.md", false), "Unique.md");
    assert.equal(app.metadataCache.fileToLinktext(file("f/Dup.md"), "f/src.md"), "f/Dup", "ambiguous even where the folder preference picks it");
    assert.equal(app.metadataCache.fileToLinktext(file("g/Dup.md"), "src.md", false), "g/Dup.md");
    assert.equal(app.metadataCache.fileToLinktext(file("assets/img.png"), "src.md"), "img.png");
  });
});

test("fileToLinktext: absolute and relative follow newLinkFormat", async () => {
  const files = { "a/c/Note.md": "", "Top.md": "", "a/b/src.md": "", "a/b/deeper/Low.md": "" };
  await withApp(
    files,
    async (app) => {
      const file = (p: string): TFile => app.vault.getFileByPath(p)!;
      assert.equal(app.metadataCache.fileToLinktext(file("a/c/Note.md"), "a/b/src.md"), "../c/Note");
      assert.equal(app.metadataCache.fileToLinktext(file("Top.md"), "a/b/src.md"), "../../Top");
      assert.equal(app.metadataCache.fileToLinktext(file("a/b/deeper/Low.md"), "a/b/src.md", false), "deeper/Low.md");
    },
    { newLinkFormat: "relative" },
  );
  await withApp(
    files,
    async (app) => {
      const file = (p: string): TFile => app.vault.getFileByPath(p)!;
      assert.equal(app.metadataCache.fileToLinktext(file("Top.md"), "a/b/src.md"), "Top");
      assert.equal(app.metadataCache.fileToLinktext(file("a/c/Note.md"), "a/b/src.md"), "a/c/Note");
      assert.equal(app.metadataCache.fileToLinktext(file("a/c/Note.md"), "a/b/src.md", false), "a/c/Note.md");
    },
    { newLinkFormat: "absolute" },
  );
});
