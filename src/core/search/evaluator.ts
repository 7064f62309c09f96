// Query evaluation over the index's postings: BM25F (ranking.ts) into arrays indexed by document
// number. A query costs one pass over the encoded postings of the index terms its words reach
// (see posting-list.ts, expansion.ts); the matched index terms and a score's parts are worked out
// only for the hits a page shows.
import type { Expansion, PlannedWord } from "./expansion";
import type { PostingList } from "./posting-list";
import {
  FIELDS,
  inverseDocumentFrequency,
  lengthNorm,
  queryWordWeight,
  roundScore,
  saturatedScore,
  type FieldName,
  type MatchExplanation,
  type RankingParameters,
  type WordExplanation,
} from "./ranking";

/**
 * What the evaluator reads of each document, by short id, in arrays rather than MiniSearch's maps:
 * a query over a word in every note looks each of them up.
 */
export interface DocumentTable {
  /** 1 while the document of that short id is indexed. */
  readonly alive: Uint8Array;
  /** Distinct terms of document `id` in field `f` at `id × fieldCount + f`. */
  readonly fieldLengths: Int32Array;
  readonly fieldCount: number;
  /** Bumped whenever a document is removed: a list checked clean at the current value holds no removed one. */
  readonly removals: number;
  /** Indexed documents. */
  readonly indexed: number;
  /** Mean length of field `f` over the indexed documents. */
  averageLength(f: number): number;
  path(id: number): string;
}

/**
 * The documents a query matched, in the order first reached: match i is document `ids[i]`. Which
 * query words matched are bit sets of `words` 32-bit words per match.
 */
export interface Evaluation {
  /** Short document ids. */
  readonly ids: Int32Array;
  /** Σ over words of queryWeight × saturated BM25F (the score before coverage). */
  readonly scores: Float64Array;
  readonly words: number;
  /** Bit t of match i's set: query word t matched (through any expansion). */
  readonly matched: Uint32Array;
  /** Bit t of match i's set: query word t matched through itself, its stem or a prefix, not only a near spelling. */
  readonly real: Uint32Array;
  /** Per match, how many query words its title holds (through themselves or their stems). */
  readonly titleWords: Int32Array;
  /** Per query word, the rarity of what it reached, and in how many notes. */
  readonly idf: Float64Array;
  readonly df: Int32Array;
  /** The document's path. */
  path(id: number): string;
  /** For each of the given matches (positions in `ids`), the index terms through which it matched, sorted. */
  terms(matches: readonly number[]): string[][];
  /** For each of the given matches, each word's part of its score. */
  explain(matches: readonly number[]): WordExplanation[][];
}

export class QueryEvaluator {
  private readonly documents: DocumentTable;
  private scores = new Float64Array(0);
  private termScores = new Float64Array(0);
  private matched = new Uint32Array(0);
  private real = new Uint32Array(0);
  private touched = new Uint8Array(0);
  private ids = new Int32Array(0);
  private termIds = new Int32Array(0);
  private titleWords = new Int32Array(0);
  /** Per document, the last word (numbered across queries) counted in `titleWords`. */
  private titleMarks = new Int32Array(0);
  private titleStamp = 0;
  /** Per list, the `removals` value at which it was last found holding no removed document. */
  private readonly checked = new WeakMap<PostingList, number>();

  constructor(documents: DocumentTable) {
    this.documents = documents;
  }

