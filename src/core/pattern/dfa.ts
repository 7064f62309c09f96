// Whether a text holds a match at all, and where the first one to end ends: what vault_grep asks of
// every line. The program's threads are tracked as sets, and each set met with each character is
// turned into the next set once and remembered (a lazy DFA, as RE2 has), so a character costs a table
// lookup once the sets are known, and at most one set's construction (program size) before: linear
// either way. A pattern built to make sets without end only makes the table start afresh now and then.
// In line mode each line of the text is a subject of its own (as if split at \n and \r\n), but the
// prefilter runs over the whole text, so lines without a candidate cost nothing.
import * as op from "./compile";
import type { Program } from "./compile";
import { foldCodePoint } from "./fold";
import { Prefilter } from "./prefilter";
import { MORE, type WorkMeter } from "./meter";

const OP_MATCH = op.OP_MATCH;
const OP_CHAR = op.OP_CHAR;
const OP_CHAR_FOLD = op.OP_CHAR_FOLD;
const OP_CLASS = op.OP_CLASS;
const OP_ANY = op.OP_ANY;
const OP_ANY_NOT_NL = op.OP_ANY_NOT_NL;
const OP_SPLIT = op.OP_SPLIT;
const OP_JMP = op.OP_JMP;
const OP_BOL = op.OP_BOL;
const OP_EOL = op.OP_EOL;
const OP_BOL_LINE = op.OP_BOL_LINE;
const OP_EOL_LINE = op.OP_EOL_LINE;
const OP_BOUNDARY = op.OP_BOUNDARY;
const OP_NOT_BOUNDARY = op.OP_NOT_BOUNDARY;

/** What the character on one side of a position is, as far as `^ $ \b \B` care. */
const AT_EDGE = 0;
const LINE_BREAK = 1;
const WORD = 2;
/** Long s and the Kelvin sign: word characters only under `i`. */
const FOLDED_WORD = 3;
const OTHER = 4;

const UNKNOWN = -1;
const MATCHED = -2;

/** Sets kept at once (each with two 128-entry tables for ASCII, 1 KiB); past it the table starts afresh. */
const MAX_STATES = 2000;

function kindOf(unit: number): number {
  if (unit < 128) {
    if ((unit >= 0x30 && unit <= 0x39) || (unit >= 0x41 && unit <= 0x5a) || (unit >= 0x61 && unit <= 0x7a) || unit === 0x5f) return WORD;
    return unit === 0x0a || unit === 0x0d ? LINE_BREAK : OTHER;
  }
  if (unit === 0x2028 || unit === 0x2029) return LINE_BREAK;
  return unit === 0x17f || unit === 0x212a ? FOLDED_WORD : OTHER;
}

class State {
  readonly ascii = new Int32Array(128).fill(UNKNOWN);
  /**
   * The same steps, for the scan's inner loop: only those it may take without a look at anything
   * else (not into an idle state, where the prefilter takes over, nor over a line break).
   */
  readonly fast = new Int32Array(128).fill(UNKNOWN);
  other: Map<number, number> | null = null;
  /** Whether a match ends at the end of the text: -1 not yet known, 0 no, 1 yes. */
  atEnd = -1;
  /** No thread alive but the one starting here: the prefilter may skip ahead. */
  readonly idle: boolean;

  constructor(
    readonly kernel: Int32Array,
    readonly before: number,
    unanchored: boolean,
  ) {
    this.idle = unanchored && kernel.length === 1 && kernel[0] === 0;
  }
}

const START_KERNEL = Int32Array.of(0);

export class Scanner {
  private readonly program: Program;
  private readonly prefilter: Prefilter;
  private readonly unanchored: boolean;
  private readonly lines: boolean;
  private states: State[] = [];
  private ids = new Map<string, number>();
  /** The state with only the starting thread, per kind of character before it; -1 until made. */
  private readonly starts = new Int32Array(5).fill(-1);
  private readonly visited: Uint32Array;
  private generation = 0;
  private readonly stack: Int32Array;
  private text = "";
  private pos = 0;
  private state = 0;
  private done = true;

  /**
   * `lines`: each line is matched on its own, as vault_grep does. `anchored`: matches start only
   * where the search starts (for `probe`).
   */
  constructor(program: Program, options: { lines?: boolean; anchored?: boolean } = {}) {
    this.program = program;
    this.lines = options.lines === true;
    this.prefilter = new Prefilter(program.prefix, program.ignoreCase, program.first);
    this.unanchored = !program.anchored && options.anchored !== true;
    this.visited = new Uint32Array(program.ops.length);
    // The kernel, then at most two entries per instruction visited.
    this.stack = new Int32Array(program.ops.length * 3 + 2);
  }

  reset(text: string, from = 0): this {
    this.text = text;
    this.pos = from;
    this.done = from > text.length;
    this.prefilter.reset(text);
    this.state = this.start(this.kindBefore(from));
    return this;
  }

