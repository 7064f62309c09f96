// `npm run bench:patterns` (bundled as shipped, see build.mjs): the linear-time pattern engine (src/core/pattern) against the runtime's
// backtracking RegExp, finding matching lines as vault_grep does (the engine: whole notes in line
// mode; RegExp: split into lines, as vault_grep did before), on the Obsidian Help vault and on one
// synthetic 4 MB note; the same for replacing every match in whole notes, as vault_replace plans;
// then the patterns that hang RegExp, on a 50,000-character line (engine only).
// Options: --fixtures <folder holding obsidian-help-en> (default /work/shared/fixtures), --rounds <n>,
// --vault <folder> (one more vault to compare on, e.g. a synthetic one from gen-vault.mjs).
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { compilePattern, expandReplacement, MORE, Replacement, type Pattern } from "../src/core/pattern";

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1]! : fallback;
}

const fixtures = option("fixtures", "/work/shared/fixtures");
const rounds = Number(option("rounds", "5"));

function notes(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (name.startsWith(".")) return [];
    if (statSync(full).isDirectory()) return notes(full);
    return name.endsWith(".md") ? [readFileSync(full, "utf8")] : [];
  });
}

/** Median milliseconds of `rounds` runs, after ten (or 300 ms) of them to let the JIT settle; the result of the last run. */
function time<T>(run: () => T): { ms: number; result: T } {
  const samples: number[] = [];
  let result = run();
  const warming = performance.now();
  for (let i = 0; i < 10 && performance.now() - warming < 300; i++) result = run();
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    result = run();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { ms: samples[Math.floor(samples.length / 2)]!, result };
}

/** Matching lines as vault_grep finds them: the engine over whole notes, in line mode. */
function engineCount(pattern: Pattern, texts: string[]): number {
  const scanner = pattern.scanner({ lines: true });
  const meter = { left: Infinity };
  let count = 0;
  for (const text of texts) {
    for (let from = 0; ; ) {
      const end = scanner.reset(text, from).run(meter);
      if (end === MORE || end < 0) break;
      count++;
      const next = text.indexOf("\n", end);
      if (next < 0) break;
      from = next + 1;
    }
  }
  return count;
}

/** Matching lines as vault_grep found them before: RegExp.test on each line. */
function nativeCount(regex: RegExp, texts: string[]): number {
  let count = 0;
  for (const text of texts) for (const line of text.split(/\r?\n/)) if (regex.test(line)) count++;
  return count;
}

/** Every note with every match replaced, as vault_replace plans: a yes/no scan first, then the spans. Returns the new texts' total length. */
function engineReplace(pattern: Pattern, texts: string[], template: string): number {
  const scanner = pattern.scanner();
  const matcher = pattern.matcher();
  const meter = { left: Infinity };
  let length = 0;
  for (const text of texts) {
    const found = scanner.reset(text).run(meter);
    if (found === MORE || found < 0) {
      length += text.length;
      continue;
    }
    const replaced = new Replacement(matcher, text, (match) => expandReplacement(template, text, match, pattern.names)).run(meter);
    if (replaced !== MORE) length += replaced.text.length;
  }
  return length;
}

function nativeReplace(regex: RegExp, texts: string[], template: string): number {
  let length = 0;
  for (const text of texts) length += text.replace(regex, template).length;
  return length;
}

const REPLACEMENTS: Array<[string, string, string]> = [
  ["\\[\\[([^\\]|#]+)(#[^\\]|]*)?(\\|[^\\]]*)?\\]\\]", "", "[[$1$2$3]]"],
  ["^(#{1,6}) (.*)$", "m", "$1 $2"],
  ["obsidian", "i", "Obsidian"],
  ["\\s+$", "m", ""],
];

