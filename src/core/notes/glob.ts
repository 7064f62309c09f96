// Globs over vault paths: `*` and `?` stay within a segment, `**` crosses folders (`**/` also matches no
// folder at all), `{a,b}` picks one, letter case is ignored. A glob comes from any caller, read-only ones
// included, so it is never handed to a backtracking regex engine: `**?**?…Z` or `*a*a…*b` take
// exponential time there. It is compiled to a state machine instead (a Thompson NFA, walked as a DFA
// built lazily), so testing one path costs at most the glob's length times the path's.
import { ToolError } from "../errors";

export const MAX_GLOB_LENGTH = 256;
/** `{a,b,c}` is three alternatives; the bound counts them over the whole glob. */
export const MAX_GLOB_ALTERNATIVES = 64;
/** Cached DFA states before the cache starts over (memory stays bounded; the cost per path stays linear). */
const MAX_CACHED_STATES = 4096;

type Node =
  | { kind: "char"; code: number }
  | { kind: "one" }
  | { kind: "star" }
  | { kind: "globstar" }
  | { kind: "globstar-slash" }
  | { kind: "alternatives"; branches: Node[][] };

const SLASH = 0x2f;

// NFA state kinds. CHAR, ONE and ANY consume one character; SPLIT and MATCH consume none.
const CHAR = 0;
const ONE = 1;
const ANY = 2;
const SPLIT = 3;
const MATCH = 4;

const caseCache = new Map<number, number>();

/**
 * The letter-case folding of a JavaScript regex with the `i` flag and no `u` (what globs used before):
 * the upper case of a BMP character when that is one character and does not turn non-ASCII into ASCII.
 */
export function foldCase(code: number): number {
  if (code < 128) return code >= 97 && code <= 122 ? code - 32 : code;
  if (code > 0xffff) return code;
  let folded = caseCache.get(code);
  if (folded === undefined) {
    const upper = String.fromCharCode(code).toUpperCase();
    folded = upper.length === 1 && upper.charCodeAt(0) >= 128 ? upper.charCodeAt(0) : code;
    caseCache.set(code, folded);
  }
  return folded;
}

function invalidGlob(message: string): ToolError {
  return new ToolError("invalid_argument", message);
}

function parse(glob: string): Node[] {
  let at = 0;
  let alternatives = 0;
  let depth = 0;
  const sequence = (): Node[] => {
    const out: Node[] = [];
    while (at < glob.length) {
      const code = glob.codePointAt(at)!;
      if (code === 0x2a /* * */) {
        if (glob.charCodeAt(at + 1) === 0x2a) {
          const slashAfter = glob.charCodeAt(at + 2) === SLASH;
          out.push({ kind: slashAfter ? "globstar-slash" : "globstar" });
          at += slashAfter ? 3 : 2;
        } else {
          out.push({ kind: "star" });
          at += 1;
        }
      } else if (code === 0x3f /* ? */) {
        out.push({ kind: "one" });
        at += 1;
      } else if (code === 0x7b /* { */) {
        at += 1;
        depth += 1;
        const branches: Node[][] = [sequence()];
        while (glob.charCodeAt(at) === 0x2c /* , */) {
          at += 1;
          branches.push(sequence());
        }
        if (glob.charCodeAt(at) !== 0x7d /* } */) {
          throw invalidGlob(`The glob has an unclosed "{". Write alternatives like "**/*.{md,canvas}".`);
        }
        at += 1;
        depth -= 1;
        alternatives += branches.length;
        if (alternatives > MAX_GLOB_ALTERNATIVES) {
          throw invalidGlob(`The glob has more than ${MAX_GLOB_ALTERNATIVES} {…,…} alternatives; that is the limit. Use fewer alternatives, or several calls.`);
        }
        out.push({ kind: "alternatives", branches });
      } else if ((code === 0x2c || code === 0x7d) && depth > 0) {
        return out;
      } else {
        out.push({ kind: "char", code: foldCase(code) });
        at += code > 0xffff ? 2 : 1;
      }
    }
    return out;
  };
  return sequence();
}

class Nfa {
  readonly kinds: number[] = [];
  /** CHAR: the folded character; SPLIT: the second successor. */
  readonly args: number[] = [];
  readonly next: number[] = [];

  add(kind: number, arg: number, next: number): number {
    this.kinds.push(kind);
    this.args.push(arg);
    this.next.push(next);
    return this.kinds.length - 1;
  }

  /** The start state of `nodes` followed by the state `next` (built back to front). */
  sequence(nodes: readonly Node[], next: number): number {
    let start = next;
    for (let index = nodes.length - 1; index >= 0; index--) start = this.node(nodes[index]!, start);
    return start;
  }

  private node(node: Node, next: number): number {
    switch (node.kind) {
      case "char":
        return this.add(CHAR, node.code, next);
      case "one":
        return this.add(ONE, 0, next);
      case "star":
        return this.loop(ONE, next);
      case "globstar":
        return this.loop(ANY, next);
      case "globstar-slash": {
        // `(.*/)?`: nothing, or anything that ends with a slash.
        const slash = this.add(CHAR, SLASH, next);
        return this.add(SPLIT, this.loop(ANY, slash), next);
      }
      case "alternatives": {
        let start = this.sequence(node.branches[node.branches.length - 1]!, next);
        for (let index = node.branches.length - 2; index >= 0; index--) start = this.add(SPLIT, this.sequence(node.branches[index]!, next), start);
        return start;
      }
    }
  }

