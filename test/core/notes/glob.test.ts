import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { isToolError } from "../../../src/core/errors";
import { compileGlob, MAX_GLOB_ALTERNATIVES, MAX_GLOB_LENGTH } from "../../../src/core/notes/glob";

/**
 * The regex translation globs used before (a backtracking engine), as the reference for their meaning.
 * The `s` flag is the one intended difference: `**` now also crosses a line break in a file name.
 */
function referenceRegExp(glob: string): RegExp | null {
  let out = "^";
  let braceDepth = 0;
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!;
    if (char === "*") {
      if (glob[i + 1] === "*") {
        const slashAfter = glob[i + 2] === "/";
        out += slashAfter ? "(?:.*/)?" : ".*";
        i += slashAfter ? 2 : 1;
      } else {
        out += "[^/]*";
      }
    } else if (char === "?") {
      out += "[^/]";
    } else if (char === "{") {
      braceDepth += 1;
      out += "(?:";
    } else if (char === "}" && braceDepth > 0) {
      braceDepth -= 1;
      out += ")";
    } else if (char === "," && braceDepth > 0) {
      out += "|";
    } else {
      out += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
    }
  }
  return braceDepth === 0 ? new RegExp(out + "$", "is") : null;
}

function refused(glob: string): string {
  try {
    compileGlob(glob);
  } catch (error) {
    if (!isToolError(error)) throw error;
    assert.equal(error.code, "invalid_argument");
    return error.message;
  }
  assert.fail(`expected ${JSON.stringify(glob)} to be refused`);
}

test("ordinary globs keep their meaning", () => {
  const cases: Array<[string, string, boolean]> = [
    ["**/*.md", "wiki/index.md", true],
    ["**/*.md", "index.md", true],
    ["**/*.md", "a/b/c/d.MD", true],
    ["**/*.md", "wiki/diagram.png", false],
    ["*.md", "wiki/index.md", false],
    ["wiki/*.md", "wiki/sub/index.md", false],
    ["wiki/**", "wiki/sub/index.md", true],
    ["wiki/**/index.md", "wiki/index.md", true],
    ["wiki/**/index.md", "wiki/a/b/index.md", true],
    ["journal/2026-*", "journal/2026-01-05.md", true],
    ["journal/2026-*", "journal/2025-01-05.md", false],
    ["**/*.{png,canvas}", "Attachments/diagram.PNG", true],
    ["**/*.{png,canvas}", "boards/plan.canvas", true],
    ["**/*.{png,canvas}", "wiki/index.md", false],
    ["{wiki,projects/{alpha,beta}}/*.md", "projects/beta/plan.md", true],
    ["{wiki,projects/{alpha,beta}}/*.md", "projects/gamma/plan.md", false],
    ["note?.md", "note1.md", true],
    ["note?.md", "note/.md", false],
    ["a,b}", "a,b}", true],
    ["[x](y).md", "[x](y).md", true],
    ["ÜBER*", "über-sicht.md", true],
    ["日本語/*", "日本語/ノート.md", true],
  ];
  for (const [glob, path, expected] of cases) {
    assert.equal(compileGlob(glob).test(path), expected, `${glob} on ${path}`);
    assert.equal(referenceRegExp(glob)!.test(path), expected, `reference: ${glob} on ${path}`);
  }
});

test("random globs match exactly the paths the old regex translation matched", () => {
  const globs = fc
    .array(fc.constantFrom("a", "b", "A", ".", "/", "*", "**", "**/", "?", "{", "}", ",", "\n", "é", "É"), { maxLength: 12 })
    .map((parts) => parts.join(""));
  const paths = fc.array(fc.constantFrom("a", "b", "B", ".", "/", "\n", "é", "É", "x"), { maxLength: 14 }).map((parts) => parts.join(""));
  fc.assert(
    fc.property(globs, fc.array(paths, { minLength: 1, maxLength: 8 }), (glob, candidates) => {
      const reference = referenceRegExp(glob);
      if (reference === null) {
        assert.match(refused(glob), /unclosed/, glob);
        return;
      }
      const matcher = compileGlob(glob);
      for (const path of candidates) assert.equal(matcher.test(path), reference.test(path), `${JSON.stringify(glob)} on ${JSON.stringify(path)}`);
    }),
    { numRuns: 3000 },
  );
});

test("an unclosed brace, a glob over the length limit and too many alternatives are refused with the limit", () => {
  assert.match(refused("**/*.{md,canvas"), /unclosed "\{"/);
  assert.match(refused("a".repeat(MAX_GLOB_LENGTH + 1)), new RegExp(`${MAX_GLOB_LENGTH + 1} characters long; globs may have at most ${MAX_GLOB_LENGTH}`));
  compileGlob("a".repeat(MAX_GLOB_LENGTH));
  const many = `{${Array.from({ length: MAX_GLOB_ALTERNATIVES + 1 }, (_, index) => `n${index}`).join(",")}}`;
  assert.match(refused(many), new RegExp(`more than ${MAX_GLOB_ALTERNATIVES} \\{…,…\\} alternatives`));
  compileGlob(`{${Array.from({ length: MAX_GLOB_ALTERNATIVES }, (_, index) => `n${index}`).join(",")}}`);
});

test("the globs that froze a backtracking engine cost at most glob length × path length", () => {
  const attacks = ["**?".repeat(18) + "Z", "*a".repeat(14) + "*b", "**a".repeat(40) + "**b", "{*a,**a}".repeat(20) + "b"];
  const paths = ["a".repeat(200), "a/".repeat(100), `${"a".repeat(60)}/${"a".repeat(60)}/${"a".repeat(60)}.md`, "x".repeat(250), `${"a/".repeat(50)}${"a".repeat(40)}b`, `${"a".repeat(100)}b`];
  for (const glob of attacks) {
    for (const path of paths) {
      const matcher = compileGlob(glob);
      const states = 3 * glob.length + 2;
      assert.equal(matcher.test(path), referenceSafe(glob, path), `${glob} on ${path.slice(0, 20)}…`);
      assert.ok(matcher.steps <= path.length * (1 + 2 * states) + states, `${glob}: ${matcher.steps} steps on ${path.length} characters`);
      // Once the states a path walks through are built, the path costs one step per character read.
      const warm = matcher.steps;
      matcher.test(path);
      const perPath = matcher.steps - warm;
      assert.ok(perPath <= path.length);
      for (let round = 0; round < 10_000; round++) matcher.test(path);
      assert.equal(matcher.steps - warm, 10_001 * perPath, glob);
    }
  }
});

/**
 * What the attack globs match, worked out by hand: the ones ending in `b` match the paths ending in 40
 * a's and a b, and only within one folder when no `**` lets them cross a slash.
 */
function referenceSafe(glob: string, path: string): boolean {
  return !glob.endsWith("Z") && path.endsWith("a".repeat(40) + "b") && (glob.includes("**") || !path.includes("/"));
}
