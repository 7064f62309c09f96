// The pattern language: JavaScript's regular expressions with the `u` flag, less what a linear-time
// engine cannot do (backreferences, lookaround), as RE2 does. Parsed into a small tree for the compiler.
import { ToolError } from "../errors";
import { complement, DIGITS, LINE_TERMINATORS, MAX_CODE_POINT, normalize, SPACE, WORD, WORD_FOLDED, type Ranges } from "./charset";

/** RE2's limit: a counted repetition is written out that many times, so its count is bounded. */
export const MAX_REPEAT = 1000;

export interface PatternFlags {
  /** `i`: letters match regardless of case (Unicode simple case folding). */
  ignoreCase?: boolean;
  /** `m`: `^` and `$` also match at line breaks. */
  multiline?: boolean;
  /** `s`: `.` also matches line breaks. */
  dotAll?: boolean;
}

export type Node =
  | { kind: "empty" }
  | { kind: "char"; cp: number }
  | { kind: "class"; ranges: Ranges; negated: boolean }
  | { kind: "assert"; what: "start" | "end" | "boundary" | "not_boundary" }
  | { kind: "group"; index: number; body: Node }
  | { kind: "concat"; items: Node[] }
  | { kind: "alt"; items: Node[] }
  /** `groupsFrom`..`groupsTo` (exclusive): the capture groups inside, reset at each iteration as JavaScript does. */
  | { kind: "repeat"; body: Node; min: number; max: number; greedy: boolean; groupsFrom: number; groupsTo: number };

export interface ParsedPattern {
  root: Node;
  /** Capture groups, not counting the whole match. */
  groupCount: number;
  names: Map<string, number>;
}

const SYNTAX_CHARACTERS = "^$\\.*+?()[]{}|/";
const NAME_START = /^[\p{ID_Start}$_]$/u;
const NAME_PART = /^[\p{ID_Continue}$\u200c\u200d]$/u;

function invalid(message: string): ToolError {
  return new ToolError("invalid_argument", message);
}

const LOOKAROUND: Record<string, string> = {
  "?=": "a lookahead (?=…)",
  "?!": "a negative lookahead (?!…)",
  "?<=": "a lookbehind (?<=…)",
  "?<!": "a negative lookbehind (?<!…)",
};

class Parser {
  private readonly cps: number[];
  private at = 0;
  private groups = 0;
  readonly names = new Map<string, number>();

  constructor(
    source: string,
    private readonly flags: PatternFlags,
  ) {
    this.cps = Array.from(source, (char) => char.codePointAt(0)!);
  }

  /** The position in the pattern, counted in characters from 1, for messages. */
  private where(at = this.at): string {
    return `at character ${at + 1}`;
  }

  private fail(reason: string, at = this.at): never {
    throw invalid(`The pattern is not a valid regular expression: ${reason} ${this.where(at)}.`);
  }

  private peek(offset = 0): number | undefined {
    return this.cps[this.at + offset];
  }

  private eat(char: string): boolean {
    if (this.peek() !== char.codePointAt(0)) return false;
    this.at++;
    return true;
  }

  private lookingAt(text: string): boolean {
    for (let i = 0; i < text.length; i++) if (this.peek(i) !== text.charCodeAt(i)) return false;
    return true;
  }

  parse(): ParsedPattern {
    const root = this.disjunction();
    if (this.at < this.cps.length) {
      // Only an unmatched ")" stops a disjunction early.
      this.fail('unmatched ")" (escape it as \\) for the character itself)');
    }
    return { root, groupCount: this.groups, names: this.names };
  }

  private disjunction(): Node {
    const items = [this.alternative()];
    while (this.eat("|")) items.push(this.alternative());
    return items.length === 1 ? items[0]! : { kind: "alt", items };
  }

  private alternative(): Node {
    const items: Node[] = [];
    while (this.at < this.cps.length && this.peek() !== 0x7c && this.peek() !== 0x29) items.push(this.term());
    if (items.length === 0) return { kind: "empty" };
    return items.length === 1 ? items[0]! : { kind: "concat", items };
  }

  private term(): Node {
    const start = this.at;
    const groupsBefore = this.groups;
    const atom = this.atom();
    const quantifier = this.quantifier();
    if (quantifier === null) return atom;
    if (atom.kind === "assert" && this.cps[start] !== 0x28) this.fail(`nothing to repeat (${String.fromCodePoint(this.cps[start]!)} is a position, not a character)`, start);
    return { kind: "repeat", body: atom, ...quantifier, groupsFrom: groupsBefore + 1, groupsTo: this.groups + 1 };
  }