  /** Evaluates the words combined with OR. */
  evaluate(planned: readonly PlannedWord[], ranking: RankingParameters): Evaluation {
    const documents = this.documents;
    const alive = documents.alive;
    const fieldLengths = documents.fieldLengths;
    const fieldCount = documents.fieldCount;
    const words = Math.max(1, Math.ceil(planned.length / 32));
    this.reserve(alive.length, words);
    const { scores, termScores, matched, real, touched, ids, termIds, titleWords, titleMarks } = this;
    const titleField = FIELDS.indexOf("title");
    const fieldWeights = FIELDS.map((field) => ranking.fieldWeights[field]);
    const normalisation = FIELDS.map((field) => ranking.lengthNormalisation[field]);
    const averages = FIELDS.map((_, f) => documents.averageLength(f));
    const documentCount = documents.indexed;
    const idf = new Float64Array(planned.length);
    const df = new Int32Array(planned.length);
    let count = 0;

    planned.forEach((word, source) => {
      const bit = (1 << (source & 31)) >>> 0;
      const slotWord = source >>> 5;
      let termCount = 0;
      if (this.titleStamp >= 0x7ffffff0) {
        titleMarks.fill(0);
        this.titleStamp = 0;
      }
      const stamp = ++this.titleStamp;
      for (const expansion of word.expansions) {
        const isReal = expansion.kind !== "fuzzy";
        const titleCounts = expansion.kind === "exact" || expansion.kind === "stem";
        for (let f = 0; f < fieldCount; f++) {
          const countsTitle = titleCounts && f === titleField;
          const postings = expansion.data.get(f);
          if (!postings) continue;
          this.clean(postings);
          const { bytes, start, end, count: listed } = postings.encoded();
          if (listed === 0) continue;
          const factor = expansion.weight * fieldWeights[f]!;
          const b = normalisation[f]!;
          const averageLength = averages[f]!;
          let at = start;
          let id = -1;
          while (at < end) {
            // Inlined varint decoding (see posting-list.ts): this loop runs once per posting.
            let value = bytes[at++]!;
            if (value >= 0x80) {
              value &= 0x7f;
              let scale = 0x80;
              for (;;) {
                const byte = bytes[at++]!;
                value += (byte & 0x7f) * scale;
                if (byte < 0x80) break;
                scale *= 0x80;
              }
            }
            let termFrequency = value % 4;
            if (termFrequency === 0) {
              let scale = 1;
              for (;;) {
                const byte = bytes[at++]!;
                termFrequency += (byte & 0x7f) * scale;
                if (byte < 0x80) break;
                scale *= 0x80;
              }
            }
            id += (value - (value % 4)) / 4;
            const normalised = (factor * termFrequency) / lengthNorm(b, fieldLengths[id * fieldCount + f]!, averageLength);
            const slot = id * words + slotWord;
            if ((matched[slot]! & bit) === 0) {
              if (touched[id] === 0) {
                touched[id] = 1;
                ids[count++] = id;
              }
              termIds[termCount++] = id;
              matched[slot] = matched[slot]! | bit;
              termScores[id] = normalised;
            } else {
              termScores[id] = termScores[id]! + normalised;
            }
            if (isReal) real[slot] = real[slot]! | bit;
            if (countsTitle && titleMarks[id] !== stamp) {
              titleMarks[id] = stamp;
              titleWords[id] = titleWords[id]! + 1;
            }
          }
        }
      }
      // Saturated once per word and note, over all its expansions and fields: that is BM25F.
      const rarity = inverseDocumentFrequency(documentCount, termCount);
      idf[source] = rarity;
      df[source] = termCount;
      const weight = queryWordWeight(ranking, word.query.weak);
      for (let i = 0; i < termCount; i++) {
        const id = termIds[i]!;
        scores[id] = scores[id]! + weight * saturatedScore(ranking, rarity, termScores[id]!);
        termScores[id] = 0;
      }
    });

    const matchedIds = ids.slice(0, count);
    const compactScores = new Float64Array(count);
    const compactMatched = new Uint32Array(count * words);
    const compactReal = new Uint32Array(count * words);
    const compactTitleWords = new Int32Array(count);
    this.takeMatches(matchedIds, words, compactScores, compactMatched, compactReal, compactTitleWords);
    return {
      ids: matchedIds,
      scores: compactScores,
      words,
      matched: compactMatched,
      real: compactReal,
      titleWords: compactTitleWords,
      idf,
      df,
      path: (id) => documents.path(id),
      terms: (wanted) => matchedTerms(planned, matchedIds, compactMatched, words, wanted),
      explain: (wanted) => wanted.map((at) => explainMatch(planned, matchedIds[at]!, idf, df, documents, ranking)),
    };
  }

  /**
   * Copies the matches' scores and bits out of the scratch arrays, densely, and clears them for the
   * next query. A method of its own so that nothing follows its loop: V8 compiles a long loop while it
   * runs, and code after the loop that had never run (the result's literal, when this was inline)
   * deoptimized that compiled loop at its end, on every query of a fresh process, 20 times over.
   */
  private takeMatches(matchedIds: Int32Array, words: number, scores: Float64Array, matched: Uint32Array, real: Uint32Array, titleWords: Int32Array): void {
    const { scores: scratchScores, matched: scratchMatched, real: scratchReal, touched, titleWords: scratchTitleWords } = this;
    for (let i = 0; i < matchedIds.length; i++) {
      const id = matchedIds[i]!;
      scores[i] = scratchScores[id]!;
      titleWords[i] = scratchTitleWords[id]!;
      scratchTitleWords[id] = 0;
      scratchScores[id] = 0;
      touched[id] = 0;
      for (let w = 0; w < words; w++) {
        matched[i * words + w] = scratchMatched[id * words + w]!;
        real[i * words + w] = scratchReal[id * words + w]!;
        scratchMatched[id * words + w] = 0;
        scratchReal[id * words + w] = 0;
      }
    }
  }

