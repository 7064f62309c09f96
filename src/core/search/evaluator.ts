// Query evaluation over the MiniSearch index, computing exactly MiniSearch's BM25 (same expansions,
// weights and formula; near spellings may be summed in another order, which moves a score by a
// rounding error at most) into arrays indexed by document number. MiniSearch's own `search`
// builds an object, an array and a match record per document and term, then sorts every hit: for a
// word in all 20,000 notes of a vault that was most of a 65 ms query. Here a query costs one pass over
// the encoded postings (see posting-list.ts), and the matched index terms are worked out only for the
// hits a page shows.
import type MiniSearch from "minisearch";
import type { TermData } from "./minisearch-access";
import type { PostingList } from "./posting-list";
import type { QueryTerm } from "./query";

interface TermTree {
  get(term: string): TermData | undefined;
  atPrefix(prefix: string): Iterable<[string, TermData]>;
  fuzzyGet(term: string, maxDistance: number): Map<string, [TermData, number]>;
}

interface Bm25Params {
  k: number;
  b: number;
  d: number;
}

interface SearchOptionsView {
  boost?: Record<string, number>;
  weights?: { fuzzy?: number; prefix?: number };
  maxFuzzy?: number;
  bm25?: Bm25Params;
  fields?: string[];
}

interface Internals {
  _index: TermTree;
  _documentCount: number;
  _avgFieldLength: number[];
  _fieldIds: Record<string, number>;
  _options: { fields: string[]; searchOptions: SearchOptionsView };
}

function isInternals(value: unknown): value is Internals {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Record<string, unknown>;
  const tree = candidate["_index"] as Record<string, unknown> | undefined;
  const options = candidate["_options"] as Record<string, unknown> | undefined;
  return (
    typeof tree === "object" &&
    tree !== null &&
    typeof tree["get"] === "function" &&
    typeof tree["atPrefix"] === "function" &&
    typeof tree["fuzzyGet"] === "function" &&
    typeof candidate["_documentCount"] === "number" &&
    Array.isArray(candidate["_avgFieldLength"]) &&
    typeof candidate["_fieldIds"] === "object" &&
    typeof options === "object" &&
    options !== null &&
    Array.isArray(options["fields"]) &&
    typeof options["searchOptions"] === "object"
  );
}

/**
 * What the evaluator reads of each document, by short id, in arrays rather than MiniSearch's maps:
 * a query over a word in every note looks each of them up.
 */
export interface DocumentTable {
  /** 1 while the document of that short id is indexed. */
  readonly alive: Uint8Array;
  /** Distinct terms of document `id` in field `f` at `id × fieldCount + f` (MiniSearch's field length). */
  readonly fieldLengths: Int32Array;
  readonly fieldCount: number;
  /** Bumped whenever a document is removed: a list checked clean at the current value holds no removed one. */
  readonly removals: number;
  path(id: number): string;
}

// MiniSearch's defaults (defaultSearchOptions), used where the instance's options leave them out.
const DEFAULT_WEIGHTS = { fuzzy: 0.45, prefix: 0.375 };
const DEFAULT_MAX_FUZZY = 6;
const DEFAULT_BM25: Bm25Params = { k: 1.2, b: 0.7, d: 0.5 };

/** Terms within `maxDistance` edits of `term`, with their distances, as MiniSearch's fuzzyGet gives them. */
export type FuzzyLookup = (term: string, maxDistance: number) => Map<string, [TermData, number]>;

/** One index term a query term reached (itself, a longer word for a prefix, a near spelling). */
interface Expansion {
  /** The query term's position. */
  source: number;
  term: string;
  data: TermData;
}

/**
 * The documents a query matched, in the order first reached: match i is document `ids[i]`. Which
 * query terms matched are bit sets of `words` 32-bit words per match.
 */
export interface Evaluation {
  /** MiniSearch's short document ids. */
  readonly ids: Int32Array;
  /** Sum of the weighted BM25 of every expansion in every field (MiniSearch's score before quality). */
  readonly scores: Float64Array;
  readonly words: number;
  /** Bit t of match i's set: query term t matched (through any expansion). */
  readonly matched: Uint32Array;
  /** Bit t of match i's set: query term t matched through itself or a prefix expansion, not only a near spelling. */
  readonly real: Uint32Array;
  /** The document's path. */
  path(id: number): string;
  /** For each of the given matches (positions in `ids`), the index terms through which it matched, sorted (as MiniSearch's `terms`). */
  terms(matches: readonly number[]): string[][];
}

