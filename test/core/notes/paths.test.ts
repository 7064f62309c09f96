import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { isToolError } from "../../../src/core/errors";
import { basename, checkNewPath, dirname, extname, isVisiblePath, joinPath, resolveVaultPath, windowsNameProblem, type ResolveOptions } from "../../../src/core/notes/paths";

function refusal(input: string, options: ResolveOptions = {}): string {
  try {
    const result = resolveVaultPath(input, options);
    assert.fail(`expected ${JSON.stringify(input)} to be refused, got ${JSON.stringify(result)}`);
  } catch (error) {
    if (!isToolError(error)) throw error;
    assert.equal(error.code, "invalid_path");
    assert.match(error.message, /vault-relative path like `folder\/note\.md`; call note_list/);
    return error.message;
  }
}

test("accepted paths are trimmed, slash-normalised and vault-relative", () => {
  const cases: Array<[string, string, { note?: boolean; folder?: boolean }?]> = [
    ["wiki/index.md", "wiki/index.md"],
    ["  wiki/index.md \n", "wiki/index.md"],
    ["wiki\\index.md", "wiki/index.md"],
    ["./wiki/index.md", "wiki/index.md"],
    [".\\wiki\\index.md", "wiki/index.md"],
    ["wiki//sub///index.md", "wiki/sub/index.md"],
    ["projects/alpha/Team notes.md", "projects/alpha/Team notes.md"],
    ["a..b/c...md", "a..b/c...md"],
    ["wiki/index", "wiki/index.md", { note: true }],
    ["wiki/index.md", "wiki/index.md", { note: true }],
    ["wiki/INDEX.MD", "wiki/INDEX.MD", { note: true }],
    ["wiki/v1.2", "wiki/v1.2.md", { note: true }],
    ["Attachments/diagram.png", "Attachments/diagram.png"],
    ["wiki/", "wiki", { folder: true }],
    ["projects/alpha", "projects/alpha", { folder: true }],
  ];
  for (const [input, expected, options] of cases) {
    assert.equal(resolveVaultPath(input, options), expected, JSON.stringify(input));
  }
});

test("one resolver for every kind of path: a note to write refuses other files, the history takes notes or attachments", () => {
  assert.equal(resolveVaultPath("wiki/Meeting 2026.01.05", { note: "only" }), "wiki/Meeting 2026.01.05.md");
  assert.equal(resolveVaultPath("wiki/Plan.MD", { note: "only" }), "wiki/Plan.MD");
  for (const input of ["Attachments/diagram.png", "data/table.csv", "board.canvas"]) {
    assert.throws(
      () => resolveVaultPath(input, { note: "only" }),
      (error) => isToolError(error) && error.code === "invalid_path" && error.message.startsWith(`"${input}" is not a note (notes end in .md). Write attachments with attachment_put`),
    );
    assert.equal(resolveVaultPath(input, { note: true }), `${input}.md`, "a plain note path gains .md as before");
  }
  assert.equal(resolveVaultPath("Attachments/diagram.png", { note: "or-attachment" }), "Attachments/diagram.png");
  assert.equal(resolveVaultPath("wiki/index", { note: "or-attachment" }), "wiki/index.md");
  assert.equal(resolveVaultPath("wiki/photo.bmp", { note: "or-attachment" }), "wiki/photo.bmp.md", "only what attachment_put stores counts as an attachment");
  // The lexical rules come first, whatever the kind.
  assert.match(refusal("../diagram.png", { note: "only" }), /`\.` or `\.\.` segment/);
});

test("Unicode paths come back NFC, as Obsidian stores them", () => {
  const decomposed = "Deutsch Notizen/U\u0308berlegungen";
  const resolved = resolveVaultPath(decomposed, { note: true });
  assert.equal(resolved, "Deutsch Notizen/\u00dcberlegungen.md");
  assert.equal(resolved, resolved.normalize("NFC"));
  assert.equal(resolveVaultPath("日本語/ノート", { note: true }), "日本語/ノート.md");
});

