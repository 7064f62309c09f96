// The linear-time pattern engine: the same matches as JavaScript's RegExp on the syntax it takes,
// refusals that say what to write instead, bounded programs, and searches that stop and resume.
import { test } from "node:test";
import assert from "node:assert/strict";
import { isToolError, type ToolError } from "../../../src/core/errors";
import {
  compilePattern,
  escapePattern,
  expandReplacement,
  MAX_PROGRAM,
  MORE,
  nextSearchFrom,
  OVER_BUDGET,
  PatternBudget,
  replaceMatches,
  type CompileOptions,
  type PatternMatch,
} from "../../../src/core/pattern";

function options(flags: string): CompileOptions {
  return { ignoreCase: flags.includes("i"), multiline: flags.includes("m"), dotAll: flags.includes("s") };
}

/** Every match as matchAll reports it: index, whole match, groups (undefined when unset). */
function ours(source: string, flags: string, text: string): Array<Array<number | string | undefined>> {
  const pattern = compilePattern(source, options(flags));
  const found: Array<Array<number | string | undefined>> = [];
  for (let from = 0; from <= text.length; ) {
    const match = pattern.exec(text, from);
    if (match === null) break;
    found.push([match.index, ...groups(text, match)]);
    from = nextSearchFrom(text, match);
  }
  return found;
}

function groups(text: string, match: PatternMatch): Array<string | undefined> {
  const out: Array<string | undefined> = [];
  for (let i = 0; i < match.spans.length; i += 2) out.push(match.spans[i]! < 0 ? undefined : text.slice(match.spans[i], match.spans[i + 1]));
  return out;
}

function native(source: string, flags: string, text: string): Array<Array<number | string | undefined>> {
  return [...text.matchAll(new RegExp(source, `gu${flags}`))].map((match) => [match.index, ...match]);
}

function refusal(source: string, flags = ""): ToolError {
  try {
    compilePattern(source, options(flags));
  } catch (error) {
    assert.ok(isToolError(error), `expected a ToolError for ${source}`);
    assert.equal(error.code, "invalid_argument");
    return error;
  }
  assert.fail(`expected ${source} to be refused`);
}

test("matches, spans and groups are JavaScript's, including its rules for empty iterations and case", () => {
  const cases: Array<[string, string, string]> = [
    ["(a|ab)(c|bcd)(d*)", "", "abcd"],
    ["(?<year>\\d{4})-(?<month>\\d\\d)", "", "on 2024-05-01 and 1999-12-31"],
    ["\\bfoo\\b", "", "foo food a foo"],
    ["^\\w+$", "m", "one\ntwo words\nthree\r\nfour"],
    ["a.c", "s", "a\nc abc"],
    ["a.c", "", "a\nc abc a\u2028c"],
    ["x*?y|x+?", "", "xxxy xx"],
    ["(a*)*b", "", "aab"],
    ["(b?)?c", "", "c bc"],
    ["(?:|a)+", "", "aa"],
    ["(?:(a)|b)+", "", "ab"],
    ["((a)*?)*", "", "aa"],
    ["(a?){2,3}", "", "aaa"],
    ["(x{2}|y){1,3}?z", "", "xxyxxz yyyz"],
    ["[^k]", "i", "kK\u212ax"],
    ["k+", "i", "Kk\u212a"],
    ["\\w+", "i", "\u017fs\u212a!"],
    ["\\W", "i", "\u017f s"],
    ["σ", "i", "Σσς"],
    ["ı", "i", "iIı"],
    ["[a-z]+", "i", "ÀBC déf"],
    ["😀+|.", "", "x😀😀y"],
    ["[😀-😂]", "", "😁"],
    ["\\u{1F600}\\uD83D\\uDE01\\x41\\u0042\\cJ\\0", "", "😀😁AB\n\0"],
    ["[\\b\\-\\]]+", "", "a\b-]b"],
    ["a{0}b|c{2,}", "", "b ccc"],
    ["$", "", "ab"],
    ["^|$", "m", "a\nb"],
    ["\\B", "", "ab c"],
  ];
  for (const [source, flags, text] of cases) {
    assert.deepEqual(ours(source, flags, text), native(source, flags, text), `/${source}/${flags} over ${JSON.stringify(text)}`);
  }
});