export class QueryEvaluator {
  private readonly target: Internals;
  private readonly documents: DocumentTable;
  private scores = new Float64Array(0);
  private termScores = new Float64Array(0);
  private matched = new Uint32Array(0);
  private real = new Uint32Array(0);
  private touched = new Uint8Array(0);
  private ids = new Int32Array(0);
  private termIds = new Int32Array(0);
  /** Per list, the `removals` value at which it was last found holding no removed document. */
  private readonly checked = new WeakMap<PostingList, number>();
  private readonly fuzzy: FuzzyLookup;

  /** `fuzzy` finds near spellings faster than MiniSearch's tree walk; the same terms, in another order. */
  constructor(engine: MiniSearch<never>, documents: DocumentTable, fuzzy?: FuzzyLookup) {
    if (!isInternals(engine)) {
      throw new Error("This MiniSearch version lays out its index differently; the note index supports minisearch 7.");
    }
    this.target = engine;
    this.documents = documents;
    const tree = this.target._index;
    this.fuzzy = fuzzy ?? ((term, maxDistance) => tree.fuzzyGet(term, maxDistance));
  }

  /** Evaluates the terms combined with OR. */
  evaluate(terms: readonly QueryTerm[]): Evaluation {
    const target = this.target;
    const documents = this.documents;
    const alive = documents.alive;
    const fieldLengths = documents.fieldLengths;
    const fieldCount = documents.fieldCount;
    const words = Math.max(1, Math.ceil(terms.length / 32));
    this.reserve(alive.length, words);
    const { scores, termScores, matched, real, touched, ids, termIds } = this;
    const options = target._options.searchOptions;
    const fields = options.fields ?? target._options.fields;
    const boosts = fields.map((field) => Object.prototype.hasOwnProperty.call(options.boost ?? {}, field) ? options.boost![field]! || 1 : 1);
    const fieldIds = fields.map((field) => target._fieldIds[field]!);
    const weights = { ...DEFAULT_WEIGHTS, ...(options.weights ?? {}) };
    const maxFuzzy = options.maxFuzzy ?? DEFAULT_MAX_FUZZY;
    const bm25 = options.bm25 ?? DEFAULT_BM25;
    const k = bm25.k;
    const b = bm25.b;
    const d = bm25.d;
    const documentCount = target._documentCount;
    const expansions: Expansion[] = [];
    let count = 0;

    terms.forEach((query, source) => {
      const bit = (1 << (source & 31)) >>> 0;
      const word = source >>> 5;
      let termCount = 0;
      const visit = (term: string, data: TermData | undefined, weight: number, isReal: boolean): void => {
        if (!data) return;
        expansions.push({ source, term, data });
        for (let f = 0; f < fields.length; f++) {
          const fieldId = fieldIds[f]!;
          const postings = data.get(fieldId);
          if (!postings) continue;
          this.clean(postings);
          const { bytes, start, end, count: matchingFields } = postings.encoded();
          if (matchingFields === 0) continue;
          const averageLength = target._avgFieldLength[fieldId]!;
          const factor = weight * query.weight * boosts[f]!;
          // MiniSearch's calcBM25Score, term for term, so scores agree to the last bit.
          const inverseFrequency = Math.log(1 + (documentCount - matchingFields + 0.5) / (matchingFields + 0.5));
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
            const fieldLength = fieldLengths[id * fieldCount + fieldId]!;
            const raw = inverseFrequency * (d + (termFrequency * (k + 1)) / (termFrequency + k * (1 - b + (b * fieldLength) / averageLength)));
            const slot = id * words + word;
            if ((matched[slot]! & bit) === 0) {
              if (touched[id] === 0) {
                touched[id] = 1;
                ids[count++] = id;
              }
              termIds[termCount++] = id;
              matched[slot] = matched[slot]! | bit;
              termScores[id] = factor * raw;
            } else {
              termScores[id] = termScores[id]! + factor * raw;
            }
            if (isReal) real[slot] = real[slot]! | bit;
          }
        }
      };
      const tree = target._index;
      visit(query.term, tree.get(query.term), 1, true);
      let fuzzyMatches: Map<string, [TermData, number]> | undefined;
      if (query.fuzzy > 0) {
        const maxDistance = query.fuzzy < 1 ? Math.min(maxFuzzy, Math.round(query.term.length * query.fuzzy)) : query.fuzzy;
        if (maxDistance) fuzzyMatches = this.fuzzy(query.term, maxDistance);
      }
      if (query.prefix) {
        for (const [term, data] of tree.atPrefix(query.term)) {
          const distance = term.length - query.term.length;
          if (!distance) continue;
          fuzzyMatches?.delete(term);
          visit(term, data, (weights.prefix * term.length) / (term.length + 0.3 * distance), true);
        }
      }
      if (fuzzyMatches) {
        for (const [term, [data, distance]] of fuzzyMatches) {
          if (!distance) continue;
          visit(term, data, (weights.fuzzy * term.length) / (term.length + distance), false);
        }
      }
      // Per term first, then across terms, as MiniSearch's OR combines per-term results.
      for (let i = 0; i < termCount; i++) {
        const id = termIds[i]!;
        scores[id] = scores[id]! + termScores[id]!;
        termScores[id] = 0;
      }
    });

