// Tree to program: instructions for a Pike VM (Thompson's construction with priorities, as RE2 and Go's
// regexp run it), plus what the scan can skip ahead with while no thread is alive.
import { ToolError } from "../errors";
import { CharClass, contains, LINE_TERMINATORS, MAX_CODE_POINT, union, type Ranges } from "./charset";
import { caseVariants, foldCodePoint, hasCaseVariant } from "./fold";
import { nullable, type Node, type ParsedPattern, type PatternFlags } from "./parse";

/**
 * The most instructions a pattern compiles to. Matching costs at most program × text steps, so this
 * bounds the cost per character; counted repetitions are written out, which is what makes them large.
 */
export const MAX_PROGRAM = 10_000;

export const OP_MATCH = 0;
export const OP_CHAR = 1;
/** a: the folded code point; the text's character is folded before the comparison. */
export const OP_CHAR_FOLD = 2;
/** a: index into `classes`. */
export const OP_CLASS = 3;
export const OP_ANY = 4;
export const OP_ANY_NOT_NL = 5;
/** Continue at a, then (lower priority) at b. */
export const OP_SPLIT = 6;
export const OP_JMP = 7;
/** slot a = position. */
export const OP_SAVE = 8;
/** slots a..b-1 = unset: the capture groups inside a repetition start afresh at each iteration. */
export const OP_RESET = 9;
/** slot a = position, where an optional iteration began. */
export const OP_MARK = 10;
/** The thread dies when slot a is this position: an optional iteration matched nothing (JavaScript's empty check). */
export const OP_PROGRESS = 11;
export const OP_BOL = 12;
export const OP_EOL = 13;
export const OP_BOL_LINE = 14;
export const OP_EOL_LINE = 15;
/** a: 1 when `\w` also takes the characters that fold into it (under `i`). */
export const OP_BOUNDARY = 16;
export const OP_NOT_BOUNDARY = 17;

export interface Program {
  ops: Int32Array;
  a: Int32Array;
  b: Int32Array;
  classes: CharClass[];
  /** Slots per thread: start and end of the match, of each group (when kept), then iteration marks. */
  slots: number;
  /** Slots that are captures: 2 × (groups + 1), or 2 when groups are not kept. */
  captureSlots: number;
  /** Whether some instruction compares folded characters. */
  folds: boolean;
  /** A match can only start at position 0. */
  anchored: boolean;
  /** Code points every match starts with (compared by fold when `ignoreCase`); may be empty. */
  prefix: number[];
  ignoreCase: boolean;
  /** UTF-16 units a match can start with (1), or null when a match may be empty or start anywhere. */
  first: Uint8Array | null;
}

const PREFIX_MAX = 64;

function tooLarge(): ToolError {
  return new ToolError(
    "invalid_argument",
    `The pattern is too large: its repetitions written out make more than ${MAX_PROGRAM.toLocaleString("en-US")} steps (x{100}{100} is x written 10,000 times; counts multiply when nested). Use smaller counts, or * / + for "any number".`,
  );
}

class Compiler {
  readonly ops: number[] = [];
  readonly a: number[] = [];
  readonly b: number[] = [];
  readonly classes: CharClass[] = [];
  private readonly classIndex = new Map<Node, number>();
  folds = false;
  slots: number;

  constructor(
    private readonly flags: PatternFlags,
    private readonly captures: boolean,
    groupCount: number,
  ) {
    this.slots = captures ? 2 * (groupCount + 1) : 2;
  }

  emit(op: number, a = 0, b = 0): number {
    if (this.ops.length >= MAX_PROGRAM) throw tooLarge();
    this.ops.push(op);
    this.a.push(a);
    this.b.push(b);
    return this.ops.length - 1;
  }

  get next(): number {
    return this.ops.length;
  }

  node(node: Node): void {
    switch (node.kind) {
      case "empty":
        return;
      case "char":
        if (this.flags.ignoreCase && hasCaseVariant(node.cp)) {
          this.folds = true;
          this.emit(OP_CHAR_FOLD, foldCodePoint(node.cp));
        } else this.emit(OP_CHAR, node.cp);
        return;
      case "class":
        this.klass(node);
        return;
      case "assert":
        this.assertion(node.what);
        return;
      case "group":
        if (this.captures) this.emit(OP_SAVE, 2 * node.index);
        this.node(node.body);
        if (this.captures) this.emit(OP_SAVE, 2 * node.index + 1);
        return;
      case "concat":
        for (const item of node.items) this.node(item);
        return;
      case "alt":
        this.alternation(node.items);
        return;
      case "repeat":
        this.repeat(node);
        return;
    }
  }