  private start(before: number): number {
    const known = this.starts[before]!;
    return known >= 0 ? known : (this.starts[before] = this.intern(START_KERNEL, before));
  }

  private kindBefore(pos: number): number {
    if (pos === 0) return AT_EDGE;
    const unit = this.text.charCodeAt(pos - 1);
    return this.lines && unit === 0x0a ? AT_EDGE : kindOf(unit);
  }

  private intern(kernel: Int32Array, before: number): number {
    const key = `${before}|${kernel.join(",")}`;
    const known = this.ids.get(key);
    if (known !== undefined) return known;
    if (this.states.length >= MAX_STATES) {
      this.states = [];
      this.ids = new Map();
      this.starts.fill(-1);
    }
    this.states.push(new State(kernel, before, this.unanchored));
    this.ids.set(key, this.states.length - 1);
    return this.states.length - 1;
  }

  /**
   * Scans until the first match ends (its end is returned), the text ends without one (-1), or
   * the meter runs out (MORE: call again to go on). The end is that of the match that ends first,
   * not necessarily the leftmost one's; in line mode, call `reset(text, next line)` to go on.
   */
  run(meter: WorkMeter): number | typeof MORE {
    if (this.done) return -1;
    const lines = this.lines;
    const text = this.text;
    const length = text.length;
    const prefilter = this.prefilter;
    const skips = prefilter.skips;
    let pos = this.pos;
    let work = meter.left;
    let states = this.states;
    let state = states[this.state]!;
    for (;;) {
      while (pos < length) {
        const unit = text.charCodeAt(pos);
        if (unit >= 128) break;
        const next = state.fast[unit]!;
        if (next < 0) break;
        state = states[next]!;
        pos++;
        if (--work <= 0) return this.pause(meter, work, pos, next);
      }
      if (state.idle) {
        if (skips) {
          const next = prefilter.next(pos);
          if (next < 0) return this.finish(meter, work, -1);
          if (next !== pos) {
            work -= (next - pos) / 16;
            pos = next;
            state = states[this.start(this.kindBefore(pos))]!;
          }
        }
      } else if (state.kernel.length === 0) {
        if (!lines) return this.finish(meter, work, -1);
        const end = text.indexOf("\n", pos);
        if (end < 0) return this.finish(meter, work, -1);
        work -= (end - pos) / 16;
        pos = end + 1;
        state = states[this.start(AT_EDGE)]!;
        continue;
      }
      if (lines && pos < length) {
        const unit = text.charCodeAt(pos);
        const breadth = unit === 0x0a ? 1 : unit === 0x0d && text.charCodeAt(pos + 1) === 0x0a ? 2 : 0;
        if (breadth > 0) {
          if (state.atEnd < 0) state.atEnd = this.closure(state, AT_EDGE, -1) === MATCHED ? 1 : 0;
          if (state.atEnd === 1) return this.finish(meter, work, pos);
          pos += breadth;
          const id = this.start(AT_EDGE);
          states = this.states;
          state = states[id]!;
          if (--work <= 0) return this.pause(meter, work, pos, id);
          continue;
        }
      }
      if (pos >= length) {
        if (state.atEnd < 0) state.atEnd = this.closure(state, AT_EDGE, -1) === MATCHED ? 1 : 0;
        return this.finish(meter, work, state.atEnd === 1 ? pos : -1);
      }
      let c = text.charCodeAt(pos);
      let width = 1;
      if (c >= 0xd800 && c <= 0xdbff && pos + 1 < length) {
        const trail = text.charCodeAt(pos + 1);
        if (trail >= 0xdc00 && trail <= 0xdfff) {
          c = (c - 0xd800) * 0x400 + (trail - 0xdc00) + 0x10000;
          width = 2;
        }
      }
      let next = c < 128 ? state.ascii[c]! : (state.other?.get(c) ?? UNKNOWN);
      if (next === UNKNOWN) {
        // A table that starts afresh meanwhile leaves `state` outside it; the id returned is in the new one.
        next = this.closure(state, kindOf(width === 2 ? 0xd800 : c), c);
        states = this.states;
        work -= this.program.ops.length / 4;
        if (c < 128) {
          state.ascii[c] = next;
          if (next >= 0 && !states[next]!.idle && !(lines && (c === 0x0a || c === 0x0d))) state.fast[c] = next;
        } else (state.other ??= new Map()).set(c, next);
      }
      if (next === MATCHED) return this.finish(meter, work, pos);
      state = states[next]!;
      pos += width;
      if (--work <= 0) return this.pause(meter, work, pos, next);
    }
  }

  private pause(meter: WorkMeter, work: number, pos: number, id: number): typeof MORE {
    this.pos = pos;
    this.state = id;
    meter.left = work;
    return MORE;
  }

