import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { isToolError } from "../../../src/core/errors";
import { basename, dirname, extname, isVisiblePath, joinPath, resolveVaultPath } from "../../../src/core/notes/paths";

function refusal(input: string, options: { note?: boolean; folder?: boolean } = {}): string {
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
