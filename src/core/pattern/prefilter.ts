// Where a match may start, found without running the program: the text every match starts with, by
// indexOf (each case variant of its first characters under `i`, then the rest compared by fold), or
// else the set of characters a match can start with.
import { foldCodePoint, sameFold } from "./fold";

/** Case variants of the leading characters searched for at once; more would cost a pass each. */
const MAX_NEEDLES = 4;
/**
 * Below this many characters a loop over the text finds the prefix sooner than an indexOf per
 * variant (each call costs about as much as looking at a hundred characters).
 */
const SHORT_TEXT = 256;

export class Prefilter {
  private readonly needles: string[];
  /** The rest of the prefix after the needles, folded. */
  private readonly rest: number[];
  /** The whole prefix, folded, when it is compared by fold. */
  private readonly folded: number[];
  private readonly first: Uint8Array | null;
  private readonly found: number[];
  private readonly searched: number[];
  private text = "";

  /** `prefix`: code points every match starts with; `folded`: compared by fold (`i`). */
  constructor(prefix: readonly number[], folded: boolean, first: Uint8Array | null) {
    this.first = first;
    this.folded = folded ? prefix.map(foldCodePoint) : [];
    if (prefix.length === 0) {
      this.needles = [];
      this.rest = [];
    } else if (!folded) {
      this.needles = [String.fromCodePoint(...prefix)];
      this.rest = [];
    } else {
      let needles = [""];
      let used = 0;
      while (used < prefix.length) {
        const variants = sameFold(prefix[used]!);
        if (used > 0 && needles.length * variants.length > MAX_NEEDLES) break;
        needles = needles.flatMap((needle) => variants.map((variant) => needle + String.fromCodePoint(variant)));
        used++;
      }
      this.needles = needles;
      this.rest = prefix.slice(used).map(foldCodePoint);
    }
    this.found = this.needles.map(() => -1);
    this.searched = this.needles.map(() => -1);
  }

  /** Whether `next` can skip at all; without it every position is a candidate. */
  get skips(): boolean {
    return this.needles.length > 0 || this.first !== null;
  }

  /** Answers found in the same text stay valid for later starts (a replacement searches on and on). */
  reset(text: string): void {
    if (text === this.text) return;
    this.text = text;
    this.searched.fill(-1);
  }

  /** The first position at or after `from` where a match may start, or -1. */
  next(from: number): number {
    const text = this.text;
    if (this.needles.length === 0) {
      const first = this.first;
      if (first === null) return from <= text.length ? from : -1;
      let pos = from;
      const length = text.length;
      while (pos < length && first[text.charCodeAt(pos)] === 0) pos++;
      return pos < length ? pos : -1;
    }
    if (this.folded.length > 0 && this.first !== null && text.length - from < SHORT_TEXT) return this.scan(from);
    for (let pos = from; ; ) {
      const candidate = this.nearest(pos);
      if (candidate < 0 || this.restMatches(candidate)) return candidate;
      pos = candidate + 1;
    }
  }

  /** A short text: each character that can start the prefix, then the prefix compared by fold. */
  private scan(from: number): number {
    const text = this.text;
    const first = this.first!;
    const length = text.length;
    const folded = this.folded;
    for (let pos = from; pos < length; pos++) {
      if (first[text.charCodeAt(pos)] === 0) continue;
      let at = pos;
      let k = 0;
      for (; k < folded.length; k++) {
        const cp = text.codePointAt(at);
        if (cp === undefined || foldCodePoint(cp) !== folded[k]) break;
        at += cp > 0xffff ? 2 : 1;
      }
      if (k === folded.length) return pos;
    }
    return -1;
  }

  /** The nearest occurrence of any needle at or after `from`; each needle's last answer is kept. */
  private nearest(from: number): number {
    let best = -1;
    for (let i = 0; i < this.needles.length; i++) {
      let at = this.found[i]!;
      if (this.searched[i]! < 0 || this.searched[i]! > from || (at >= 0 && at < from)) {
        at = this.text.indexOf(this.needles[i]!, from);
        this.found[i] = at;
        this.searched[i] = from;
      }
      if (at >= 0 && (best < 0 || at < best)) best = at;
    }
    return best;
  }

  private restMatches(at: number): boolean {
    const rest = this.rest;
    if (rest.length === 0) return true;
    const text = this.text;
    // The needles differ in length only when a variant is astral; measure the one that matched.
    let pos = at;
    for (const needle of this.needles) {
      if (text.startsWith(needle, at)) {
        pos = at + needle.length;
        break;
      }
    }
    for (const expected of rest) {
      const cp = text.codePointAt(pos);
      if (cp === undefined || foldCodePoint(cp) !== expected) return false;
      pos += cp > 0xffff ? 2 : 1;
    }
    return true;
  }
}
