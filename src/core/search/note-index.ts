// The full-text index of a vault's notes over MiniSearch (BM25). It stores no document fields: bodies
// of 20,000 notes would double memory and the snapshot, so phrases are verified by reading only the
// candidate notes, and a compact id → path map is the only per-note state besides the postings.
import MiniSearch, { type Options } from "minisearch";
import { checkSerialized, type SerializedNoteIndex } from "./note-index-json";
import { containsPhrase, phraseCandidateTerms, type CandidateTerm } from "./phrase";
import { STOP_WORD_WEIGHT, type ParsedQuery, type QueryTerm } from "./query";
import { positiveTerms, queryTree, score } from "./scoring";
import { SnapshotError } from "./snapshot";
import { tokenize, wordSequence } from "./tokenizer";

export interface IndexDoc {
  path: string;
  title: string;
  aliases: string[];
  headings: string[];
  tags: string[];
  body: string;
}

export interface SearchHit {
  path: string;
  /** Larger is better; rounded to 3 decimals. */
  score: number;
  /** The index terms that matched, sorted (prefix and fuzzy expansions included). */
  terms: string[];
}

export interface SearchPage {
  /** Every hit, before offset and limit. */
  total: number;
  hits: SearchHit[];
}

export interface NoteSearchOptions {
  limit: number;
  offset: number;
  /** Keeps only the paths it accepts (folder, glob, tags…), before any note text is read. */
  filter?: (path: string) => boolean;
  /**
   * The note's text, to verify phrases on the few notes holding all of a phrase's terms; null when
   * the note is gone. Without it a phrase counts as present when all its terms are.
   */
  loadText?: (path: string) => Promise<string | null>;
}

/** Field weights: a word in the title says more about a note than the same word in its body. */
export const FIELD_BOOSTS = { title: 4, aliases: 3, headings: 2, tags: 2, body: 1 } as const;

/** Bump when the tokenizer, fields or serialised shape change: older snapshots are then rebuilt. */
export const NOTE_INDEX_VERSION = 1;

const PHRASE_READ_CONCURRENCY = 8;

type FieldName = keyof typeof FIELD_BOOSTS;
const FIELDS = Object.keys(FIELD_BOOSTS) as FieldName[];

interface Entry {
  id: number;
  doc: IndexDoc;
}

interface PhraseCheck {
  words: string[];
  candidates: CandidateTerm[];
}

interface Candidate {
  id: number;
  path: string;
  score: number;
  terms: string[];
  matched: ReadonlySet<string>;
}

function fieldText(doc: IndexDoc, field: FieldName): string {
  const value = doc[field];
  return typeof value === "string" ? value : value.join("\n");
}

function engineOptions(): Options<Entry> {
  return {
    fields: FIELDS,
    idField: "id",
    storeFields: [],
    extractField: (entry, field) => (field === "id" ? entry.id : fieldText(entry.doc, field as FieldName)),
    tokenize: (text) => tokenize(text),
    processTerm: (term) => term,
    // MiniSearch's warnings quote terms, which are note content (SPEC §11).
    logger: () => undefined,
    searchOptions: { boost: { ...FIELD_BOOSTS }, tokenize: (term) => [term], processTerm: (term) => term },
  };
}

export class NoteIndex {
  private engine: MiniSearch<Entry>;
  private readonly pathById: Map<number, string>;
  private readonly idByPath: Map<string, number>;
  private nextId: number;

  constructor() {
    this.engine = new MiniSearch(engineOptions());
    this.pathById = new Map();
    this.idByPath = new Map();
    this.nextId = 1;
  }

  get size(): number {
    return this.idByPath.size;
  }

  has(path: string): boolean {
    return this.idByPath.has(path);
  }

  /** Sorted. */
  paths(): string[] {
    return [...this.idByPath.keys()].sort(comparePaths);
  }

  /** Indexes a note; a path already indexed is replaced, so a repeated event cannot corrupt the index. */
  add(doc: IndexDoc): void {
    if (this.idByPath.has(doc.path)) {
      this.replace(doc);
      return;
    }
    const id = this.nextId++;
    this.engine.add({ id, doc });
    this.pathById.set(id, doc.path);
    this.idByPath.set(doc.path, id);
  }

