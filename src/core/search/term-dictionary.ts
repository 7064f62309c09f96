// The index's terms as MiniSearch looks them up, answered from the term table the builder already
// keeps (./term-table.ts) and an array of entries by term number, in place of MiniSearch's radix
// tree. The tree held every term a second time, cut into pieces, in forty thousand small Maps
// (8 MB of a 20,000-note index); its prefix walk is replaced by the terms grouped by their first two
// and first three letters (a query word's group holds a few dozen terms) and its fuzzy search by FuzzyTerms
// (./fuzzy.ts), which returns the same terms at the same distances.
import { FuzzyTerms } from "./fuzzy";
import type { TermData } from "./minisearch-access";
import type { TermTable } from "./term-table";

/** A number naming the term's first two code units, or first three when `three`. */
function startKey(term: string, three: boolean): number {
  const two = term.charCodeAt(0) * 0x10000 + term.charCodeAt(1);
  return three ? two * 0x10000 + term.charCodeAt(2) : two;
}

function addTo(groups: Map<number, number[]>, key: number, number: number): void {
  const numbers = groups.get(key);
  if (numbers) numbers.push(number);
  else groups.set(key, [number]);
}

export class TermDictionary {
  private readonly table: TermTable;
  /** Per term number, its entry once it has one; null after MiniSearch deleted it. */
  readonly byNumber: Array<TermData | null> = [];
  private readonly fuzzy: FuzzyTerms;
  private count = 0;
  /** Term numbers by their first two code units (see startKey); terms of one letter are not grouped. */
  private readonly byStart2 = new Map<number, number[]>();
  /** Term numbers by their first three code units; terms of one or two letters are not grouped. */
  private readonly byStart3 = new Map<number, number[]>();
  /** Terms of the table grouped so far: the table only grows. */
  private grouped = 0;

  constructor(table: TermTable) {
    this.table = table;
    this.fuzzy = new FuzzyTerms(table.terms);
  }

  /** Terms with an entry (MiniSearch's `termCount`). */
  get size(): number {
    return this.count;
  }

  get(term: string): TermData | undefined {
    const number = this.table.find(term);
    return number < 0 ? undefined : (this.byNumber[number] ?? undefined);
  }

  has(term: string): boolean {
    return this.get(term) !== undefined;
  }

  set(term: string, data: TermData): this {
    this.place(this.table.number(term), data);
    return this;
  }

  /** The term's entry, made with `initial` when it has none. */
  fetch(term: string, initial: () => TermData): TermData {
    return this.fetchNumber(this.table.number(term), initial);
  }

  fetchNumber(number: number, initial: () => TermData): TermData {
    const existing = this.byNumber[number];
    if (existing) return existing;
    const data = initial();
    this.place(number, data);
    return data;
  }

  delete(term: string): boolean {
    const number = this.table.find(term);
    if (number < 0 || !this.byNumber[number]) return false;
    this.byNumber[number] = null;
    this.count -= 1;
    return true;
  }

  /** Every term starting with `prefix` (itself included) and its entry, in term-number order. */
  *atPrefix(prefix: string): IterableIterator<[string, TermData]> {
    const terms = this.table.terms;
    const byNumber = this.byNumber;
    const length = prefix.length;
    if (length < 2) {
      for (const [term, data] of this.all()) if (term.startsWith(prefix)) yield [term, data];
      return;
    }
    this.group();
    const three = length >= 3;
    for (const number of (three ? this.byStart3 : this.byStart2).get(startKey(prefix, three)) ?? []) {
      const data = byNumber[number];
      if (!data) continue;
      const term = terms[number]!;
      if (term.length >= length && term.startsWith(prefix)) yield [term, data];
    }
  }

  private group(): void {
    const terms = this.table.terms;
    for (let number = this.grouped; number < terms.length; number++) {
      const term = terms[number]!;
      if (term.length >= 2) addTo(this.byStart2, startKey(term, false), number);
      if (term.length >= 3) addTo(this.byStart3, startKey(term, true), number);
    }
    this.grouped = terms.length;
  }

  /** Terms within `maxDistance` edits of `term` with their entries and distances, as MiniSearch's tree gives them. */
  fuzzyGet(term: string, maxDistance: number): Map<string, [TermData, number]> {
    const found = new Map<string, [TermData, number]>();
    if (term.length === 0) return found;
    const byNumber = this.byNumber;
    this.fuzzy.matches(term, maxDistance, (number, match, distance) => {
      const data = byNumber[number];
      // An entry whose postings are all gone is no match.
      if (data && data.size > 0) found.set(match, [data, distance]);
    });
    return found;
  }

  [Symbol.iterator](): IterableIterator<[string, TermData]> {
    return this.all();
  }

  *keys(): IterableIterator<string> {
    for (const [term] of this.all()) yield term;
  }

  *values(): IterableIterator<TermData> {
    for (const [, data] of this.all()) yield data;
  }

  private *all(): IterableIterator<[string, TermData]> {
    const terms = this.table.terms;
    const byNumber = this.byNumber;
    for (let number = 0; number < byNumber.length; number++) {
      const data = byNumber[number];
      if (data) yield [terms[number]!, data];
    }
  }

  private place(number: number, data: TermData): void {
    const byNumber = this.byNumber;
    while (byNumber.length < number) byNumber.push(null);
    if (!byNumber[number]) this.count += 1;
    byNumber[number] = data;
  }
}