  private klass(node: Extract<Node, { kind: "class" }>): void {
    const { ranges, negated } = node;
    if (!negated && ranges.length === 2 && ranges[0] === 0 && ranges[1] === MAX_CODE_POINT) {
      this.emit(OP_ANY);
      return;
    }
    if (negated && ranges.length === LINE_TERMINATORS.length && ranges.every((value, i) => value === LINE_TERMINATORS[i])) {
      this.emit(OP_ANY_NOT_NL);
      return;
    }
    let index = this.classIndex.get(node);
    if (index === undefined) {
      const folded = this.flags.ignoreCase === true && caseVariants().some(([cp, fold]) => contains(ranges, cp) || contains(ranges, fold));
      if (folded) this.folds = true;
      index = this.classes.push(new CharClass(ranges, negated, folded)) - 1;
      this.classIndex.set(node, index);
    }
    this.emit(OP_CLASS, index);
  }

  private assertion(what: "start" | "end" | "boundary" | "not_boundary"): void {
    const lines = this.flags.multiline === true;
    if (what === "start") this.emit(lines ? OP_BOL_LINE : OP_BOL);
    else if (what === "end") this.emit(lines ? OP_EOL_LINE : OP_EOL);
    else this.emit(what === "boundary" ? OP_BOUNDARY : OP_NOT_BOUNDARY, this.flags.ignoreCase ? 1 : 0);
  }

  private alternation(items: Node[]): void {
    const exits: number[] = [];
    for (let i = 0; i < items.length; i++) {
      if (i === items.length - 1) {
        this.node(items[i]!);
        break;
      }
      const split = this.emit(OP_SPLIT);
      this.a[split] = this.next;
      this.node(items[i]!);
      exits.push(this.emit(OP_JMP));
      this.b[split] = this.next;
    }
    for (const exit of exits) this.a[exit] = this.next;
  }

  /**
   * One iteration: the groups inside are unset again first, as in JavaScript, unless every match
   * of the body sets them all anyway.
   */
  private iteration(node: Extract<Node, { kind: "repeat" }>): void {
    const groups = node.groupsTo - node.groupsFrom;
    if (this.captures && groups > 0 && alwaysSet(node.body).size < groups) this.emit(OP_RESET, 2 * node.groupsFrom, 2 * node.groupsTo);
    this.node(node.body);
  }

  private repeat(node: Extract<Node, { kind: "repeat" }>): void {
    const { min, max, greedy } = node;
    const empty = nullable(node.body);
    if (max === Infinity && min >= 1 && !empty) {
      // x{n,}: n-1 copies, then a loop that runs the last copy again and again.
      for (let i = 1; i < min; i++) this.iteration(node);
      const top = this.next;
      this.iteration(node);
      const split = this.emit(OP_SPLIT);
      [this.a[split], this.b[split]] = greedy ? [top, this.next] : [this.next, top];
      return;
    }
    for (let i = 0; i < min; i++) this.iteration(node);
    // JavaScript's empty check: an iteration past the minimum that matched nothing fails.
    const mark = empty ? this.slots++ : -1;
    if (max === Infinity) {
      const split = this.emit(OP_SPLIT);
      const body = this.next;
      if (mark >= 0) this.emit(OP_MARK, mark);
      this.iteration(node);
      if (mark >= 0) this.emit(OP_PROGRESS, mark);
      this.emit(OP_JMP, split);
      [this.a[split], this.b[split]] = greedy ? [body, this.next] : [this.next, body];
      return;
    }
    const splits: number[] = [];
    for (let i = min; i < max; i++) {
      const split = this.emit(OP_SPLIT);
      splits.push(split);
      this.a[split] = this.next;
      if (mark >= 0) this.emit(OP_MARK, mark);
      this.iteration(node);
      if (mark >= 0) this.emit(OP_PROGRESS, mark);
    }
    for (const split of splits) {
      const body = this.a[split]!;
      [this.a[split], this.b[split]] = greedy ? [body, this.next] : [this.next, body];
    }
  }
}

/** The groups that every match of `node` sets. */
function alwaysSet(node: Node): Set<number> {
  switch (node.kind) {
    case "group":
      return new Set([node.index, ...alwaysSet(node.body)]);
    case "concat":
      return new Set(node.items.flatMap((item) => [...alwaysSet(item)]));
    case "alt": {
      const sets = node.items.map(alwaysSet);
      return new Set([...sets[0]!].filter((index) => sets.every((set) => set.has(index))));
    }
    case "repeat":
      return node.min >= 1 ? alwaysSet(node.body) : new Set();
    default:
      return new Set();
  }
}

