// Replacing every match, as String.prototype.replace does with a global regular expression: the same
// `$` forms in the template, the same step past an empty match, and a budget over the whole text.
import { type OVER_BUDGET, type PatternBudget, type Resumable } from "./budget";
import { MORE, type WorkMeter } from "./meter";
import type { Matcher, PatternMatch } from "./vm";

function group(text: string, match: PatternMatch, index: number): string {
  const start = match.spans[2 * index]!;
  const end = match.spans[2 * index + 1]!;
  return start < 0 || end < 0 ? "" : text.slice(start, end);
}

function isDigit(unit: number): boolean {
  return unit >= 0x30 && unit <= 0x39;
}

/**
 * The replacement for one match (GetSubstitution): `$$`, `$&`, `` $` ``, `$'`, `$1`…`$99` and
 * `$<name>` (only when the pattern names groups); anything else after `$` stays as typed.
 */
export function expandReplacement(template: string, text: string, match: PatternMatch, names: ReadonlyMap<string, number>): string {
  if (!template.includes("$")) return template;
  const groups = match.spans.length / 2 - 1;
  let out = "";
  let at = 0;
  for (;;) {
    const dollar = template.indexOf("$", at);
    if (dollar < 0 || dollar === template.length - 1) break;
    out += template.slice(at, dollar);
    const next = template.charCodeAt(dollar + 1);
    at = dollar + 2;
    if (next === 0x24) out += "$";
    else if (next === 0x26) out += text.slice(match.index, match.end);
    else if (next === 0x60) out += text.slice(0, match.index);
    else if (next === 0x27) out += text.slice(match.end);
    else if (isDigit(next)) {
      let digits = 1;
      let index = next - 0x30;
      if (isDigit(template.charCodeAt(dollar + 2))) {
        const two = index * 10 + template.charCodeAt(dollar + 2) - 0x30;
        if (two <= groups) {
          index = two;
          digits = 2;
        }
      }
      at = dollar + 1 + digits;
      out += index >= 1 && index <= groups ? group(text, match, index) : template.slice(dollar, at);
    } else if (next === 0x3c && names.size > 0) {
      const close = template.indexOf(">", dollar + 2);
      if (close < 0) out += "$<";
      else {
        const index = names.get(template.slice(dollar + 2, close));
        out += index === undefined ? "" : group(text, match, index);
        at = close + 1;
      }
    } else {
      out += "$";
      at = dollar + 1;
    }
  }
  return out + template.slice(at);
}

export interface Replaced {
  text: string;
  /** Matches replaced. */
  count: number;
}

/** Pieces of a replaced text joined into one string at a time, so that no single join is long. */
const CHUNK_CHARS = 64 * 1024;

/** Replacing every match of one text, step by step: the state between two pauses. */
export class Replacement implements Resumable<Replaced> {
  private readonly chunks: string[] = [];
  private parts: string[] = [];
  private partsLength = 0;
  private last = 0;
  private count = 0;

  constructor(
    private readonly matcher: Matcher,
    private readonly text: string,
    private readonly replacement: (match: PatternMatch) => string,
  ) {
    matcher.reset(text, 0);
  }

  /** Goes on until every match is replaced, or the meter runs out (MORE). */
  run(meter: WorkMeter): Replaced | typeof MORE {
    const text = this.text;
    for (;;) {
      const result = this.matcher.run(meter);
      if (result === MORE) return MORE;
      if (result === null) break;
      const replaced = this.replacement(result);
      this.add(text.slice(this.last, result.index), meter);
      this.add(replaced, meter);
      this.last = result.end;
      this.count++;
      meter.left -= 1;
      this.matcher.reset(text, nextSearchFrom(text, result));
    }
    if (this.count === 0) return { text, count: 0 };
    this.add(text.slice(this.last), meter);
    this.chunks.push(this.parts.join(""));
    return { text: this.chunks.join(""), count: this.count };
  }

  private add(part: string, meter: WorkMeter): void {
    this.parts.push(part);
    this.partsLength += part.length;
    if (this.partsLength < CHUNK_CHARS) return;
    this.chunks.push(this.parts.join(""));
    meter.left -= this.partsLength / 16;
    this.parts = [];
    this.partsLength = 0;
  }
}

/**
 * Every match in `text` replaced by `replacement(match)`, searching on after each as a global
 * regular expression does; OVER_BUDGET when the budget ran out first.
 */
export async function replaceMatches(
  matcher: Matcher,
  text: string,
  budget: PatternBudget,
  replacement: (match: PatternMatch) => string,
): Promise<Replaced | typeof OVER_BUDGET> {
  return budget.next(new Replacement(matcher, text, replacement));
}

/** Where the next search starts after a match: its end, or one code point on after an empty one. */
export function nextSearchFrom(text: string, match: PatternMatch): number {
  if (match.end > match.index) return match.end;
  const unit = text.charCodeAt(match.end);
  const wide = unit >= 0xd800 && unit <= 0xdbff && match.end + 1 < text.length && (text.charCodeAt(match.end + 1) & 0xfc00) === 0xdc00;
  return match.end + (wide ? 2 : 1);
}
