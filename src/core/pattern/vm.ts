// The Pike VM: every thread of the program advances over the text together, one character at a time,
// so a search costs at most program × text steps whatever the pattern. Threads are kept in priority
// order and a thread reaching an instruction another one already holds at this position is dropped,
// which gives the leftmost-first match that a backtracking engine (JavaScript's) would find.
// The scan stops after a given amount of work and picks up where it left off, so a caller can give
// the event loop back and keep a time budget inside one long line.
import * as op from "./compile";
import type { Program } from "./compile";
import { foldCodePoint } from "./fold";
import { Scanner } from "./dfa";
import { MORE, type WorkMeter } from "./meter";
import { Prefilter } from "./prefilter";

// Local copies: an imported binding may be read through an accessor, and these are read per step.
const OP_ANY = op.OP_ANY;
const OP_ANY_NOT_NL = op.OP_ANY_NOT_NL;
const OP_BOL = op.OP_BOL;
const OP_BOL_LINE = op.OP_BOL_LINE;
const OP_BOUNDARY = op.OP_BOUNDARY;
const OP_CHAR = op.OP_CHAR;
const OP_CHAR_FOLD = op.OP_CHAR_FOLD;
const OP_CLASS = op.OP_CLASS;
const OP_EOL = op.OP_EOL;
const OP_EOL_LINE = op.OP_EOL_LINE;
const OP_JMP = op.OP_JMP;
const OP_MARK = op.OP_MARK;
const OP_MATCH = op.OP_MATCH;
const OP_NOT_BOUNDARY = op.OP_NOT_BOUNDARY;
const OP_PROGRESS = op.OP_PROGRESS;
const OP_RESET = op.OP_RESET;
const OP_SAVE = op.OP_SAVE;
const OP_SPLIT = op.OP_SPLIT;

export interface PatternMatch {
  /** UTF-16 offsets, as String.prototype.slice takes them. */
  index: number;
  end: number;
  /** Start and end of the whole match and of each group in turn; -1 for a group that took no part. */
  spans: Int32Array;
}

/** Skipping ahead over text costs this many characters per unit of work. */
const SKIP_PER_UNIT = 16;
/** How far the anchored DFA looks from a candidate before leaving the answer to the threads. */
const PROBE_CHARACTERS = 32;

const WORD_UNITS = new Uint8Array(128).map((_, unit) =>
  (unit >= 0x30 && unit <= 0x39) || (unit >= 0x41 && unit <= 0x5a) || (unit >= 0x61 && unit <= 0x7a) || unit === 0x5f ? 1 : 0,
);

function isLineTerminator(unit: number): boolean {
  return unit === 0x0a || unit === 0x0d || unit === 0x2028 || unit === 0x2029;
}

function isWord(unit: number, folded: boolean): boolean {
  if (unit < 128) return WORD_UNITS[unit] === 1;
  return folded && (unit === 0x17f || unit === 0x212a);
}

class Threads {
  readonly pcs: Int32Array;
  readonly caps: number[][];
  n = 0;

  constructor(size: number) {
    this.pcs = new Int32Array(size);
    this.caps = new Array<number[]>(size);
  }
}

/** A resumable search of one program over one text at a time; reuse it with `reset`. */
export class Matcher {
  private readonly program: Program;
  private readonly prefilter: Prefilter;
  /** Made on the first candidate: an anchored DFA that rules candidates out. */
  private probe: Scanner | null = null;
  private text = "";
  private pos = 0;
  private done = true;
  private current: Threads;
  private following: Threads;
  private best: number[] | null = null;
  private readonly visited: Uint32Array;
  /** For a split whose second branch waits on the stack: the generation and the stack slot it waits in. */
  private readonly pendingGeneration: Uint32Array;
  private readonly pendingDepth: Int32Array;
  private generation = 1;
  private readonly stackPcs: Int32Array;
  private readonly stackCaps: number[][];
  /** The split whose waiting branch each stack slot holds. */
  private readonly stackOwners: Int32Array;
  /** Instructions visited while adding threads, charged to the meter. */
  private spent = 0;

