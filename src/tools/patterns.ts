// What the pattern tools (vault_grep, vault_replace) share: how the syntax is described to agents and
// how a pattern argument is compiled, with errors that say what to write instead.
import { ToolError } from "../core/errors";
import { compilePattern, escapePattern, MAX_REPEAT, type CompileOptions, type Pattern } from "../core/pattern";

export const PATTERN_SYNTAX = `RE2 syntax, so no backreferences or lookaround, written as in JavaScript: . [abc] [^a-z] \\d \\w \\s \\b ^ $ (…) (?:…) (?<name>…) | * + ? {n,m}, lazy with a trailing ?, counts up to ${MAX_REPEAT}; matching takes time linear in the text`;

/** Compiles a tool's pattern argument; a syntax error also says how to search for the text as typed. */
export function compileToolPattern(source: string, options: CompileOptions, literal: boolean): Pattern {
  try {
    return compilePattern(literal ? escapePattern(source) : source, options);
  } catch (error) {
    if (error instanceof ToolError && error.message.startsWith("The pattern is not a valid regular expression")) {
      throw new ToolError("invalid_argument", `${error.message} Escape special characters with \\, or pass literal: true for plain text.`);
    }
    throw error;
  }
}