  /**
   * Whether a match starts at `at` (with an anchored scanner): 1 yes, 0 no, -1 not known after
   * looking at `limit` characters. Costs at most `limit` steps, so callers may ask at every candidate.
   */
  probe(text: string, at: number, limit: number): number {
    this.text = text;
    let pos = at;
    let state = this.states[this.start(this.kindBefore(at))]!;
    for (let seen = 0; ; seen++) {
      if (state.kernel.length === 0) return 0;
      if (pos >= text.length) {
        if (state.atEnd < 0) state.atEnd = this.closure(state, AT_EDGE, -1) === MATCHED ? 1 : 0;
        return state.atEnd;
      }
      if (seen >= limit) return -1;
      let c = text.charCodeAt(pos);
      let width = 1;
      if (c >= 0xd800 && c <= 0xdbff && pos + 1 < text.length) {
        const trail = text.charCodeAt(pos + 1);
        if (trail >= 0xdc00 && trail <= 0xdfff) {
          c = (c - 0xd800) * 0x400 + (trail - 0xdc00) + 0x10000;
          width = 2;
        }
      }
      let next = c < 128 ? state.ascii[c]! : (state.other?.get(c) ?? UNKNOWN);
      if (next === UNKNOWN) {
        next = this.closure(state, kindOf(width === 2 ? 0xd800 : c), c);
        if (c < 128) state.ascii[c] = next;
        else (state.other ??= new Map()).set(c, next);
      }
      if (next === MATCHED) return 1;
      state = this.states[next]!;
      pos += width;
    }
  }

  private finish(meter: WorkMeter, work: number, result: number): number {
    this.done = true;
    meter.left = work;
    return result;
  }

  /**
   * Follows the state's threads through everything that consumes nothing, with `before` and the
   * kind of the next character deciding assertions; MATCHED when a thread reaches the end of the
   * program, else the state after consuming `c` (c < 0: the end of the text, no step).
   */
  private closure(state: State, nextKind: number, c: number): number {
    const { ops, a, b, classes } = this.program;
    if (++this.generation === 0xffffffff) {
      this.visited.fill(0);
      this.generation = 1;
    }
    const generation = this.generation;
    const visited = this.visited;
    const stack = this.stack;
    const before = state.before;
    const atEnd = c < 0;
    const folded = c >= 0 && this.program.folds ? foldCodePoint(c) : c;
    const following: number[] = [];
    let depth = 0;
    for (let i = state.kernel.length - 1; i >= 0; i--) stack[depth++] = state.kernel[i]!;
    while (depth > 0) {
      const pc = stack[--depth]!;
      if (visited[pc] === generation) continue;
      visited[pc] = generation;
      const code = ops[pc]!;
      let pass = true;
      switch (code) {
        case OP_MATCH:
          return MATCHED;
        case OP_JMP:
          stack[depth++] = a[pc]!;
          continue;
        case OP_SPLIT:
          stack[depth++] = b[pc]!;
          stack[depth++] = a[pc]!;
          continue;
        case OP_CHAR:
          if (!atEnd && c === a[pc]) following.push(pc + 1);
          continue;
        case OP_CHAR_FOLD:
          if (!atEnd && folded === a[pc]) following.push(pc + 1);
          continue;
        case OP_CLASS:
          if (!atEnd && classes[a[pc]!]!.test(c)) following.push(pc + 1);
          continue;
        case OP_ANY:
          if (!atEnd) following.push(pc + 1);
          continue;
        case OP_ANY_NOT_NL:
          if (!atEnd && c !== 0x0a && c !== 0x0d && c !== 0x2028 && c !== 0x2029) following.push(pc + 1);
          continue;
        case OP_BOL:
          pass = before === AT_EDGE;
          break;
        case OP_EOL:
          pass = atEnd;
          break;
        case OP_BOL_LINE:
          pass = before === AT_EDGE || before === LINE_BREAK;
          break;
        case OP_EOL_LINE:
          pass = atEnd || nextKind === LINE_BREAK;
          break;
        case OP_BOUNDARY:
        case OP_NOT_BOUNDARY: {
          const foldedWords = a[pc] === 1;
          const wordBefore = before === WORD || (foldedWords && before === FOLDED_WORD);
          const wordAfter = !atEnd && (nextKind === WORD || (foldedWords && nextKind === FOLDED_WORD));
          pass = (wordBefore !== wordAfter) === (code === OP_BOUNDARY);
          break;
        }
        default:
          // Captures, resets and the empty check change which match is reported, never whether
          // there is one.
          break;
      }
      if (pass) stack[depth++] = pc + 1;
    }
    if (atEnd) return UNKNOWN;
    if (this.unanchored) following.push(0);
    following.sort((x, y) => x - y);
    return this.intern(Int32Array.from(following), kindOf(c > 0xffff ? 0xd800 : c));
  }
}