  private quantifier(): { min: number; max: number; greedy: boolean } | null {
    const char = this.peek();
    let min: number;
    let max: number;
    if (char === 0x2a) [min, max] = [0, Infinity];
    else if (char === 0x2b) [min, max] = [1, Infinity];
    else if (char === 0x3f) [min, max] = [0, 1];
    else if (char === 0x7b) {
      const counted = this.counted();
      if (counted === null) this.fail('a "{" that does not start a repetition {n}, {n,} or {n,m} (escape it as \\{)');
      [min, max] = counted;
    } else return null;
    this.at++;
    const greedy = !this.eat("?");
    return { min, max, greedy };
  }

  /** `{n}`, `{n,}`, `{n,m}` at the current position; leaves the position on the closing brace. */
  private counted(): [number, number] | null {
    const start = this.at;
    this.at++;
    const min = this.number();
    if (min === null) return this.rewind(start);
    let max = min;
    if (this.eat(",")) max = this.number() ?? Infinity;
    if (this.peek() !== 0x7d) return this.rewind(start);
    for (const count of [min, max]) {
      if (count !== Infinity && count > MAX_REPEAT) {
        throw invalid(
          `The pattern repeats ${count} times (${this.text(start, this.at + 1)}), more than the ${MAX_REPEAT} that RE2 syntax allows. Use a smaller count, or * / + for "any number".`,
        );
      }
    }
    if (max < min) this.fail(`the numbers of ${this.text(start, this.at + 1)} are out of order`, start);
    return [min, max];
  }

  private rewind(start: number): null {
    this.at = start;
    return null;
  }

  private text(from: number, to: number): string {
    return String.fromCodePoint(...this.cps.slice(from, to));
  }

  private number(): number | null {
    const start = this.at;
    let value = 0;
    while (this.peek() !== undefined && this.peek()! >= 0x30 && this.peek()! <= 0x39) {
      value = Math.min(value * 10 + this.peek()! - 0x30, Number.MAX_SAFE_INTEGER);
      this.at++;
    }
    return this.at === start ? null : value;
  }

  private atom(): Node {
    const start = this.at;
    const char = this.peek()!;
    this.at++;
    switch (char) {
      case 0x5e:
        return { kind: "assert", what: "start" };
      case 0x24:
        return { kind: "assert", what: "end" };
      case 0x2e:
        return this.flags.dotAll ? { kind: "class", ranges: [0, MAX_CODE_POINT], negated: false } : { kind: "class", ranges: LINE_TERMINATORS, negated: true };
      case 0x28:
        return this.group(start);
      case 0x5b:
        return this.characterClass();
      case 0x5c:
        return this.atomEscape(start);
      case 0x2a:
      case 0x2b:
      case 0x3f:
        return this.fail(`nothing to repeat before "${String.fromCodePoint(char)}" (escape it as \\${String.fromCodePoint(char)} for the character itself)`, start);
      case 0x7b:
        this.at = start;
        if (this.counted() !== null) this.fail("nothing to repeat before a {n} repetition", start);
        return this.fail('a lone "{" (escape it as \\{)', start);
      case 0x7d:
        return this.fail('a lone "}" (escape it as \\})', start);
      case 0x5d:
        return this.fail('a lone "]" (escape it as \\])', start);
      default:
        return { kind: "char", cp: char };
    }
  }

  private group(start: number): Node {
    if (this.eat("?")) {
      for (const [opener, what] of Object.entries(LOOKAROUND)) {
        if (this.lookingAt(opener.slice(1))) {
          throw invalid(
            `The pattern uses ${what} ${this.where(start)}; patterns run on a linear-time engine (RE2 syntax), which has no lookaround. Match the surrounding text as part of the pattern instead (capture the part you need and use $1 in a replacement), use \\b for a word boundary, or match the text and check it in a second call.`,
          );
        }
      }
      if (this.eat(":")) return this.closeGroup(start, this.disjunction());
      if (this.eat("<")) {
        const name = this.groupName();
        if (this.names.has(name)) this.fail(`the group name "${name}" is used twice`, start);
        const index = ++this.groups;
        this.names.set(name, index);
        return { kind: "group", index, body: this.closeGroup(start, this.disjunction()) };
      }
      if (this.peek() !== undefined && /^[a-zA-Z-]$/.test(String.fromCodePoint(this.peek()!))) {
        throw invalid(
          `The pattern sets flags inside a group ${this.where(start)}, which is not supported. Pass the flag to the tool instead (case_sensitive for vault_grep, flags for vault_replace).`,
        );
      }
      this.fail('"(?" that starts no known group (use (…), (?:…) or (?<name>…))', start);
    }
    const index = ++this.groups;
    return { kind: "group", index, body: this.closeGroup(start, this.disjunction()) };
  }