test("empty, NUL, absolute and traversing paths are refused with the reason", () => {
  assert.match(refusal(""), /empty/);
  assert.match(refusal("   "), /empty/);
  assert.match(refusal("wiki/in\0dex.md"), /NUL/);
  for (const absolute of ["/etc/passwd", "//server/share/x.md", "C:/Users/x.md", "C:\\Users\\x.md", "c:x.md", "\\\\server\\x.md"]) {
    assert.match(refusal(absolute), /absolute/, absolute);
  }
  for (const traversing of ["..", "../x.md", "wiki/../../x.md", "wiki/..", "a/./b.md", ".", "./../x.md", "..\\x.md"]) {
    assert.match(refusal(traversing), /`\.` or `\.\.`/, traversing);
  }
});

test("every segment starting with a dot is unreachable, hidden folders included", () => {
  for (const hidden of [".obsidian/app.json", ".git/config", ".trash/old.md", "wiki/.hidden.md", "a/.b/c.md", "...md", ".md"]) {
    assert.match(refusal(hidden), /starts with a dot/, hidden);
  }
  assert.match(refusal(".obsidian", { note: true }), /starts with a dot/);
});

test("a trailing slash names a folder and is refused for files", () => {
  assert.match(refusal("wiki/"), /ends with a slash/);
  assert.match(refusal("wiki/", { note: true }), /ends with a slash/);
  assert.match(refusal("./"), /names no file|ends with a slash/);
});

test("error messages cap an overlong echoed path", () => {
  const message = refusal(`/${"x".repeat(5000)}`);
  assert.ok(message.length < 400, `message is ${message.length} chars`);
});

test("a name over 255 bytes in UTF-8 is refused as too long, in any segment, .md included", () => {
  assert.equal(resolveVaultPath(`wiki/${"n".repeat(252)}`, { note: true }), `wiki/${"n".repeat(252)}.md`);
  assert.equal(resolveVaultPath(`${"f".repeat(255)}/x.md`), `${"f".repeat(255)}/x.md`);
  const long = refusal(`wiki/${"n".repeat(300)}.md`);
  assert.match(long, /^Name too long: `n{40}…` has 303 bytes in UTF-8, and a file or folder name may have at most 255; shorten it/);
  assert.ok(!long.includes("outside"));
  assert.match(refusal(`wiki/${"n".repeat(253)}`, { note: true }), /has 256 bytes/);
  assert.match(refusal(`${"f".repeat(256)}/x.md`), /Name too long/);
  // 86 × 3 bytes: within 255 characters, over 255 bytes.
  assert.match(refusal(`${"ノ".repeat(86)}.md`), /has 261 bytes/);
  assert.equal(resolveVaultPath(`${"ノ".repeat(84)}.md`), `${"ノ".repeat(84)}.md`);
  assert.match(refusal(`${"😀".repeat(64)}.md`), /has 259 bytes/);
});

test("names Windows cannot hold are found: reserved names, forbidden characters, a trailing dot or space", () => {
  for (const name of ["CON", "con.png", "Prn.md", "aux.tar.gz", "NUL", "nul.txt", "COM1", "com9.md", "LPT1.png", "lpt9", "COM¹.md"]) {
    assert.match(windowsNameProblem(name) ?? "", /reserves/, name);
  }
  for (const [name, shown] of [["a:b.png", "`:`"], ["what?.md", "`?`"], ["x*.md", "`*`"], ['say "hi".md', '`"`'], ["a|b.md", "`|`"], ["<b>.md", "`<`"], ["a>b", "`>`"], ["tab\there.md", "a control character"]] as const) {
    assert.match(windowsNameProblem(name) ?? "", new RegExp(`contains ${shown.replace(/[|*?]/g, "\\$&")}`), name);
  }
  assert.match(windowsNameProblem("notes.") ?? "", /ends with a dot/);
  assert.match(windowsNameProblem("notes ") ?? "", /ends with a space/);
  for (const name of ["console.md", "conference", "com10.md", "lpt0", "auxiliary.png", "a.b.c.md", "nul-and-void.md", "Über.md", "日本語"]) {
    assert.equal(windowsNameProblem(name), null, name);
  }
});