  /** `x*`: a SPLIT whose one way consumes an `x` and comes back, the other goes on. */
  private loop(kind: number, next: number): number {
    const split = this.add(SPLIT, -1, next);
    this.args[split] = this.add(kind, 0, split);
    return split;
  }
}

/** A compiled glob. `steps` counts the NFA states visited, so tests can hold the cost to its bound. */
export class GlobMatcher {
  readonly glob: string;
  steps = 0;
  private readonly nfa: Nfa;
  private readonly start: number;
  /** Folded character → its class; the classes are the glob's literal characters, `/` among them, then "any other". */
  private readonly classOf = new Map<number, number>();
  private readonly asciiClass = new Int32Array(128);
  private readonly slashClass: number;
  private readonly otherClass: number;
  private readonly classCode: number[] = [];
  // The lazily built DFA: each state is a set of NFA states; 0 is the dead state.
  private stateSets: Int32Array[] = [];
  private accepting: boolean[] = [];
  private transitions: Int32Array[] = [];
  private byKey = new Map<string, number>();
  private initial = -1;
  private readonly mark: Int32Array;
  private generation = 0;

  constructor(glob: string) {
    this.glob = glob;
    const nodes = parse(glob);
    this.nfa = new Nfa();
    const match = this.nfa.add(MATCH, 0, -1);
    this.start = this.nfa.sequence(nodes, match);
    this.mark = new Int32Array(this.nfa.kinds.length);
    this.nfa.kinds.forEach((kind, state) => {
      if (kind === CHAR && !this.classOf.has(this.nfa.args[state]!)) {
        this.classOf.set(this.nfa.args[state]!, this.classCode.length);
        this.classCode.push(this.nfa.args[state]!);
      }
    });
    if (!this.classOf.has(SLASH)) {
      this.classOf.set(SLASH, this.classCode.length);
      this.classCode.push(SLASH);
    }
    this.slashClass = this.classOf.get(SLASH)!;
    this.otherClass = this.classCode.length;
    for (let code = 0; code < 128; code++) this.asciiClass[code] = this.classOf.get(foldCase(code)) ?? this.otherClass;
    this.reset();
  }

  test(path: string): boolean {
    let state = this.initial;
    for (let at = 0; at < path.length; ) {
      const code = path.codePointAt(at)!;
      at += code > 0xffff ? 2 : 1;
      const charClass = code < 128 ? this.asciiClass[code]! : (this.classOf.get(foldCase(code)) ?? this.otherClass);
      this.steps += 1;
      let next = this.transitions[state]![charClass]!;
      if (next < 0) {
        if (this.stateSets.length >= MAX_CACHED_STATES) {
          // Start over; the state in hand is rebuilt from its NFA states in the new cache.
          const states = this.stateSets[state]!;
          this.reset();
          state = this.intern(states);
        }
        next = this.step(state, charClass);
        this.transitions[state]![charClass] = next;
      }
      if (next === 0) return false;
      state = next;
    }
    return this.accepting[state]!;
  }

  private reset(): void {
    this.stateSets = [new Int32Array(0)];
    this.accepting = [false];
    this.transitions = [new Int32Array(this.otherClass + 1)];
    this.byKey = new Map([["", 0]]);
    this.initial = this.intern(this.closure([this.start]));
  }

  /** The DFA state for a set of NFA states (sorted, closed), added when new. */
  private intern(states: Int32Array): number {
    const key = states.join(",");
    const known = this.byKey.get(key);
    if (known !== undefined) return known;
    const id = this.stateSets.length;
    this.stateSets.push(states);
    this.accepting.push(states.some((state) => this.nfa.kinds[state] === MATCH));
    this.transitions.push(new Int32Array(this.otherClass + 1).fill(-1));
    this.byKey.set(key, id);
    return id;
  }

  /** The consuming and matching states reached from `roots` without consuming. */
  private closure(roots: readonly number[]): Int32Array {
    this.generation += 1;
    const found: number[] = [];
    const stack = [...roots];
    while (stack.length > 0) {
      const state = stack.pop()!;
      if (this.mark[state] === this.generation) continue;
      this.mark[state] = this.generation;
      this.steps += 1;
      if (this.nfa.kinds[state] === SPLIT) {
        stack.push(this.nfa.args[state]!, this.nfa.next[state]!);
      } else {
        found.push(state);
      }
    }
    return Int32Array.from(found.sort((a, b) => a - b));
  }

  private step(state: number, charClass: number): number {
    const roots: number[] = [];
    for (const nfaState of this.stateSets[state]!) {
      this.steps += 1;
      const kind = this.nfa.kinds[nfaState];
      const consumes =
        kind === ANY ||
        (kind === ONE && charClass !== this.slashClass) ||
        (kind === CHAR && charClass !== this.otherClass && this.classCode[charClass] === this.nfa.args[nfaState]);
      if (consumes) roots.push(this.nfa.next[nfaState]!);
    }
    return roots.length === 0 ? 0 : this.intern(this.closure(roots));
  }
}

/** Compiles a glob once for testing many paths; refuses globs over the length and alternatives limits. */
export function compileGlob(glob: string): GlobMatcher {
  if (glob.length > MAX_GLOB_LENGTH) {
    throw invalidGlob(
      `The glob is ${glob.length} characters long; globs may have at most ${MAX_GLOB_LENGTH}. Shorten it (e.g. "**/*.md"), or narrow with prefix.`,
    );
  }
  return new GlobMatcher(glob);
}