    const matchedIds = ids.slice(0, count);
    const compactScores = new Float64Array(count);
    const compactMatched = new Uint32Array(count * words);
    const compactReal = new Uint32Array(count * words);
    this.takeMatches(matchedIds, words, compactScores, compactMatched, compactReal);
    return {
      ids: matchedIds,
      scores: compactScores,
      words,
      matched: compactMatched,
      real: compactReal,
      path: (id) => documents.path(id),
      terms: (wanted) => matchedTerms(expansions, fieldIds, matchedIds, compactMatched, words, wanted),
    };
  }

  /**
   * Copies the matches' scores and bits out of the scratch arrays, densely, and clears them for the
   * next query. A method of its own so that nothing follows its loop: V8 compiles a long loop while it
   * runs, and code after the loop that had never run (the result's literal, when this was inline)
   * deoptimized that compiled loop at its end, on every query of a fresh process, 20 times over.
   */
  private takeMatches(matchedIds: Int32Array, words: number, scores: Float64Array, matched: Uint32Array, real: Uint32Array): void {
    const { scores: scratchScores, matched: scratchMatched, real: scratchReal, touched } = this;
    for (let i = 0; i < matchedIds.length; i++) {
      const id = matchedIds[i]!;
      scores[i] = scratchScores[id]!;
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
   * Drops the postings of removed documents from a list before it is scored, as MiniSearch's search
   * drops those it meets (its term frequency then counts live documents only). A list is checked once
   * per removal, not once per query.
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
    }
    const bits = this.scores.length * words;
    if (this.matched.length < bits) {
      this.matched = new Uint32Array(bits);
      this.real = new Uint32Array(bits);
    }
  }
}

/**
 * The index terms of the wanted matches. A query term reached through itself alone matched exactly
 * where its bit is set; for those with several expansions, one pass over each expansion's lists,
 * looking only for the wanted documents.
 */
function matchedTerms(
  expansions: readonly Expansion[],
  fieldIds: readonly number[],
  ids: Int32Array,
  matched: Uint32Array,
  words: number,
  wanted: readonly number[],
): string[][] {
  const found = wanted.map(() => new Set<string>());
  const bySource = new Map<number, Expansion[]>();
  for (const expansion of expansions) {
    const list = bySource.get(expansion.source);
    if (list) list.push(expansion);
    else bySource.set(expansion.source, [expansion]);
  }
  const scanned: Expansion[] = [];
  for (const [source, list] of bySource) {
    if (list.length > 1) {
      scanned.push(...list);
      continue;
    }
    const bit = (1 << (source & 31)) >>> 0;
    wanted.forEach((at, position) => {
      if ((matched[at * words + (source >>> 5)]! & bit) !== 0) found[position]!.add(list[0]!.term);
    });
  }
  if (scanned.length > 0) {
    const positions = new Map<number, number>();
    let highest = -1;
    wanted.forEach((at, position) => {
      const id = ids[at]!;
      positions.set(id, position);
      if (id > highest) highest = id;
    });
    for (const { term, data } of scanned) {
      for (const fieldId of fieldIds) {
        const postings = data.get(fieldId);
        if (!postings) continue;
        postings.forEachPosting((id) => {
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

/** Whether query term `term` matched match `i` of the evaluation. */
export function matchedTerm(evaluation: Evaluation, i: number, term: number): boolean {
  return ((evaluation.matched[i * evaluation.words + (term >>> 5)]! >>> (term & 31)) & 1) === 1;
}

/** Whether query term `term` matched match `i` through itself or a prefix expansion. */
export function realTerm(evaluation: Evaluation, i: number, term: number): boolean {
  return ((evaluation.real[i * evaluation.words + (term >>> 5)]! >>> (term & 31)) & 1) === 1;
}