test("checkNewPath refuses a new name Windows cannot hold and suggests one; existing folders are left alone", () => {
  const known = new Set(["odd:folder", "odd:folder/sub."]);
  const exists = (folder: string): boolean => known.has(folder);
  const refused = (path: string): string => {
    try {
      checkNewPath(path, exists);
    } catch (error) {
      if (!isToolError(error)) throw error;
      assert.equal(error.code, "invalid_path");
      return error.message;
    }
    assert.fail(`expected ${path} to be refused`);
  };
  assert.match(refused("Attachments/con.png"), /^The new file name `con\.png` is a name Windows reserves .*could not hold "Attachments\/con\.png"\. Choose another name, e\.g\. "Attachments\/con-1\.png"\.$/);
  assert.match(refused("a:b.png"), /new file name `a:b\.png` contains `:`.*e\.g\. "a-b\.png"/);
  assert.match(refused("notes/C:/x.md"), /new folder name `C:` contains `:`.*e\.g\. "notes\/C-\/x\.md"/);
  assert.match(refused("wiki/draft./x.md"), /new folder name `draft\.` ends with a dot.*e\.g\. "wiki\/draft\/x\.md"/);
  assert.match(refused("odd:folder/new:name.md"), /new file name `new:name\.md`/);
  assert.match(refused("odd:folder/new?/x.md"), /new folder name `new\?`/);
  checkNewPath("odd:folder/new.md", exists);
  checkNewPath("odd:folder/sub./deeper/new.md", exists);
  checkNewPath("wiki/console.md", exists);
});

test("resolveVaultPath never yields an empty, dot-leading or traversing segment", () => {
  const pathChars = fc.constantFrom("a", "B", "/", "\\", ".", " ", "~", ":", "\0", "é", "e\u0301", "\t", "-", "\u00a0");
  const arbitraryPath = fc.oneof(
    fc.string(),
    fc.string({ unit: pathChars, maxLength: 24 }),
    fc.array(fc.constantFrom("..", ".", "", "a", ".git", "b.md", " ", "C:"), { maxLength: 6 }).map((parts) => parts.join("/")),
  );
  fc.assert(
    fc.property(arbitraryPath, fc.boolean(), (input, note) => {
      let result: string;
      try {
        result = resolveVaultPath(input, { note });
      } catch (error) {
        if (isToolError(error) && error.code === "invalid_path") return;
        throw error;
      }
      assert.ok(result.length > 0);
      assert.ok(!result.includes("\\") && !result.includes("\0"), result);
      assert.ok(!result.startsWith("/") && !/^[A-Za-z]:/.test(result), result);
      for (const segment of result.split("/")) {
        assert.ok(segment !== "" && !segment.startsWith("."), `unsafe segment in ${JSON.stringify(result)}`);
      }
      assert.equal(result, result.normalize("NFC"));
      assert.ok(isVisiblePath(result));
      if (note) assert.ok(result.toLowerCase().endsWith(".md"));
    }),
    { numRuns: 2000 },
  );
});

test("path helpers", () => {
  assert.equal(isVisiblePath("wiki/index.md"), true);
  assert.equal(isVisiblePath(""), true);
  assert.equal(isVisiblePath(".trash/old.md"), false);
  assert.equal(isVisiblePath("wiki/.obsidian"), false);
  assert.equal(isVisiblePath("a//b"), false);
  assert.equal(basename("wiki/index.md"), "index.md");
  assert.equal(basename("index.md"), "index.md");
  assert.equal(dirname("projects/alpha/plan.md"), "projects/alpha");
  assert.equal(dirname("README.md"), "");
  assert.equal(extname("Attachments/diagram.PNG"), "png");
  assert.equal(extname("archive.tar.gz"), "gz");
  assert.equal(extname("wiki/noext"), "");
  assert.equal(extname("wiki/.hidden"), "");
  assert.equal(extname("v1.2/readme"), "");
  assert.equal(joinPath("", "a.md"), "a.md");
  assert.equal(joinPath("wiki", "a.md"), "wiki/a.md");
  assert.equal(joinPath("wiki/", "/a.md"), "wiki/a.md");
  assert.equal(joinPath("wiki", ""), "wiki");
});