  replace(doc: IndexDoc): void {
    const id = this.idByPath.get(doc.path);
    if (id === undefined) this.add(doc);
    else this.engine.replace({ id, doc });
  }

  /** False when the path was not indexed. */
  remove(path: string): boolean {
    const id = this.idByPath.get(path);
    if (id === undefined) return false;
    this.engine.discard(id);
    this.idByPath.delete(path);
    this.pathById.delete(id);
    return true;
  }

  async search(query: ParsedQuery, options: NoteSearchOptions): Promise<SearchPage> {
    const phrases = query.phrases.map(toPhraseCheck);
    const groupPhrases = query.groups.map((group) => group.alternatives.map((alternative) => alternative.phrases.map(toPhraseCheck)));
    const excludedPhrases = query.excludedPhrases.map(toPhraseCheck);
    const positive = positiveTerms(query, [...phrases, ...groupPhrases.flat(2)]);
    if (positive.size === 0) return { total: 0, hits: [] };

    const exclusion = this.exclusion(query, excludedPhrases);
    // A note matching only "how", "a" and "the" of a longer question is noise, not a hit; explicit
    // requirements (+the, phrases, groups) say on their own what a hit is.
    const unconstrained = query.required.length === 0 && query.phrases.length === 0 && query.groups.length === 0;
    const strong = new Set(
      unconstrained ? [...positive.values()].filter((term) => term.weight > STOP_WORD_WEIGHT).map(({ term }) => term) : [],
    );
    const candidates: Candidate[] = [];
    for (const result of this.engine.search(queryTree([...positive.values()]))) {
      const id = result.id as number;
      const path = this.pathById.get(id);
      if (path === undefined || exclusion.excluded.has(id)) continue;
      if (options.filter && !options.filter(path)) continue;
      if (strong.size > 0 && !result.queryTerms.some((term) => strong.has(term))) continue;
      const matched = new Set(result.queryTerms);
      if (!query.required.every(({ term }) => matched.has(term))) continue;
      const mayHave = (phrase: PhraseCheck): boolean => phrase.candidates.every(({ term }) => matched.has(term));
      if (!phrases.every(mayHave)) continue;
      const groupsMaySatisfy = query.groups.every((group, g) =>
        group.alternatives.some(
          (alternative, a) =>
            alternative.terms.every(({ term }) => matched.has(term)) && groupPhrases[g]![a]!.every(mayHave),
        ),
      );
      if (!groupsMaySatisfy) continue;
      candidates.push({ id, path, score: score(result, positive), terms: [...result.terms].sort(), matched });
    }

    const verified = await this.verifyPhrases(candidates, {
      query,
      phrases,
      groupPhrases,
      excludedPhrases,
      suspects: exclusion.suspects,
      loadText: options.loadText,
    });
    verified.sort((a, b) => b.score - a.score || comparePaths(a.path, b.path));
    const start = Math.max(0, options.offset);
    const hits = verified
      .slice(start, start + Math.max(0, options.limit))
      .map(({ path, score: value, terms }) => ({ path, score: value, terms }));
    return { total: verified.length, hits };
  }

  /** Notes certainly excluded, and notes holding every term of an excluded phrase (to be checked). */
  private exclusion(
    query: ParsedQuery,
    excludedPhrases: readonly PhraseCheck[],
  ): { excluded: Set<number>; suspects: Map<number, PhraseCheck[]> } {
    const excluded = new Set<number>();
    const suspects = new Map<number, PhraseCheck[]>();
    const lookups = new Map<string, QueryTerm>();
    for (const term of query.excluded) lookups.set(term.term, term);
    for (const phrase of excludedPhrases) {
      for (const candidate of phrase.candidates) {
        const known = lookups.get(candidate.term);
        lookups.set(candidate.term, {
          term: candidate.term,
          prefix: candidate.prefix || (known?.prefix ?? false),
          fuzzy: 0,
          weight: 1,
        });
      }
    }
    if (lookups.size === 0) return { excluded, suspects };
    const excludedTerms = query.excluded.map(({ term }) => term);
    for (const result of this.engine.search(queryTree([...lookups.values()]))) {
      const id = result.id as number;
      const matched = new Set(result.queryTerms);
      if (excludedTerms.some((term) => matched.has(term))) {
        excluded.add(id);
        continue;
      }
      const suspected = excludedPhrases.filter((phrase) => phrase.candidates.every(({ term }) => matched.has(term)));
      if (suspected.length > 0) suspects.set(id, suspected);
    }
    return { excluded, suspects };
  }

