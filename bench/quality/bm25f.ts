// The control every ranking change is judged against: a plain, textbook BM25F (Robertson and
// Zaragoza, "The Probabilistic Relevance Framework", §3.5) over title, aliases, headings and body,
// with the language's Snowball stemmer and every query word optional. Bench code only: it reads the
// vault's files itself and shares nothing with the engine, so an engine change cannot move it.
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { stemmer as english } from "@orama/stemmers/english";
import { stemmer as french } from "@orama/stemmers/french";
import { stemmer as german } from "@orama/stemmers/german";
import { stemmer as spanish } from "@orama/stemmers/spanish";

export type ControlLanguage = "en" | "es" | "fr" | "de" | "zh";

const STEMMERS: Record<ControlLanguage, (word: string) => string> = {
  en: english,
  es: spanish,
  fr: french,
  de: german,
  zh: (word) => word,
};

/** Field weights and length normalisation of the control, as the textbook sets them. */
const FIELDS = [
  { name: "title", weight: 3, b: 0.75 },
  { name: "aliases", weight: 3, b: 0.75 },
  { name: "headings", weight: 2, b: 0.75 },
  { name: "body", weight: 1, b: 0.75 },
] as const;

type FieldTexts = Record<(typeof FIELDS)[number]["name"], string>;

interface Document {
  path: string;
  /** Per field, term → frequency. */
  frequencies: Array<Map<string, number>>;
  /** Per field, number of tokens. */
  lengths: number[];
}

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/;
const HEADING = /^#{1,6}\s+(.*)$/;

function fieldsOf(relative: string, text: string): FieldTexts {
  let body = text;
  let aliases: string[] = [];
  const frontmatter = FRONTMATTER.exec(text);
  if (frontmatter) {
    body = text.slice(frontmatter[0].length);
    try {
      const data = parseYaml(frontmatter[1]!) as Record<string, unknown> | null;
      const value = data?.["aliases"];
      if (Array.isArray(value)) aliases = value.filter((entry): entry is string => typeof entry === "string");
      else if (typeof value === "string") aliases = [value];
    } catch {
      // A control with unreadable frontmatter indexes the body alone, as a plain engine would.
    }
  }
  const headings = body.split("\n").flatMap((line) => {
    const match = HEADING.exec(line);
    return match ? [match[1]!] : [];
  });
  return { title: path.basename(relative, ".md"), aliases: aliases.join("\n"), headings: headings.join("\n"), body };
}

export class Bm25fControl {
  private readonly documents: Document[] = [];
  private readonly documentFrequency = new Map<string, number>();
  private readonly averageLengths: number[];
  private readonly stem: (word: string) => string;
  private readonly segmenter: Intl.Segmenter;
  /** Term-frequency saturation: the textbook's range is 1.2 to 2. */
  private readonly k1: number;

  constructor(root: string, notes: readonly string[], language: ControlLanguage, k1 = 1.2) {
    this.k1 = k1;
    this.stem = STEMMERS[language];
    this.segmenter = new Intl.Segmenter(language, { granularity: "word" });
    const totals = FIELDS.map(() => 0);
    for (const relative of notes) {
      const texts = fieldsOf(relative, readFileSync(path.join(root, relative), "utf8"));
      const frequencies = FIELDS.map(({ name }) => {
        const counts = new Map<string, number>();
        for (const term of this.terms(texts[name])) counts.set(term, (counts.get(term) ?? 0) + 1);
        return counts;
      });
      const lengths = frequencies.map((counts) => [...counts.values()].reduce((sum, n) => sum + n, 0));
      lengths.forEach((length, field) => (totals[field] = totals[field]! + length));
      const seen = new Set<string>();
      for (const counts of frequencies) for (const term of counts.keys()) seen.add(term);
      for (const term of seen) this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
      this.documents.push({ path: relative, frequencies, lengths });
    }
    this.averageLengths = totals.map((total) => Math.max(1, total / Math.max(1, notes.length)));
  }

  /** Lower-cased, diacritics removed, split into words, stemmed. */
  terms(text: string): string[] {
    const folded = text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
    const terms: string[] = [];
    for (const piece of this.segmenter.segment(folded)) {
      if (piece.isWordLike) terms.push(this.stem(piece.segment));
    }
    return terms;
  }

  /** The best `limit` paths for the query, every query word optional. */
  search(query: string, limit: number): string[] {
    const words = [...new Set(this.terms(query))];
    const count = this.documents.length;
    const scored: Array<{ path: string; score: number }> = [];
    for (const document of this.documents) {
      let score = 0;
      for (const word of words) {
        let pseudoFrequency = 0;
        FIELDS.forEach((field, f) => {
          const frequency = document.frequencies[f]!.get(word) ?? 0;
          if (frequency === 0) return;
          const normaliser = 1 - field.b + (field.b * document.lengths[f]!) / this.averageLengths[f]!;
          pseudoFrequency += (field.weight * frequency) / normaliser;
        });
        if (pseudoFrequency === 0) continue;
        const frequency = this.documentFrequency.get(word) ?? 0;
        const inverse = Math.log(1 + (count - frequency + 0.5) / (frequency + 0.5));
        score += (inverse * pseudoFrequency) / (this.k1 + pseudoFrequency);
      }
      if (score > 0) scored.push({ path: document.path, score });
    }
    scored.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));
    return scored.slice(0, limit).map(({ path: found }) => found);
  }
}
