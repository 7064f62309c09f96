// Sets of code points as sorted, disjoint ranges, and the predefined classes of JavaScript's `u` mode.
import { caseVariants, foldCodePoint } from "./fold";

export const MAX_CODE_POINT = 0x10ffff;

/** Inclusive ranges `[lo0, hi0, lo1, hi1, ...]`, sorted, disjoint and never adjacent. */
export type Ranges = readonly number[];

export function normalize(pairs: readonly number[]): number[] {
  const items: Array<[number, number]> = [];
  for (let i = 0; i < pairs.length; i += 2) items.push([pairs[i]!, pairs[i + 1]!]);
  items.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: number[] = [];
  for (const [lo, hi] of items) {
    const last = out.length - 1;
    if (last > 0 && lo <= out[last]! + 1) out[last] = Math.max(out[last]!, hi);
    else out.push(lo, hi);
  }
  return out;
}

export function union(...sets: Ranges[]): number[] {
  return normalize(sets.flat());
}

export function complement(set: Ranges): number[] {
  const out: number[] = [];
  let next = 0;
  for (let i = 0; i < set.length; i += 2) {
    if (set[i]! > next) out.push(next, set[i]! - 1);
    next = set[i + 1]! + 1;
  }
  if (next <= MAX_CODE_POINT) out.push(next, MAX_CODE_POINT);
  return out;
}

export function contains(set: Ranges, cp: number): boolean {
  let low = 0;
  let high = (set.length >> 1) - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (cp < set[middle * 2]!) high = middle - 1;
    else if (cp > set[middle * 2 + 1]!) low = middle + 1;
    else return true;
  }
  return false;
}

export const DIGITS: Ranges = [0x30, 0x39];
export const WORD: Ranges = [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a];
/** `\w` under `iu` also takes the characters that fold into it: long s (U+017F) and the Kelvin sign (U+212A). */
export const WORD_FOLDED: Ranges = union(WORD, [0x17f, 0x17f, 0x212a, 0x212a]);
export const SPACE: Ranges = normalize([
  0x09, 0x0d, 0x20, 0x20, 0xa0, 0xa0, 0x1680, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f, 0x202f, 0x205f, 0x205f, 0x3000, 0x3000, 0xfeff, 0xfeff,
]);
export const LINE_TERMINATORS: Ranges = [0x0a, 0x0a, 0x0d, 0x0d, 0x2028, 0x2029];
export const ANY: Ranges = [0, MAX_CODE_POINT];

export function isLineTerminator(cp: number): boolean {
  return cp === 0x0a || cp === 0x0d || cp === 0x2028 || cp === 0x2029;
}

/**
 * A set ready for matching: a table for the first 256 code points, binary search above. Under `i` the
 * set holds folded code points and the text's character is folded before the test, as JavaScript's
 * Canonicalize does; a negated class is negated after folding (`[^k]` under `i` refuses `K`).
 */
export class CharClass {
  private readonly low = new Uint8Array(256);
  private readonly ranges: number[];

  constructor(
    ranges: Ranges,
    readonly negated: boolean,
    readonly folded: boolean,
  ) {
    this.ranges = folded ? foldSet(ranges) : ranges.slice();
    for (let i = 0; i < this.ranges.length; i += 2) {
      for (let cp = this.ranges[i]!; cp <= Math.min(this.ranges[i + 1]!, 255); cp++) this.low[cp] = 1;
    }
  }

  /** `cp` is the text's code point; under `i` it is folded here. */
  test(cp: number): boolean {
    const key = this.folded ? foldCodePoint(cp) : cp;
    const inside = key < 256 ? this.low[key] === 1 : contains(this.ranges, key);
    return inside !== this.negated;
  }

  /** The code points the class can match, or a few more: for the first-character prefilter. */
  matchable(): number[] {
    const base = this.negated ? complement(this.ranges) : this.ranges;
    if (!this.folded) return base.slice();
    const extra: number[] = [];
    for (const [cp, folded] of caseVariants()) {
      if (contains(this.ranges, folded) !== this.negated) extra.push(cp, cp);
    }
    return union(base, extra);
  }
}

/** The folded image of a set: each member replaced by its fold (members without case stay). */
function foldSet(set: Ranges): number[] {
  const extra: number[] = [];
  for (const [cp, folded] of caseVariants()) {
    if (contains(set, cp)) extra.push(folded, folded);
  }
  // Members with a case variant stay: a folded character is never one of them, so they change nothing.
  return extra.length === 0 ? set.slice() : union(set, extra);
}