function compareReplace(label: string, texts: string[]): void {
  console.log(`\n${label}: every match replaced in whole notes, as vault_replace plans`);
  console.log("| pattern | flags | characters after | engine ms | RegExp ms | ratio |");
  console.log("| --- | --- | ---: | ---: | ---: | ---: |");
  for (const [source, flags, template] of REPLACEMENTS) {
    const pattern = compilePattern(source, { ignoreCase: flags.includes("i"), multiline: flags.includes("m"), captures: /\$[0-9<]/.test(template) });
    const regex = new RegExp(source, `gu${flags}`);
    const engine = time(() => engineReplace(pattern, texts, template));
    const native = time(() => nativeReplace(regex, texts, template));
    if (engine.result !== native.result) throw new Error(`${source}: the engine's texts have ${engine.result} characters, RegExp's ${native.result}`);
    console.log(`| \`${source}\` | ${flags} | ${engine.result} | ${engine.ms.toFixed(1)} | ${native.ms.toFixed(1)} | ${(engine.ms / Math.max(native.ms, 0.01)).toFixed(1)}× |`);
  }
}

const PATTERNS: Array<[string, boolean]> = [
  ["obsidian", false],
  ["Obsidian", true],
  ["TODO\\b", false],
  ["https?://[^\\s)]+", false],
  ["\\[\\[[^\\]|]+(\\|[^\\]]+)?\\]\\]", true],
  ["^#{1,6} ", true],
  ["\\b\\w+ing\\b", false],
  ["(?<year>\\d{4})-\\d{2}-\\d{2}", true],
  ["zebra-quokka", false],
];

function compare(label: string, texts: string[]): void {
  const chars = texts.reduce((sum, text) => sum + text.length, 0);
  console.log(`\n${label}: ${(chars / 1e6).toFixed(2)} M characters; split into lines and matched, as vault_grep does`);
  console.log("| pattern | case | matching lines | engine ms | RegExp ms | ratio |");
  console.log("| --- | --- | ---: | ---: | ---: | ---: |");
  for (const [source, caseSensitive] of PATTERNS) {
    const pattern = compilePattern(source, { ignoreCase: !caseSensitive, captures: false });
    const regex = new RegExp(source, caseSensitive ? "u" : "iu");
    const engine = time(() => engineCount(pattern, texts));
    const native = time(() => nativeCount(regex, texts));
    if (engine.result !== native.result) throw new Error(`${source}: engine found ${engine.result} lines, RegExp ${native.result}`);
    const ratio = engine.ms / Math.max(native.ms, 0.01);
    console.log(`| \`${source}\` | ${caseSensitive ? "exact" : "ignore"} | ${engine.result} | ${engine.ms.toFixed(1)} | ${native.ms.toFixed(1)} | ${ratio.toFixed(1)}× |`);
  }
}

function syntheticNote(help: string[]): string {
  let text = "";
  for (let i = 0; text.length < 4 * 1024 * 1024; i++) text += help[i % help.length]! + "\n";
  return text;
}

const help = notes(path.join(fixtures, "obsidian-help-en"));
const big = syntheticNote(help);
const extra = option("vault", "");
const vaultNotes = extra === "" ? [] : notes(extra);
compare(`obsidian-help-en (${help.length} notes)`, help);
if (extra !== "") compare(`${path.basename(extra)} (${vaultNotes.length} notes)`, vaultNotes);
compare("one synthetic 4 MB note", [big]);
compareReplace(`obsidian-help-en (${help.length} notes)`, help);
if (extra !== "") compareReplace(`${path.basename(extra)} (${vaultNotes.length} notes)`, vaultNotes);
compareReplace("one synthetic 4 MB note", [big]);

console.log("\nPatterns that hang a backtracking engine, on one line of 50,000 characters (engine only):");
console.log("| pattern | line | ms |");
console.log("| --- | --- | ---: |");
const attacks: Array<[string, string]> = [
  ["(a+)+b", "a".repeat(50_000)],
  ["(.*a){20}b", "a".repeat(50_000)],
  ["a*a*a*a*a*a*b", "a".repeat(50_000)],
  ["(a|aa)+b", "a".repeat(50_000)],
  ["(a+){1,1000}b", "a".repeat(50_000)],
  ["(\\w*\\s?)*$", "word ".repeat(10_000) + "!"],
];
for (const [source, line] of attacks) {
  const pattern = compilePattern(source, { captures: false });
  const { ms } = time(() => engineCount(pattern, [line]));
  console.log(`| \`${source}\` | ${line.slice(0, 6)}… | ${ms.toFixed(0)} |`);
}
