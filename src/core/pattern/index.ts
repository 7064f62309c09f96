// User patterns in linear time (SPEC §15): JavaScript regular expression syntax with the `u` flag, run
// by a Pike VM instead of a backtracking engine, so no pattern can take more than program × text steps.
// Without backreferences and lookaround, as RE2 (the Go reference server's engine) has it.
//
//   const pattern = compilePattern("TODO\\b", { ignoreCase: true });
//   pattern.exec(line)                        // first match or null, in one go
//   const budget = new PatternBudget(now, 5000, pause);
//   await budget.next(pattern.matcher().reset(text))   // pauses, or "over_budget"
import { compileProgram, MAX_PROGRAM, type Program } from "./compile";
import { parsePattern, MAX_REPEAT, type PatternFlags } from "./parse";
import { Scanner } from "./dfa";
import { MORE, type WorkMeter } from "./meter";
import { Matcher, type PatternMatch } from "./vm";

export { MAX_PROGRAM, MAX_REPEAT, Matcher, MORE, Scanner };
export type { PatternFlags, PatternMatch, WorkMeter };
export { expandReplacement, nextSearchFrom, replaceMatches, Replacement, type Replaced } from "./replace";
export { OVER_BUDGET, PatternBudget, WORK_PER_CHECK, type Resumable } from "./budget";

export interface CompileOptions extends PatternFlags {
  /** Keep group spans (for replacements); without them a search does less work. Default true. */
  captures?: boolean;
}

export class Pattern {
  readonly source: string;
  readonly flags: Readonly<PatternFlags>;
  /** Capture groups, not counting the whole match. */
  readonly groupCount: number;
  /** Group names and their numbers. */
  readonly names: ReadonlyMap<string, number>;
  private readonly program: Program;

  constructor(source: string, options: CompileOptions = {}) {
    const flags: PatternFlags = { ignoreCase: options.ignoreCase === true, multiline: options.multiline === true, dotAll: options.dotAll === true };
    const parsed = parsePattern(source, flags);
    this.source = source;
    this.flags = flags;
    this.groupCount = options.captures === false ? 0 : parsed.groupCount;
    this.names = options.captures === false ? new Map() : parsed.names;
    this.program = compileProgram(parsed, flags, options.captures !== false);
  }

  /** Instructions in the compiled program (at most MAX_PROGRAM). */
  get size(): number {
    return this.program.ops.length;
  }

  /** A resumable search over one text; reuse it for many texts with `reset`. */
  matcher(): Matcher {
    return new Matcher(this.program);
  }

  /**
   * A resumable yes/no search (a lazy DFA): faster than `matcher` when spans do not matter. With
   * `lines`, each line of the text is matched on its own (split at \n and \r\n).
   */
  scanner(options: { lines?: boolean } = {}): Scanner {
    return new Scanner(this.program, options);
  }

  /** The leftmost match at or after `from`, in one go: linear in the text, but never pausing. */
  exec(text: string, from = 0): PatternMatch | null {
    const result = this.matcher().reset(text, from).run({ left: Infinity });
    return result === MORE ? null : result;
  }

  test(text: string): boolean {
    return this.exec(text) !== null;
  }
}

/**
 * Compiles a pattern; throws ToolError("invalid_argument") with what was wrong and what to write
 * instead, for syntax errors, backreferences, lookaround and patterns over the size limits.
 */
export function compilePattern(source: string, options: CompileOptions = {}): Pattern {
  return new Pattern(source, options);
}

/** The pattern that matches `text` literally. */
export function escapePattern(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}
