// Random small patterns over random strings: the engine finds what JavaScript's RegExp finds (every
// match of a global search, its position and its groups), and the scanner says yes or no as RegExp.test
// does, over the whole text and line by line. Texts mix the characters case folding treats specially.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { compilePattern, MORE, nextSearchFrom } from "../../../src/core/pattern";
import { nullable, parsePattern } from "../../../src/core/pattern/parse";

const ATOMS = ["a", "b", "c", "k", "K", "s", "ſ", "\u212a", "x", "😀", ".", "[ab]", "[^a]", "[a-c]", "\\w", "\\W", "\\d", "\\s", "\\n", "^", "$", "\\b", "\\B", ""];
const QUANTIFIERS = ["*", "+", "?", "{2}", "{0,2}", "{1,3}", "{2,}"];
const UNBOUNDED = new Set(["*", "+", "{2,}"]);

function canMatchEmpty(source: string): boolean {
  try {
    return nullable(parsePattern(source, {}).root);
  } catch {
    return true;
  }
}

/**
 * Patterns of atoms, sequences, alternatives, groups and repetitions. `safe` leaves out unbounded
 * repetitions of what can match the empty string (`(a*)*`), where a Pike VM and a backtracking
 * engine may report different groups in rare cases; which texts match is the same either way.
 */
function patterns(safe: boolean): fc.Arbitrary<string> {
  const tree = fc.letrec<{ node: string; atom: string; sequence: string; alternatives: string; group: string; repeat: string }>((tie) => ({
    node: fc.oneof({ depthSize: "small", withCrossShrink: true }, tie("atom"), tie("sequence"), tie("alternatives"), tie("group"), tie("repeat")),
    atom: fc.constantFrom(...ATOMS),
    sequence: fc.array(tie("node"), { minLength: 2, maxLength: 3 }).map((items) => items.join("")),
    alternatives: fc.array(tie("node"), { minLength: 2, maxLength: 3 }).map((items) => items.join("|")),
    group: fc.tuple(fc.constantFrom("(", "(?:", "(?<n>"), tie("node")).map(([open, body]) => `${open}${body})`),
    repeat: fc
      .tuple(fc.constantFrom("(", "(?:"), tie("node"), fc.constantFrom(...QUANTIFIERS), fc.boolean())
      .map(([open, body, quantifier, lazy]) =>
        safe && UNBOUNDED.has(quantifier) && canMatchEmpty(body) ? `${open}${body})` : `${open}${body})${quantifier}${lazy ? "?" : ""}`,
      ),
  }));
  // A name may be given once only.
  return tree.node.map((source) => {
    let named = 0;
    return source.replace(/\(\?<n>/g, () => `(?<n${named++}>`);
  });
}

const FLAGS = fc.constantFrom("", "i", "m", "s", "im", "is", "ims");
const CHARS = ["a", "b", "c", "k", "K", "s", "S", "ſ", "\u212a", "x", "1", " ", "\n", "😀"];
const texts = fc.array(fc.constantFrom(...CHARS), { maxLength: 14 }).map((chars) => chars.join(""));
const multiline = fc.array(fc.constantFrom(...CHARS, "\r\n", "\r"), { maxLength: 18 }).map((chars) => chars.join(""));

function options(flags: string) {
  return { ignoreCase: flags.includes("i"), multiline: flags.includes("m"), dotAll: flags.includes("s") };
}

/** V8 finds \b and \B inside a surrogate pair under `u`; the engine steps by code point. */
function comparable(source: string, text: string): string {
  return /\\[bB]/.test(source) ? text.replace(/😀/gu, "x") : text;
}

test("every match, its position and its groups are RegExp's", () => {
  fc.assert(
    fc.property(patterns(true), FLAGS, texts, (source, flags, raw) => {
      const text = comparable(source, raw);
      const expected = [...text.matchAll(new RegExp(source, `gu${flags}`))].map((match) => [match.index, ...match]);
      const pattern = compilePattern(source, options(flags));
      const found: unknown[] = [];
      for (let from = 0; from <= text.length; ) {
        const match = pattern.exec(text, from);
        if (match === null) break;
        const spans: Array<string | undefined> = [];
        for (let i = 0; i < match.spans.length; i += 2) spans.push(match.spans[i]! < 0 ? undefined : text.slice(match.spans[i], match.spans[i + 1]));
        found.push([match.index, ...spans]);
        from = nextSearchFrom(text, match);
      }
      assert.deepEqual(found, expected, `/${source}/${flags} over ${JSON.stringify(text)}`);
    }),
    { numRuns: 3000, seed: 16 },
  );
});

test("the scanner says whether a text matches, over the whole text and line by line", () => {
  fc.assert(
    fc.property(patterns(false), FLAGS, multiline, (source, flags, raw) => {
      const text = comparable(source, raw);
      const regex = new RegExp(source, `u${flags}`);
      const pattern = compilePattern(source, { ...options(flags), captures: false });
      const whole = pattern.scanner().reset(text).run({ left: Infinity });
      assert.equal(whole !== MORE && whole >= 0, regex.test(text), `/${source}/${flags} over ${JSON.stringify(text)}`);
      const scanner = pattern.scanner({ lines: true });
      const lines: number[] = [];
      for (let from = 0; ; ) {
        const end = scanner.reset(text, from).run({ left: Infinity });
        if (end === MORE || end < 0) break;
        lines.push(text.slice(0, end).split(/\r?\n/).length - 1);
        const next = text.indexOf("\n", end);
        if (next < 0) break;
        from = next + 1;
      }
      const expected = text.split(/\r?\n/).flatMap((line, index) => (regex.test(line) ? [index] : []));
      assert.deepEqual(lines, expected, `/${source}/${flags} line by line over ${JSON.stringify(text)}`);
    }),
    { numRuns: 3000, seed: 16 },
  );
});
