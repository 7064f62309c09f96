// The terms of an index, numbered 0, 1, 2… in the order first met. Building an index looks up every
// word of every note (nine million lookups for a 20,000-note vault); a JS Map needs each word cut out
// of the note as a string of its own, lower-cased and hashed, before the lookup can start. Here a word
// is looked up straight from the note's text: its hash is computed while the tokenizer scans it (see
// `scanTerms` in tokenizer.ts), and a string is made only for a term seen for the first time.

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a over the term's UTF-16 code units (the tokenizer computes the same while scanning). */
export function termHash(term: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < term.length; i++) hash = Math.imul(hash ^ term.charCodeAt(i), FNV_PRIME);
  return hash | 0;
}

/** The hash `termHash` gives a word, continued by one more code unit. */
export function continueHash(hash: number, code: number): number {
  return Math.imul(hash ^ code, FNV_PRIME);
}

export const TERM_HASH_START = FNV_OFFSET | 0;

export class TermTable {
  readonly terms: string[] = [];
  private hashes = new Int32Array(1024);
  /** Open addressing: term number + 1, 0 for an empty slot. */
  private slots = new Int32Array(2048);
  private mask = 2047;

  get size(): number {
    return this.terms.length;
  }

  /** The term's number, given the next free one when it is new. */
  number(term: string): number {
    const hash = termHash(term);
    const { slots, hashes, terms, mask } = this;
    for (let at = hash & mask; ; at = (at + 1) & mask) {
      const entry = slots[at]!;
      if (entry === 0) return this.insert(term, hash, at);
      const number = entry - 1;
      if (hashes[number] === hash && terms[number] === term) return number;
    }
  }

  /** The term's number, or −1 when it is not in the table. */
  find(term: string): number {
    const hash = termHash(term);
    const { slots, hashes, terms, mask } = this;
    for (let at = hash & mask; ; at = (at + 1) & mask) {
      const entry = slots[at]!;
      if (entry === 0) return -1;
      const number = entry - 1;
      if (hashes[number] === hash && terms[number] === term) return number;
    }
  }

  /**
   * The number of the lower-cased ASCII word `text[start, end)`, whose `termHash` is `hash`, given
   * the next free one when it is new; no string is made unless it is.
   */
  numberAscii(text: string, start: number, end: number, hash: number): number {
    const { slots, hashes, terms, mask } = this;
    const length = end - start;
    for (let at = hash & mask; ; at = (at + 1) & mask) {
      const entry = slots[at]!;
      if (entry === 0) return this.insert(text.slice(start, end).toLowerCase(), hash, at);
      const number = entry - 1;
      if (hashes[number] !== hash) continue;
      const term = terms[number]!;
      if (term.length !== length) continue;
      let same = true;
      for (let i = 0; i < length; i++) {
        let code = text.charCodeAt(start + i);
        if (code >= 65 && code <= 90) code += 32;
        if (term.charCodeAt(i) !== code) {
          same = false;
          break;
        }
      }
      if (same) return number;
    }
  }

  private insert(term: string, hash: number, at: number): number {
    const number = this.terms.length;
    // Concatenating and slicing makes a string of its own: a term cut from a note's text would
    // otherwise keep that whole text in memory.
    this.terms.push(` ${term}`.slice(1));
    if (number === this.hashes.length) {
      const hashes = new Int32Array(number * 2);
      hashes.set(this.hashes);
      this.hashes = hashes;
    }
    this.hashes[number] = hash;
    this.slots[at] = number + 1;
    if (2 * this.terms.length > this.slots.length) this.rehash();
    return number;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let number = 0; number < this.terms.length; number++) {
      let at = this.hashes[number]! & mask;
      while (slots[at] !== 0) at = (at + 1) & mask;
      slots[at] = number + 1;
    }
    this.slots = slots;
    this.mask = mask;
  }
}