  private closeGroup(start: number, body: Node): Node {
    if (!this.eat(")")) this.fail('a "(" without its ")"', start);
    return body;
  }

  private groupName(): string {
    const start = this.at;
    let name = "";
    for (;;) {
      const cp = this.peek();
      if (cp === undefined) this.fail("a group name without its closing >", start);
      this.at++;
      if (cp === 0x3e) break;
      const char = String.fromCodePoint(cp);
      if (!(name === "" ? NAME_START : NAME_PART).test(char)) this.fail(`"${char}" cannot be part of a group name`, this.at - 1);
      name += char;
    }
    if (name === "") this.fail("an empty group name", start);
    return name;
  }

  private atomEscape(start: number): Node {
    const cp = this.peek();
    if (cp === undefined) this.fail("a \\ at the end of the pattern (write \\\\ for a backslash)", start);
    if (cp === 0x62) {
      this.at++;
      return { kind: "assert", what: "boundary" };
    }
    if (cp === 0x42) {
      this.at++;
      return { kind: "assert", what: "not_boundary" };
    }
    if (cp >= 0x31 && cp <= 0x39) this.backreference(start, `\\${this.text(this.at, this.at + 1)}`);
    if (cp === 0x6b) this.backreference(start, "\\k<…>");
    const klass = this.classEscape();
    if (klass !== null) return klass;
    return { kind: "char", cp: this.characterEscape(start, false) };
  }

  private backreference(start: number, written: string): never {
    throw invalid(
      `The pattern uses a backreference (${written}) ${this.where(start)}; patterns run on a linear-time engine (RE2 syntax), which has no backreferences. Match the candidates with a capture group and compare the repeated parts in a second step, or write the repeated text out.`,
    );
  }

  /** `\d \D \s \S \w \W` after the backslash, or null. */
  private classEscape(): Node | null {
    const cp = this.peek();
    const word = this.flags.ignoreCase ? WORD_FOLDED : WORD;
    const table: Record<number, [Ranges, boolean]> = { 0x64: [DIGITS, false], 0x44: [DIGITS, true], 0x73: [SPACE, false], 0x53: [SPACE, true], 0x77: [word, false], 0x57: [word, true] };
    if (cp === 0x70 || cp === 0x50) {
      throw invalid(
        `The pattern uses a Unicode property class (\\${String.fromCodePoint(cp)}{…}) ${this.where(this.at - 1)}, which is not supported. Write the characters out as ranges, e.g. [A-Za-zÀ-ÖØ-öø-ÿ] for Latin letters.`,
      );
    }
    const found = cp === undefined ? undefined : table[cp];
    if (found === undefined) return null;
    this.at++;
    return { kind: "class", ranges: found[0], negated: found[1] };
  }

  /** One character written with a backslash; the backslash is consumed, the position is after it. */
  private characterEscape(start: number, inClass: boolean): number {
    const cp = this.peek()!;
    this.at++;
    switch (cp) {
      case 0x66:
        return 0x0c;
      case 0x6e:
        return 0x0a;
      case 0x72:
        return 0x0d;
      case 0x74:
        return 0x09;
      case 0x76:
        return 0x0b;
      case 0x30:
        if (this.peek() !== undefined && this.peek()! >= 0x30 && this.peek()! <= 0x39) this.fail("\\0 followed by a digit (write \\x00 and the digit)", start);
        return 0;
      case 0x63: {
        const letter = this.peek();
        if (letter !== undefined && ((letter >= 0x41 && letter <= 0x5a) || (letter >= 0x61 && letter <= 0x7a))) {
          this.at++;
          return letter % 32;
        }
        return this.fail("\\c must be followed by a letter A-Z", start);
      }
      case 0x78: {
        const value = this.hex(2);
        return value ?? this.fail("\\x must be followed by two hexadecimal digits", start);
      }
      case 0x75:
        return this.unicodeEscape(start);
    }
    if (inClass && (cp === 0x2d || cp === 0x62)) return cp === 0x62 ? 0x08 : cp;
    if (SYNTAX_CHARACTERS.includes(String.fromCodePoint(cp))) return cp;
    return this.fail(`the escape \\${String.fromCodePoint(cp)} means nothing (escape only special characters; write the letter itself)`, start);
  }