  private async verifyPhrases(candidates: Candidate[], plan: PhrasePlan): Promise<Candidate[]> {
    const hasPositivePhrases = plan.phrases.length > 0 || plan.groupPhrases.some((group) => group.some((phrases) => phrases.length > 0));
    if (!hasPositivePhrases && plan.suspects.size === 0) return candidates;
    const loadText = plan.loadText;
    if (!loadText) return candidates.filter((candidate) => !plan.suspects.has(candidate.id));
    const kept: Candidate[] = [];
    for (let start = 0; start < candidates.length; start += PHRASE_READ_CONCURRENCY) {
      const batch = candidates.slice(start, start + PHRASE_READ_CONCURRENCY);
      const verdicts = await Promise.all(batch.map((candidate) => this.holdsPhrases(candidate, plan, loadText)));
      batch.forEach((candidate, index) => {
        if (verdicts[index]) kept.push(candidate);
      });
    }
    return kept;
  }

  private async holdsPhrases(
    candidate: Candidate,
    plan: PhrasePlan,
    loadText: (path: string) => Promise<string | null>,
  ): Promise<boolean> {
    const text = await loadText(candidate.path);
    if (text === null) return false;
    const words = wordSequence(text);
    const titleWords = wordSequence(basename(candidate.path));
    const present = (phrase: PhraseCheck): boolean => containsPhrase(words, phrase.words) || containsPhrase(titleWords, phrase.words);
    if (!plan.phrases.every(present)) return false;
    const groupsHold = plan.query.groups.every((group, g) =>
      group.alternatives.some(
        (alternative, a) =>
          alternative.terms.every(({ term }) => candidate.matched.has(term)) && plan.groupPhrases[g]![a]!.every(present),
      ),
    );
    if (!groupsHold) return false;
    return !(plan.suspects.get(candidate.id) ?? []).some(present);
  }

  toJSON(): unknown {
    const ids = [...this.pathById.keys()];
    const serialized: SerializedNoteIndex = {
      version: NOTE_INDEX_VERSION,
      nextId: this.nextId,
      ids,
      paths: ids.map((id) => this.pathById.get(id)!),
      engine: this.engine.toJSON(),
    };
    return serialized;
  }

  /** Throws a SnapshotError ("version" or "format") when the value is not a usable serialised index. */
  static fromJSON(json: unknown): NoteIndex {
    const serialized = checkSerialized(json, NOTE_INDEX_VERSION, FIELDS);
    const index = new NoteIndex();
    let engine: MiniSearch<Entry>;
    try {
      engine = MiniSearch.loadJS(serialized.engine, engineOptions());
    } catch (error) {
      throw new SnapshotError("format", `Serialised index cannot be loaded: ${describe(error)}.`);
    }
    const known = new Set(serialized.ids);
    const engineIds = Object.values(serialized.engine.documentIds);
    if (engineIds.length !== known.size || !engineIds.every((id) => typeof id === "number" && known.has(id))) {
      throw new SnapshotError("format", "Serialised index: its documents and its path map disagree.");
    }
    index.engine = engine;
    serialized.ids.forEach((id, position) => {
      const path = serialized.paths[position]!;
      index.pathById.set(id, path);
      index.idByPath.set(path, id);
    });
    index.nextId = serialized.nextId;
    return index;
  }
}

interface PhrasePlan {
  query: ParsedQuery;
  phrases: PhraseCheck[];
  groupPhrases: PhraseCheck[][][];
  excludedPhrases: PhraseCheck[];
  suspects: ReadonlyMap<number, PhraseCheck[]>;
  loadText: ((path: string) => Promise<string | null>) | undefined;
}

function toPhraseCheck(words: string[]): PhraseCheck {
  return { words, candidates: phraseCandidateTerms(words) };
}

function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function basename(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