  /**
   * Drops the postings of removed documents from a list before it is scored, so frequencies and
   * document counts are of live notes only. A list is checked once per removal, not once per query.
   */
  private clean(postings: PostingList): void {
    const removals = this.documents.removals;
    if (removals === 0 || this.checked.get(postings) === removals) return;
    postings.retain(this.documents.alive);
    this.checked.set(postings, removals);
  }

  private reserve(size: number, words: number): void {
    if (this.scores.length < size) {
      const length = Math.max(size, this.scores.length * 2, 1024);
      this.scores = new Float64Array(length);
      this.termScores = new Float64Array(length);
      this.touched = new Uint8Array(length);
      this.ids = new Int32Array(length);
      this.termIds = new Int32Array(length);
      this.titleWords = new Int32Array(length);
      this.titleMarks = new Int32Array(length);
      this.titleStamp = 0;
    }
    const bits = this.scores.length * words;
    if (this.matched.length < bits) {
      this.matched = new Uint32Array(bits);
      this.real = new Uint32Array(bits);
    }
  }
}

/** Per field, how often an expansion's term occurs in document `id`. */
function fieldFrequencies(expansion: Expansion, id: number): Partial<Record<FieldName, number>> | null {
  let fields: Partial<Record<FieldName, number>> | null = null;
  FIELDS.forEach((field, f) => {
    const frequency = expansion.data.get(f)?.get(id);
    if (frequency !== undefined) (fields ??= {})[field] = frequency;
  });
  return fields;
}

/**
 * The index terms of the wanted matches. A word reaching one index term matched through it exactly
 * where its bit is set; for words with several, one pass over each expansion's lists, looking only
 * for the wanted documents (a common word's list is long: a lookup per hit would walk it each time).
 */
function matchedTerms(
  planned: readonly PlannedWord[],
  ids: Int32Array,
  matched: Uint32Array,
  words: number,
  wanted: readonly number[],
): string[][] {
  const found = wanted.map(() => new Set<string>());
  const scanned: Expansion[] = [];
  planned.forEach((word, source) => {
    if (word.expansions.length !== 1) {
      scanned.push(...word.expansions);
      return;
    }
    const bit = (1 << (source & 31)) >>> 0;
    wanted.forEach((at, position) => {
      if ((matched[at * words + (source >>> 5)]! & bit) !== 0) found[position]!.add(word.expansions[0]!.term);
    });
  });
  if (scanned.length > 0) {
    const positions = new Map<number, number>();
    let highest = -1;
    wanted.forEach((at, position) => {
      const id = ids[at]!;
      positions.set(id, position);
      if (id > highest) highest = id;
    });
    for (const { term, data } of scanned) {
      for (let f = 0; f < FIELDS.length; f++) {
        data.get(f)?.forEachPosting((id) => {
          if (id > highest) return false;
          const position = positions.get(id);
          if (position !== undefined) found[position]!.add(term);
          return true;
        });
      }
    }
  }
  return found.map((terms) => [...terms].sort());
}

function explainMatch(
  planned: readonly PlannedWord[],
  id: number,
  idf: Float64Array,
  df: Int32Array,
  documents: DocumentTable,
  ranking: RankingParameters,
): WordExplanation[] {
  const explained: WordExplanation[] = [];
  planned.forEach((word, source) => {
    const matches: MatchExplanation[] = [];
    let tf = 0;
    for (const expansion of word.expansions) {
      const fields = fieldFrequencies(expansion, id);
      if (!fields) continue;
      matches.push({ term: expansion.term, via: expansion.kind, weight: roundScore(expansion.weight), fields });
      FIELDS.forEach((field, f) => {
        const frequency = fields[field];
        if (frequency === undefined) return;
        const length = documents.fieldLengths[id * documents.fieldCount + f]!;
        tf += (expansion.weight * ranking.fieldWeights[field] * frequency) / lengthNorm(ranking.lengthNormalisation[field], length, documents.averageLength(f));
      });
    }
    if (matches.length === 0) return;
    explained.push({
      word: word.query.term,
      weight: queryWordWeight(ranking, word.query.weak),
      idf: roundScore(idf[source]!),
      df: df[source]!,
      tf: roundScore(tf),
      contribution: roundScore(queryWordWeight(ranking, word.query.weak) * saturatedScore(ranking, idf[source]!, tf)),
      matches,
    });
  });
  return explained;
}

/** Whether query word `term` matched match `i` of the evaluation. */
export function matchedTerm(evaluation: Evaluation, i: number, term: number): boolean {
  return ((evaluation.matched[i * evaluation.words + (term >>> 5)]! >>> (term & 31)) & 1) === 1;
}

/** Whether query word `term` matched match `i` through itself, its stem or a prefix. */
export function realTerm(evaluation: Evaluation, i: number, term: number): boolean {
  return ((evaluation.real[i * evaluation.words + (term >>> 5)]! >>> (term & 31)) & 1) === 1;
}