  private hex(digits: number): number | null {
    let value = 0;
    for (let i = 0; i < digits; i++) {
      const digit = this.hexDigit(this.peek(i));
      if (digit < 0) return null;
      value = value * 16 + digit;
    }
    this.at += digits;
    return value;
  }

  private hexDigit(cp: number | undefined): number {
    if (cp === undefined) return -1;
    if (cp >= 0x30 && cp <= 0x39) return cp - 0x30;
    if (cp >= 0x41 && cp <= 0x46) return cp - 0x37;
    if (cp >= 0x61 && cp <= 0x66) return cp - 0x57;
    return -1;
  }

  private unicodeEscape(start: number): number {
    if (this.eat("{")) {
      let value = 0;
      let digits = 0;
      while (this.hexDigit(this.peek()) >= 0) {
        value = value * 16 + this.hexDigit(this.peek());
        digits++;
        this.at++;
        if (value > MAX_CODE_POINT) this.fail("\\u{…} beyond the last code point 10FFFF", start);
      }
      if (digits === 0 || !this.eat("}")) this.fail("\\u{ must hold hexadecimal digits and end with }", start);
      return value;
    }
    const lead = this.hex(4);
    if (lead === null) this.fail("\\u must be followed by four hexadecimal digits or {…}", start);
    if (lead >= 0xd800 && lead <= 0xdbff && this.lookingAt("\\u")) {
      const save = this.at;
      this.at += 2;
      const trail = this.hex(4);
      if (trail !== null && trail >= 0xdc00 && trail <= 0xdfff) return (lead - 0xd800) * 0x400 + (trail - 0xdc00) + 0x10000;
      this.at = save;
    }
    return lead;
  }

  private characterClass(): Node {
    const start = this.at - 1;
    const negated = this.eat("^");
    const pieces: number[][] = [];
    for (;;) {
      const cp = this.peek();
      if (cp === undefined) this.fail('a "[" without its "]"', start);
      if (cp === 0x5d) {
        this.at++;
        break;
      }
      const atomStart = this.at;
      const first = this.classAtom();
      if (this.peek() === 0x2d && this.peek(1) !== undefined && this.peek(1) !== 0x5d) {
        this.at++;
        const second = this.classAtom();
        if (typeof first !== "number" || typeof second !== "number") this.fail("a range with a class such as \\d or \\w at one end", atomStart);
        if (second < first) this.fail(`the range ${this.text(atomStart, this.at)} is out of order`, atomStart);
        pieces.push([first, second]);
      } else {
        pieces.push(typeof first === "number" ? [first, first] : first);
      }
    }
    return { kind: "class", ranges: normalize(pieces.flat()), negated };
  }

  /** One character, or the ranges of a class escape such as \d. */
  private classAtom(): number | number[] {
    const start = this.at;
    const cp = this.peek()!;
    this.at++;
    if (cp !== 0x5c) return cp;
    if (this.peek() === undefined) this.fail('a "[" without its "]"', start);
    const next = this.peek()!;
    if (next >= 0x31 && next <= 0x39) this.fail(`\\${String.fromCodePoint(next)} inside [ ] (a backreference cannot be part of a class)`, start);
    const klass = this.classEscape();
    if (klass !== null && klass.kind === "class") return klass.negated ? complement(klass.ranges) : klass.ranges.slice();
    return this.characterEscape(start, true);
  }
}

export function parsePattern(source: string, flags: PatternFlags): ParsedPattern {
  return new Parser(source, flags).parse();
}

/** Whether a tree can match the empty string. */
export function nullable(node: Node): boolean {
  switch (node.kind) {
    case "empty":
    case "assert":
      return true;
    case "char":
    case "class":
      return false;
    case "group":
      return nullable(node.body);
    case "concat":
      return node.items.every(nullable);
    case "alt":
      return node.items.some(nullable);
    case "repeat":
      return node.min === 0 || nullable(node.body);
  }
}