  constructor(program: Program) {
    this.program = program;
    this.prefilter = new Prefilter(program.prefix, program.ignoreCase, program.first);
    const size = program.ops.length;
    this.current = new Threads(size);
    this.following = new Threads(size);
    this.visited = new Uint32Array(size);
    this.pendingGeneration = new Uint32Array(size);
    this.pendingDepth = new Int32Array(size);
    this.stackPcs = new Int32Array(size + 1);
    this.stackCaps = new Array<number[]>(size + 1);
    this.stackOwners = new Int32Array(size + 1).fill(-1);
  }

  /** Starts a search for the leftmost match at or after `from`. */
  reset(text: string, from = 0): this {
    this.text = text;
    this.prefilter.reset(text);
    this.pos = from;
    this.done = from > text.length;
    this.current.n = 0;
    this.best = null;
    this.nextGeneration();
    return this;
  }

  private nextGeneration(): void {
    if (++this.generation === 0xffffffff) {
      this.visited.fill(0);
      this.pendingGeneration.fill(0);
      this.generation = 1;
    }
  }

  /**
   * Scans until the leftmost match is known (returned), the text ends without one (null), or the
   * meter runs out (MORE: call again to go on). Once it returned a match or null, `reset` starts anew.
   */
  run(meter: WorkMeter): PatternMatch | null | typeof MORE {
    if (this.done) return null;
    const { ops, a, classes, first, anchored, folds } = this.program;
    const prefilter = this.prefilter;
    const text = this.text;
    const length = text.length;
    let pos = this.pos;
    let work = meter.left;
    for (;;) {
      if (this.current.n === 0) {
        if (this.best !== null) return this.finish(meter, work);
        if (anchored && pos > 0) return this.finish(meter, work);
        for (;;) {
          if (prefilter.skips) {
            const next = prefilter.next(pos);
            if (next < 0) return this.finish(meter, work);
            if (next !== pos) {
              work -= (next - pos) / SKIP_PER_UNIT;
              pos = next;
              this.nextGeneration();
            }
          }
          if (anchored) break;
          // Most candidates fail within a few characters: a table lookup each in the anchored DFA
          // instead of threads, so that the VM only starts where a match may begin.
          this.probe ??= new Scanner(this.program, { anchored: true });
          work -= PROBE_CHARACTERS / 4;
          if (this.probe.probe(text, pos, PROBE_CHARACTERS) !== 0) break;
          pos += (text.charCodeAt(pos) & 0xfc00) === 0xd800 && (text.charCodeAt(pos + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
          if (pos > length) return this.finish(meter, work);
          this.nextGeneration();
          if (work <= 0) {
            this.pos = pos;
            meter.left = work;
            return MORE;
          }
        }
      }
      if (this.best === null && (!anchored || pos === 0) && (first === null || (pos < length && first[text.charCodeAt(pos)] === 1))) {
        const caps = this.program.slots === 2 ? [pos, -1] : new Array<number>(this.program.slots).fill(-1);
        caps[0] = pos;
        this.add(this.current, 0, caps, pos);
      }
      const current = this.current;
      if (pos >= length) {
        for (let i = 0; i < current.n; i++) {
          if (ops[current.pcs[i]!] === OP_MATCH) {
            this.best = current.caps[i]!.slice();
            this.best[1] = pos;
            break;
          }
        }
        return this.finish(meter, work);
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
      const folded = folds ? foldCodePoint(c) : c;
      const after = pos + width;
      this.nextGeneration();
      const following = this.following;
      following.n = 0;
      for (let i = 0; i < current.n; i++) {
        const pc = current.pcs[i]!;
        const caps = current.caps[i]!;
        switch (ops[pc]) {
          case OP_MATCH:
            this.best = caps.slice();
            this.best[1] = pos;
            // Threads after this one have lower priority: the match found here beats them all.
            i = current.n;
            break;
          case OP_CHAR:
            if (c === a[pc]) this.add(following, pc + 1, caps, after);
            break;
          case OP_CHAR_FOLD:
            if (folded === a[pc]) this.add(following, pc + 1, caps, after);
            break;
          case OP_CLASS:
            if (classes[a[pc]!]!.test(c)) this.add(following, pc + 1, caps, after);
            break;
          case OP_ANY:
            this.add(following, pc + 1, caps, after);
            break;
          case OP_ANY_NOT_NL:
            if (!isLineTerminator(c)) this.add(following, pc + 1, caps, after);
            break;
        }
      }
      work -= current.n + 1 + this.spent;
      this.spent = 0;
      this.current = following;
      this.following = current;
      pos = after;
      if (work <= 0) {
        this.pos = pos;
        meter.left = work;
        return MORE;
      }
    }
  }

  private finish(meter: WorkMeter, work: number): PatternMatch | null {
    this.done = true;
    meter.left = work - this.spent;
    this.spent = 0;
    const best = this.best;
    if (best === null) return null;
    return { index: best[0]!, end: best[1]!, spans: Int32Array.from(best.slice(0, this.program.captureSlots)) };
  }

  /** Adds the thread at `pc` and every thread it reaches without consuming a character, in priority order. */
  private add(list: Threads, pc0: number, caps0: number[], pos: number): void {
    const { ops, a, b } = this.program;
    const visited = this.visited;
    const generation = this.generation;
    const text = this.text;
    const stackPcs = this.stackPcs;
    const stackCaps = this.stackCaps;
    const stackOwners = this.stackOwners;
    const pending = this.pendingGeneration;
    const pendingDepth = this.pendingDepth;
    let depth = 0;
    stackPcs[0] = pc0;
    stackCaps[0] = caps0;
    depth = 1;
    let spent = 0;
    while (depth > 0) {
      depth--;
      let pc = stackPcs[depth]!;
      stackOwners[depth] = -1;
      let caps = stackCaps[depth]!;
      for (;;) {
        spent++;
        const op = ops[pc]!;
        // An empty optional iteration dies before it claims the instruction, so a thread that made
        // progress can still pass here.
        if (op === OP_PROGRESS && caps[a[pc]!] === pos) break;
        if (visited[pc] === generation) {
          // Back at a split whose second branch still waits: this path came round a loop without
          // consuming, and a backtracking engine would try that branch from here first, so it goes
          // on from here (the waiting entry then finds the branch taken and drops out).
          if (op === OP_SPLIT && pending[pc] === generation && pendingDepth[pc]! < depth && stackOwners[pendingDepth[pc]!] === pc) {
            pending[pc] = 0;
            pc = b[pc]!;
            continue;
          }
          break;
        }
        visited[pc] = generation;
        if (op === OP_JMP) {
          pc = a[pc]!;
        } else if (op === OP_SPLIT) {
          pending[pc] = generation;
          pendingDepth[pc] = depth;
          stackPcs[depth] = b[pc]!;
          stackCaps[depth] = caps;
          stackOwners[depth] = pc;
          depth++;
          pc = a[pc]!;
        } else if (op === OP_SAVE || op === OP_MARK) {
          caps = caps.slice();
          caps[a[pc]!] = pos;
          pc++;
        } else if (op === OP_RESET) {
          caps = caps.slice();
          caps.fill(-1, a[pc], b[pc]);
          pc++;
        } else if (op === OP_PROGRESS) {
          pc++;
        } else if (op === OP_BOL) {
          if (pos !== 0) break;
          pc++;
        } else if (op === OP_EOL) {
          if (pos !== text.length) break;
          pc++;
        } else if (op === OP_BOL_LINE) {
          if (pos !== 0 && !isLineTerminator(text.charCodeAt(pos - 1))) break;
          pc++;
        } else if (op === OP_EOL_LINE) {
          if (pos !== text.length && !isLineTerminator(text.charCodeAt(pos))) break;
          pc++;
        } else if (op === OP_BOUNDARY || op === OP_NOT_BOUNDARY) {
          const folded = a[pc] === 1;
          const before = pos > 0 && isWord(text.charCodeAt(pos - 1), folded);
          const here = pos < text.length && isWord(text.charCodeAt(pos), folded);
          if ((before !== here) !== (op === OP_BOUNDARY)) break;
          pc++;
        } else {
          list.pcs[list.n] = pc;
          list.caps[list.n] = caps;
          list.n++;
          break;
        }
      }
    }
    this.spent += spent;
  }
}