/** Code points `node` may start with, and whether it can match nothing at all. */
function firstOf(node: Node, flags: PatternFlags): { ranges: number[]; empty: boolean } {
  switch (node.kind) {
    case "empty":
    case "assert":
      return { ranges: [], empty: true };
    case "char":
      return { ranges: flags.ignoreCase ? variantsOf(node.cp) : [node.cp, node.cp], empty: false };
    case "class": {
      const folded = flags.ignoreCase === true;
      return { ranges: new CharClass(node.ranges, node.negated, folded).matchable(), empty: false };
    }
    case "group":
      return firstOf(node.body, flags);
    case "concat": {
      const parts: Ranges[] = [];
      for (const item of node.items) {
        const first = firstOf(item, flags);
        parts.push(first.ranges);
        if (!first.empty) return { ranges: union(...parts), empty: false };
      }
      return { ranges: union(...parts), empty: true };
    }
    case "alt": {
      const firsts = node.items.map((item) => firstOf(item, flags));
      return { ranges: union(...firsts.map((first) => first.ranges)), empty: firsts.some((first) => first.empty) };
    }
    case "repeat": {
      const first = firstOf(node.body, flags);
      return { ranges: first.ranges, empty: node.min === 0 || first.empty };
    }
  }
}

export function variantsOf(cp: number): number[] {
  const folded = foldCodePoint(cp);
  const out = [cp, cp, folded, folded];
  for (const [variant, fold] of caseVariants()) if (fold === folded) out.push(variant, variant);
  return union(out);
}

/** The code points every match of `node` starts with (compared by fold under `i`); `whole` when the node is exactly them. */
function prefixOf(node: Node): { cps: number[]; whole: boolean } {
  switch (node.kind) {
    case "empty":
    case "assert":
      return { cps: [], whole: true };
    case "char":
      return { cps: [node.cp], whole: true };
    case "class":
      if (!node.negated && node.ranges.length === 2 && node.ranges[0] === node.ranges[1]) return { cps: [node.ranges[0]!], whole: true };
      return { cps: [], whole: false };
    case "group":
      return prefixOf(node.body);
    case "concat": {
      const cps: number[] = [];
      for (const item of node.items) {
        const part = prefixOf(item);
        cps.push(...part.cps);
        if (!part.whole || cps.length >= PREFIX_MAX) return { cps: cps.slice(0, PREFIX_MAX), whole: false };
      }
      return { cps, whole: true };
    }
    case "alt":
      return { cps: [], whole: false };
    case "repeat":
      return node.min >= 1 ? { cps: prefixOf(node.body).cps, whole: false } : { cps: [], whole: false };
  }
}

function anchoredOf(node: Node, flags: PatternFlags): boolean {
  switch (node.kind) {
    case "assert":
      return node.what === "start" && !flags.multiline;
    case "group":
      return anchoredOf(node.body, flags);
    case "concat":
      return node.items.length > 0 && anchoredOf(node.items[0]!, flags);
    case "alt":
      return node.items.every((item) => anchoredOf(item, flags));
    case "repeat":
      return node.min >= 1 && anchoredOf(node.body, flags);
    default:
      return false;
  }
}

function firstUnits(ranges: Ranges): Uint8Array {
  const units = new Uint8Array(0x10000);
  for (let i = 0; i < ranges.length; i += 2) {
    const low = ranges[i]!;
    const high = ranges[i + 1]!;
    if (low <= 0xffff) units.fill(1, low, Math.min(high, 0xffff) + 1);
    if (high > 0xffff) {
      // An astral character starts with its high surrogate.
      const from = 0xd800 + ((Math.max(low, 0x10000) - 0x10000) >> 10);
      const to = 0xd800 + ((high - 0x10000) >> 10);
      units.fill(1, from, to + 1);
    }
  }
  return units;
}

export function compileProgram(parsed: ParsedPattern, flags: PatternFlags, captures: boolean): Program {
  const compiler = new Compiler(flags, captures, parsed.groupCount);
  compiler.node(parsed.root);
  compiler.emit(OP_MATCH);
  const first = firstOf(parsed.root, flags);
  return {
    ops: Int32Array.from(compiler.ops),
    a: Int32Array.from(compiler.a),
    b: Int32Array.from(compiler.b),
    classes: compiler.classes,
    slots: compiler.slots,
    captureSlots: captures ? 2 * (parsed.groupCount + 1) : 2,
    folds: compiler.folds,
    anchored: anchoredOf(parsed.root, flags),
    prefix: prefixOf(parsed.root).cps,
    ignoreCase: flags.ignoreCase === true,
    first: first.empty ? null : firstUnits(first.ranges),
  };
}