test("the scanner answers yes or no as RegExp.test does, also line by line", () => {
  const cases: Array<[string, string, string]> = [
    ["TODO\\b", "i", "a todo\nTODOs\r\nx todo"],
    ["^#{1,6} ", "", "# a\nb\n## c"],
    ["ing$", "", "going\r\nsing x\ndoing"],
    ["\\s$", "", "a \nb"],
    ["(a+)+b", "", "aaaa\naab"],
    ["", "", ""],
  ];
  for (const [source, flags, text] of cases) {
    const pattern = compilePattern(source, { ...options(flags), captures: false });
    const whole = pattern.scanner().reset(text).run({ left: Infinity });
    assert.equal(whole !== MORE && whole >= 0, new RegExp(source, `u${flags}`).test(text), `${source} over the whole text`);
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
    const expected = text.split(/\r?\n/).flatMap((line, index) => (new RegExp(source, `u${flags}`).test(line) ? [index] : []));
    assert.deepEqual(lines, expected, `${source} line by line`);
  }
});

test("backreferences and lookaround are refused, saying why and what to write instead", () => {
  for (const source of ["(a)\\1", "(?<w>a)\\k<w>"]) {
    const error = refusal(source);
    assert.match(error.message, /backreference .*linear-time engine \(RE2 syntax\), which has no backreferences\. Match the candidates/);
  }
  for (const [source, what] of [
    ["a(?=b)", "lookahead"],
    ["a(?!b)", "negative lookahead"],
    ["(?<=a)b", "lookbehind"],
    ["(?<!a)b", "negative lookbehind"],
  ] as const) {
    const error = refusal(source);
    assert.match(error.message, new RegExp(`uses a ${what} .*no lookaround\\. .*\\\\b for a word boundary, or match the text and check it in a second call`));
  }
  assert.match(refusal("\\p{L}").message, /Unicode property class .*ranges/);
  assert.match(refusal("(?i)a").message, /flags inside a group .*Pass the flag to the tool/);
});

test("syntax errors name the problem and where it is", () => {
  assert.match(refusal("(ab").message, /not a valid regular expression: a "\(" without its "\)" at character 1\./);
  assert.match(refusal("ab)").message, /unmatched "\)"/);
  assert.match(refusal("[b-a]").message, /out of order/);
  assert.match(refusal("*a").message, /nothing to repeat/);
  assert.match(refusal("a{2,1}").message, /out of order/);
  assert.match(refusal("a{").message, /a "\{" that does not start a repetition/);
  assert.match(refusal("{").message, /a lone "\{"/);
  assert.match(refusal("\\q").message, /means nothing/);
  assert.match(refusal("^*").message, /nothing to repeat/);
  // What JavaScript's `u` mode accepts stays accepted.
  for (const source of ["\\/", "[-a]", "[a-]", "(?:)", "(?<n1>x)|y", "\\cA", "a{1000}"]) compilePattern(source);
});

test("repetition counts and program size are bounded, with the limit named", () => {
  assert.match(refusal("a{1001}").message, /repeats 1001 times \(\{1001\}\), more than the 1000 that RE2 syntax allows/);
  assert.match(refusal("a{2,5000}").message, /repeats 5000 times/);
  const large = refusal("(?:a{100}){101}");
  assert.match(large.message, new RegExp(`more than ${MAX_PROGRAM.toLocaleString("en-US")} steps`));
  assert.ok(compilePattern("(?:a{100}){99}").size <= MAX_PROGRAM);
  // Nested counts multiply: refused at once, however large the product.
  const started = Date.now();
  refusal("((a{1000}){1000}){1000}");
  assert.ok(Date.now() - started < 1000, "the size check stops compiling early");
});

