// Which languages a vault is written in, and their Snowball stemmers: a query word reaches the
// vault's words of the same stem (restore → restored, restoring; notas → nota), in every language the
// vault's notes use. The index holds surface forms only; stems are worked out per query among the
// words sharing the query word's first letters, and remembered.
import { stemmer as english } from "@orama/stemmers/english";
import { stemmer as french } from "@orama/stemmers/french";
import { stemmer as german } from "@orama/stemmers/german";
import { stemmer as italian } from "@orama/stemmers/italian";
import { stemmer as portuguese } from "@orama/stemmers/portuguese";
import { stemmer as spanish } from "@orama/stemmers/spanish";

export type Language = "en" | "de" | "es" | "fr" | "it" | "pt";

const STEMMERS: Readonly<Record<Language, (word: string) => string>> = {
  en: english,
  de: german,
  es: spanish,
  fr: french,
  it: italian,
  pt: portuguese,
};

/** Words nearly every note of the language holds, and few of another's (folded index form). */
const MARKERS: Readonly<Record<Language, readonly string[]>> = {
  en: ["the", "and", "you", "is", "to", "of", "with", "that", "for", "this"],
  de: ["der", "die", "und", "ist", "nicht", "mit", "sie", "ein", "auf", "zu"],
  es: ["el", "los", "las", "que", "para", "con", "una", "por", "del", "se"],
  fr: ["le", "les", "des", "et", "pour", "une", "est", "vous", "dans", "sur"],
  it: ["il", "di", "che", "per", "una", "della", "sono", "non", "gli", "nel"],
  pt: ["os", "que", "para", "uma", "com", "nao", "do", "da", "em", "no"],
};

/** A language counts when its markers are in at least this share of notes on average… */
const MIN_MARKER_SHARE = 0.15;
/** …and at least this share of the best language's. */
const MIN_SHARE_OF_BEST = 0.35;
/** Terms whose stems are remembered before the memo starts over. */
const MEMO_LIMIT = 50_000;

export const LANGUAGES = Object.keys(STEMMERS) as Language[];

/**
 * The languages whose markers are common in the vault, best first; English when none is (an empty
 * vault, or one in a script without stems).
 */
export function detectLanguages(noteCount: number, notesWith: (term: string) => number): Language[] {
  if (noteCount === 0) return ["en"];
  const shares = LANGUAGES.map((language) => {
    const markers = MARKERS[language];
    const total = markers.reduce((sum, marker) => sum + Math.min(noteCount, notesWith(marker)), 0);
    return { language, share: total / (markers.length * noteCount) };
  }).sort((a, b) => b.share - a.share);
  const best = shares[0]!.share;
  const chosen = shares.filter(({ share }) => share >= MIN_MARKER_SHARE && share >= MIN_SHARE_OF_BEST * best).map(({ language }) => language);
  return chosen.length > 0 ? chosen : ["en"];
}

function commonPrefixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let at = 0;
  while (at < limit && a.charCodeAt(at) === b.charCodeAt(at)) at += 1;
  return at;
}

/** Stems of one language, remembered per term. */
export class Stems {
  private readonly stem: (word: string) => string;
  private memo = new Map<string, string>();

  constructor(readonly language: Language) {
    this.stem = STEMMERS[language];
  }

  of(term: string): string {
    let stem = this.memo.get(term);
    if (stem === undefined) {
      if (this.memo.size >= MEMO_LIMIT) this.memo = new Map();
      stem = this.stem(term);
      this.memo.set(term, stem);
    }
    return stem;
  }

  /**
   * The first letters every word of `term`'s stem begins with, as far as Snowball's suffix rules go
   * (they may change the stem's last letter: happy → happi); null when that leaves fewer than
   * `minimum` letters, where a stem class would be most of the vocabulary.
   */
  candidatePrefix(term: string, minimum: number): string | null {
    const stem = this.of(term);
    const length = Math.min(commonPrefixLength(term, stem), Math.max(stem.length - 1, minimum));
    return length >= minimum ? term.slice(0, length) : null;
  }
}
