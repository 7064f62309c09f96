// The lexical half of the query language: quotes, + and - modifiers, prefix stars, NOT, and chains of
// operands joined by AND/OR. Every malformed form is refused here with a message showing how to write it.
import { ToolError } from "../errors";
import { containsCjk, wordSequence } from "./tokenizer";

type Modifier = "+" | "-" | "";
type Operator = "AND" | "OR" | "NOT";

export interface Operand {
  kind: "operand";
  modifier: Modifier;
  quoted: boolean;
  /** Explicit `word*`. */
  prefix: boolean;
  source: string;
  words: string[];
}

interface OperatorLexeme {
  kind: "operator";
  operator: Operator;
}

type Lexeme = Operand | OperatorLexeme;
export type BinaryOperator = Exclude<Operator, "NOT">;
type Item = Operand | BinaryOperator;

export interface Chain {
  operands: Operand[];
  operators: BinaryOperator[];
}

const WHITESPACE = /\s/;
const TYPOGRAPHIC_QUOTES = /[\u201c\u201d\u201e\u201f\u2033]/g;
const TRAILING_STARS = /\*+$/;
const MIN_EXPLICIT_PREFIX_LENGTH = 2;

/** The query split into chains: operands joined by AND/OR; NOT already turned into "-". */
export function lexQuery(input: string): Chain[] {
  const lexemes = lex(input.replace(TYPOGRAPHIC_QUOTES, '"'));
  rejectParenthesesWithOperators(lexemes);
  return chains(applyNot(lexemes.filter((lexeme) => lexeme.kind === "operator" || lexeme.words.length > 0)));
}

export function invalid(reason: string, message: string): ToolError {
  return new ToolError("invalid_query", message, { details: { reason } });
}

function lex(text: string): Lexeme[] {
  const lexemes: Lexeme[] = [];
  let at = 0;
  while (at < text.length) {
    const char = text[at]!;
    if (WHITESPACE.test(char)) {
      at += 1;
      continue;
    }
    let modifier: Modifier = "";
    if (char === "+" || char === "-") {
      const next = text[at + 1];
      if (next === undefined || WHITESPACE.test(next)) throw bareModifier(char);
      modifier = char;
      at += 1;
    }
    if (text[at] === '"') {
      const close = text.indexOf('"', at + 1);
      if (close < 0) throw unclosedQuote(text.slice(at + 1));
      const inside = text.slice(at + 1, close);
      const words = wordSequence(inside);
      if (words.length === 0) throw emptyQuotes(inside);
      lexemes.push({ kind: "operand", modifier, quoted: true, prefix: false, source: `"${inside}"`, words });
      at = close + 1;
      continue;
    }
    let end = at;
    while (end < text.length && !WHITESPACE.test(text[end]!) && text[end] !== '"') end += 1;
    const word = text.slice(at, end);
    at = end;
    if (modifier === "" && (word === "AND" || word === "OR" || word === "NOT")) {
      lexemes.push({ kind: "operator", operator: word });
      continue;
    }
    lexemes.push(wordOperand(word, modifier));
  }
  return lexemes;
}

function wordOperand(word: string, modifier: Modifier): Operand {
  const stars = TRAILING_STARS.exec(word);
  const core = stars ? word.slice(0, stars.index) : word;
  if (stars && core.length === 0) {
    throw invalid(
      "bare_star",
      'A "*" must directly follow the start of a word, for a prefix search: write buck* (finds bucket, buckets).',
    );
  }
  const words = wordSequence(core);
  const last = words[words.length - 1];
  if (stars && last !== undefined && !containsCjk(last) && Array.from(last).length < MIN_EXPLICIT_PREFIX_LENGTH) {
    throw invalid(
      "short_prefix",
      `"${word}" is too short for a prefix search: put at least ${MIN_EXPLICIT_PREFIX_LENGTH} letters before the "*" (e.g. "bu*"), or search for the whole word.`,
    );
  }
  return { kind: "operand", modifier, quoted: false, prefix: stars !== null, source: word, words };
}

function bareModifier(modifier: "+" | "-"): ToolError {
  const meaning = modifier === "-" ? "exclude" : "require";
  const example = modifier === "-" ? '-draft or -"old plan"' : '+budget or +"exact words"';
  return invalid(
    "bare_modifier",
    `A "${modifier}" must be directly followed by the word or quoted phrase to ${meaning}, without a space: write ${example}.`,
  );
}

function unclosedQuote(rest: string): ToolError {
  const shown = rest.trim().slice(0, 40) || "token bucket";
  return invalid(
    "unbalanced_quote",
    `The query has an opening quote without a closing one: close the quote: "${shown}" (or remove the quote to search for the words loosely).`,
  );
}

function emptyQuotes(inside: string): ToolError {
  const shown = inside.trim().length > 0 ? `"${inside.trim().slice(0, 40)}" has` : '"" has';
  return invalid(
    "empty_phrase",
    `${shown} no searchable words inside the quotes: put the exact words to find inside them, e.g. "token bucket", or use vault_grep to find exact characters.`,
  );
}

function rejectParenthesesWithOperators(lexemes: readonly Lexeme[]): void {
  const hasOperator = lexemes.some((lexeme) => lexeme.kind === "operator");
  const hasParenthesis = lexemes.some(
    (lexeme) => lexeme.kind === "operand" && !lexeme.quoted && (lexeme.source.startsWith("(") || lexeme.source.endsWith(")")),
  );
  if (hasOperator && hasParenthesis) {
    throw invalid(
      "parentheses",
      "Parentheses do not group in queries: write the alternatives out, e.g. 'a AND c OR b AND c' for (a OR b) AND c (AND binds tighter than OR).",
    );
  }
}

function applyNot(lexemes: readonly Lexeme[]): Item[] {
  const items: Item[] = [];
  for (let i = 0; i < lexemes.length; i++) {
    const lexeme = lexemes[i]!;
    if (lexeme.kind === "operand") {
      items.push(lexeme);
    } else if (lexeme.operator !== "NOT") {
      items.push(lexeme.operator);
    } else {
      const next = lexemes[i + 1];
      if (next === undefined || next.kind === "operator") {
        throw invalid("dangling_not", "\"NOT\" must be followed by the word or phrase to exclude: write 'sync NOT mobile'.");
      }
      if (next.modifier !== "") {
        throw invalid(
          "not_with_modifier",
          `"NOT" cannot be combined with "${next.modifier}": write 'NOT draft' or '-draft'.`,
        );
      }
      items.push({ ...next, modifier: "-" });
      i += 1;
    }
  }
  return items;
}

function chains(items: readonly Item[]): Chain[] {
  const found: Chain[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (typeof item === "string") throw dangling(item);
    const chain: Chain = { operands: [item], operators: [] };
    while (typeof items[i + 1] === "string") {
      const operator = items[i + 1] as BinaryOperator;
      const operand = items[i + 2];
      if (operand === undefined || typeof operand === "string") throw dangling(operator);
      chain.operators.push(operator);
      chain.operands.push(operand);
      i += 2;
    }
    found.push(chain);
  }
  return found;
}

function dangling(operator: BinaryOperator): ToolError {
  const example = operator === "AND" ? "'budget AND 2024'" : "'sync OR backup'";
  return invalid(
    "dangling_operator",
    `"${operator}" needs a word or phrase on both sides: write ${example}, or leave "${operator}" out (plain words already count as alternatives).`,
  );
}