test("patterns that make a backtracking engine hang take linear work", () => {
  const line = "a".repeat(50_000);
  for (const source of ["(a+)+b", "(.*a){20}b", "a*a*a*a*a*a*b", "(a|aa)+b", "(a+){1,1000}b", "(\\w*\\s?)*!$", "(a|a?)+b"]) {
    const pattern = compilePattern(source);
    const meter = { left: Number.MAX_SAFE_INTEGER };
    assert.equal(pattern.matcher().reset(line).run(meter), null, source);
    const work = Number.MAX_SAFE_INTEGER - meter.left;
    assert.ok(work <= 4 * pattern.size * (line.length + 1), `${source}: ${work} units for program ${pattern.size} × ${line.length} characters`);
    assert.equal(pattern.scanner().reset(line).run({ left: Infinity }), -1, `${source} (scanner)`);
  }
});

test("a search stopped by its meter resumes where it stopped, with the same result", () => {
  const text = `${"1-".repeat(3000)}2024x-05-01 ${"y".repeat(5000)}`;
  const pattern = compilePattern("(\\d+)-(\\d+)x");
  const matcher = pattern.matcher().reset(text);
  let stops = 0;
  let result = matcher.run({ left: 50 });
  while (result === MORE) {
    stops++;
    result = matcher.run({ left: 50 });
  }
  assert.ok(stops > 10, `stopped ${stops} times`);
  assert.deepEqual(result && groups(text, result), [...new RegExp("(\\d+)-(\\d+)x", "u").exec(text)!]);
  const scanner = compilePattern("(.*a){20}b", { captures: false }).scanner().reset("a".repeat(20_000) + "b");
  let end = scanner.run({ left: 100 });
  let scannerStops = 0;
  while (end === MORE) {
    scannerStops++;
    end = scanner.run({ left: 100 });
  }
  assert.ok(scannerStops > 10);
  assert.equal(end, 20_001);
});

test("a budget pauses between chunks of one long search and stops it when the time is up", async () => {
  let now = 0;
  let pauses = 0;
  const budget = new PatternBudget(() => now, 100, async () => {
    pauses++;
    now += 10;
  });
  const text = "a".repeat(200_000);
  const pattern = compilePattern("(a|b)*c(a|b){30}");
  assert.equal(await budget.next(pattern.matcher().reset(text)), OVER_BUDGET);
  assert.ok(pauses >= 10, `paused ${pauses} times`);

  now = 0;
  const roomy = new PatternBudget(() => now, 1e9, async () => undefined);
  const match = await roomy.next(compilePattern("c").matcher().reset(`${"a".repeat(100_000)}c`));
  assert.notEqual(match, OVER_BUDGET);
  assert.equal(match !== OVER_BUDGET && match?.index, 100_000);
});

test("replacements expand $ forms as String.prototype.replace does", async () => {
  const text = "2024-05-01, 1999-12-31 and 😀😀";
  const templates = ["[$1|$2|$3]", "$&$&", "$$1", "$<y>/$<m>", "$<nope>", "$`", "$'", "$0$00$4$10$01", "$", "$x", "$<y"];
  for (const template of templates) {
    for (const source of ["(?<y>\\d{4})-(?<m>\\d\\d)-(\\d\\d)", "(\\d{4})", "😀|(?:)"]) {
      const pattern = compilePattern(source);
      const budget = new PatternBudget(() => 0, 1000, async () => undefined);
      const replaced = await replaceMatches(pattern.matcher(), text, budget, (match) => expandReplacement(template, text, match, pattern.names));
      assert.notEqual(replaced, OVER_BUDGET);
      const expected = text.replace(new RegExp(source, "gu"), template);
      assert.equal(replaced !== OVER_BUDGET && replaced.text, expected, `${source} with ${template}`);
    }
  }
});

test("escapePattern matches the text as typed", () => {
  const text = "a.b*c+d?e^f$g{h}i(j)k[l]m|n\\o/p-q";
  const match = compilePattern(escapePattern(text)).exec(`x ${text} y`);
  assert.equal(match?.index, 2);
  assert.equal(match?.end, 2 + text.length);
});
