// Near spellings of a query word among the index's terms: every term within a Levenshtein distance,
// exactly the set MiniSearch's fuzzy lookup returns. MiniSearch walks its radix tree with a row of the
// edit-distance table per node, visiting every branch not yet too far off; for a word of fourteen
// letters (distance 3) that was most of a query's time. Here terms are grouped by length (a term more
// than d letters longer or shorter cannot be within d), screened by the letters they contain (one edit
// changes that set by at most two) and measured with Myers' bit-parallel algorithm, one machine word
// per term, a few operations per letter. Longer words (rare: a URL slug, a pasted hash) take the
// textbook table, one row per letter, given up once a row is too far off.

/** Longest query word measured bit-parallel (one bit per letter of a 32-bit word). */
export const MAX_FUZZY_QUERY = 32;

/** A term's letters as bits: letters a–z their own, every other character one of six shared bits. */
function letterMask(term: string): number {
  let mask = 0;
  for (let i = 0; i < term.length; i++) {
    const code = term.charCodeAt(i);
    mask |= 1 << (code >= 97 && code <= 122 ? code - 97 : 26 + (code % 6));
  }
  return mask;
}

function bitCount(value: number): number {
  let bits = value - ((value >>> 1) & 0x55555555);
  bits = (bits & 0x33333333) + ((bits >>> 2) & 0x33333333);
  return (Math.imul((bits + (bits >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

/** The terms of a table (numbered in the order they came, never removed), screened for near spellings. */
export class FuzzyTerms {
  private readonly terms: readonly string[];
  /** Terms of the table taken in so far. */
  private known = 0;
  private masks = new Int32Array(1024);
  /** Term numbers by length. */
  private readonly byLength: number[][] = [];
  private readonly equalities = new Int32Array(128);
  private readonly otherEqualities = new Map<number, number>();

  /** Over a table's `terms`, which only ever grows: terms added later are taken in when next asked. */
  constructor(terms: readonly string[]) {
    this.terms = terms;
  }

  private catchUp(): void {
    const terms = this.terms;
    if (terms.length > this.masks.length) {
      const masks = new Int32Array(Math.max(terms.length, this.masks.length * 2));
      masks.set(this.masks);
      this.masks = masks;
    }
    for (let number = this.known; number < terms.length; number++) {
      const term = terms[number]!;
      this.masks[number] = letterMask(term);
      (this.byLength[term.length] ??= []).push(number);
    }
    this.known = terms.length;
  }

  /**
   * Visits every term within `maxDistance` edits of `query` (itself included, at distance 0), with
   * its number and distance. `query` must not be empty.
   */
  matches(query: string, maxDistance: number, visit: (number: number, term: string, distance: number) => void): void {
    const length = query.length;
    if (length === 0) throw new Error("A fuzzy query word has at least one character.");
    this.catchUp();
    if (length > MAX_FUZZY_QUERY) {
      this.longMatches(query, maxDistance, visit);
      return;
    }
    const queryMask = letterMask(query);
    this.prepare(query);
    const last = 1 << (length - 1);
    for (let termLength = Math.max(1, length - maxDistance); termLength <= length + maxDistance; termLength++) {
      const numbers = this.byLength[termLength];
      if (!numbers) continue;
      for (const number of numbers) {
        if (bitCount(queryMask ^ this.masks[number]!) > 2 * maxDistance) continue;
        const term = this.terms[number]!;
        const distance = this.distance(term, length, last, maxDistance);
        if (distance <= maxDistance) visit(number, term, distance);
      }
    }
    this.unprepare(query);
  }

  private longMatches(query: string, maxDistance: number, visit: (number: number, term: string, distance: number) => void): void {
    const length = query.length;
    const queryMask = letterMask(query);
    let previous = new Int32Array(length + 1);
    let current = new Int32Array(length + 1);
    for (let termLength = Math.max(1, length - maxDistance); termLength <= length + maxDistance; termLength++) {
      const numbers = this.byLength[termLength];
      if (!numbers) continue;
      for (const number of numbers) {
        if (bitCount(queryMask ^ this.masks[number]!) > 2 * maxDistance) continue;
        const term = this.terms[number]!;
        for (let j = 0; j <= length; j++) previous[j] = j;
        let distance = 0;
        for (let i = 1; i <= termLength; i++) {
          const code = term.charCodeAt(i - 1);
          current[0] = i;
          let rowMinimum = i;
          for (let j = 1; j <= length; j++) {
            const cost = query.charCodeAt(j - 1) === code ? 0 : 1;
            const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
            current[j] = value;
            if (value < rowMinimum) rowMinimum = value;
          }
          [previous, current] = [current, previous];
          if (rowMinimum > maxDistance) {
            distance = maxDistance + 1;
            break;
          }
        }
        if (distance <= maxDistance) distance = previous[length]!;
        if (distance <= maxDistance) visit(number, term, distance);
      }
    }
  }

  /** Myers' bit-vector edit distance of `term` to the prepared query; more than `limit` once it must be. */
  private distance(term: string, length: number, last: number, limit: number): number {
    let positive = -1;
    let negative = 0;
    let score = length;
    const rest = term.length;
    for (let i = 0; i < rest; i++) {
      const code = term.charCodeAt(i);
      const equal = code < 128 ? this.equalities[code]! : (this.otherEqualities.get(code) ?? 0);
      const vertical = equal | negative;
      const horizontal = (((equal & positive) + positive) ^ positive) | equal;
      let horizontalPositive = negative | ~(horizontal | positive);
      let horizontalNegative = positive & horizontal;
      if (horizontalPositive & last) score += 1;
      else if (horizontalNegative & last) score -= 1;
      // Every remaining letter can lower the score by one at most.
      if (score - (rest - i - 1) > limit) return limit + 1;
      horizontalPositive = (horizontalPositive << 1) | 1;
      horizontalNegative <<= 1;
      positive = horizontalNegative | ~(vertical | horizontalPositive);
      negative = horizontalPositive & vertical;
    }
    return score;
  }

  private prepare(query: string): void {
    for (let i = 0; i < query.length; i++) {
      const code = query.charCodeAt(i);
      if (code < 128) this.equalities[code] = this.equalities[code]! | (1 << i);
      else this.otherEqualities.set(code, (this.otherEqualities.get(code) ?? 0) | (1 << i));
    }
  }

  private unprepare(query: string): void {
    for (let i = 0; i < query.length; i++) {
      const code = query.charCodeAt(i);
      if (code < 128) this.equalities[code] = 0;
    }
    this.otherEqualities.clear();
  }
}
