// The query mix, derived deterministically from the corpus: words are picked by document frequency
// over an evenly spaced sample of notes, with a seeded PRNG, so every run (and both engines) gets
// the same list. Each query carries its note_search form and its FTS5 translation.
import { promises as fs } from "node:fs";
import path from "node:path";
import { isStopWord } from "../src/core/search/tokenizer";
import { readPlainNote } from "./markdown";

export const QUERY_KINDS = ["single", "two_terms", "prefix", "phrase", "rare", "frequent", "tag_filter"] as const;
export type QueryKind = (typeof QUERY_KINDS)[number];

export interface BenchQuery {
  id: string;
  kind: QueryKind;
  /** The `query` argument of note_search. */
  ours: string;
  /** The `tags` argument of note_search, and the FTS5 post-filter. */
  tags?: string[];
  /** The FTS5 MATCH expression. */
  fts5: string;
}

export interface QueryMix {
  queries: BenchQuery[];
  /** Notes read to pick the words. */
  sampled: number;
  /** Notes for the note_read measurement. */
  readPaths: string[];
}

const SAMPLE_NOTES = 1000;
const PLAIN_WORD = /^[a-z]{3,}$/;
const WORD = /[\p{L}\p{N}]+/gu;
// Two words separated by one space, neither glued to `_`, digits or other letters (code, links).
const ADJACENT_WORDS = /(?<![\p{L}\p{N}_])([A-Za-z]{3,}) ([A-Za-z]{3,})(?![\p{L}\p{N}_])/gu;
const CODE_FENCE = /```[\s\S]*?```/g;

interface SampledNote {
  path: string;
  words: Set<string>;
  phrases: string[];
  frontmatterTags: string[];
}

export async function buildQueryMix(root: string, notes: readonly string[], perKind: number, seed: number): Promise<QueryMix> {
  const sample = await sampleNotes(root, notes);
  const random = mulberry32(seed);
  const df = new Map<string, number>();
  for (const note of sample) for (const word of note.words) df.set(word, (df.get(word) ?? 0) + 1);

  const size = sample.length;
  const low = Math.max(2, Math.ceil(0.005 * size));
  const high = Math.max(low + 1, Math.floor(0.05 * size));
  const byFrequency = [...df.entries()].sort((a, b) => b[1] - a[1] || compare(a[0], b[0]));
  const mid = (word: string, upper = high): boolean => {
    const count = df.get(word) ?? 0;
    return count >= low && count <= upper;
  };
  const queries: BenchQuery[] = [];
  const add = (kind: QueryKind, ours: string, fts5: string, tags?: string[]): void => {
    const query: BenchQuery = { id: `${kind}-${queries.filter((q) => q.kind === kind).length + 1}`, kind, ours, fts5 };
    if (tags) query.tags = tags;
    queries.push(query);
  };

  // single / rare / frequent: one word, which the reference server's rule passes to FTS5 as is.
  const frequent = byFrequency.slice(0, perKind).map(([word]) => word);
  const frequentSet = new Set(frequent);
  for (const word of shuffled(byFrequency.filter(([word]) => mid(word) && !frequentSet.has(word)).map(([word]) => word), random).slice(0, perKind)) {
    add("single", word, word);
  }

  // two_terms: words that meet in one sampled note, so the FTS5 AND has at least one hit.
  const pairs = new Set<string>();
  for (let attempt = 0; attempt < perKind * 50 && pairs.size < perKind; attempt++) {
    const note = sample[Math.floor(random() * size)];
    if (!note) continue;
    const words = [...note.words].filter((word) => mid(word, Math.floor(0.2 * size)));
    if (words.length < 2) continue;
    const picked = shuffled(words, random).slice(0, 2).sort(compare);
    const key = picked.join(" ");
    if (pairs.has(key)) continue;
    pairs.add(key);
    add("two_terms", key, `${picked[0]} AND ${picked[1]}`);
  }

  // prefix: the first four letters of a longer mid-frequency word.
  const prefixes = new Set<string>();
  for (const [word] of shuffled(byFrequency.filter(([word]) => word.length >= 7 && mid(word)), random)) {
    if (prefixes.size >= perKind) break;
    const prefix = word.slice(0, 4);
    if (prefixes.has(prefix)) continue;
    prefixes.add(prefix);
    add("prefix", `${prefix}*`, `${prefix}*`);
  }

  // phrase: two adjacent words as written in a sampled note.
  const phrases = new Set<string>();
  for (let attempt = 0; attempt < perKind * 50 && phrases.size < perKind; attempt++) {
    const note = sample[Math.floor(random() * size)];
    if (!note || note.phrases.length === 0) continue;
    const phrase = note.phrases[Math.floor(random() * note.phrases.length)]!;
    if (phrases.has(phrase)) continue;
    phrases.add(phrase);
    add("phrase", `"${phrase}"`, `"${phrase}"`);
  }

  for (const word of shuffled(byFrequency.filter(([word, count]) => count === 1 && word.length >= 6).map(([word]) => word), random).slice(0, perKind)) {
    add("rare", word, word);
  }
  for (const word of frequent) add("frequent", word, word);

  // tag_filter: a common frontmatter tag and a word from a note carrying it.
  const tagCounts = new Map<string, number>();
  for (const note of sample) for (const tag of note.frontmatterTags) tagCounts.set(tag, (tagCounts.get(tag) ?? 0) + 1);
  const commonTags = [...tagCounts.entries()]
    .filter(([, count]) => count >= 2)
    .sort((a, b) => b[1] - a[1] || compare(a[0], b[0]))
    .slice(0, perKind * 3)
    .map(([tag]) => tag);
  for (const tag of shuffled(commonTags, random).slice(0, perKind)) {
    const carriers = sample.filter((note) => note.frontmatterTags.includes(tag));
    const note = carriers[Math.floor(random() * carriers.length)];
    const words = note ? [...note.words].filter((word) => mid(word, Math.floor(0.2 * size))).sort(compare) : [];
    const word = words[Math.floor(random() * words.length)];
    if (word === undefined) continue;
    add("tag_filter", word, word, [tag]);
  }

  const readPaths = shuffled(sample.map((note) => note.path), random).slice(0, perKind);
  return { queries, sampled: size, readPaths };
}

async function sampleNotes(root: string, notes: readonly string[]): Promise<SampledNote[]> {
  const count = Math.min(notes.length, SAMPLE_NOTES);
  const sample: SampledNote[] = [];
  for (let i = 0; i < count; i++) {
    const relative = notes[Math.floor((i * notes.length) / count)]!;
    const text = await fs.readFile(path.join(root, relative), "utf8");
    const note = readPlainNote(relative, text);
    const prose = note.body.replace(CODE_FENCE, " ");
    const words = new Set<string>();
    for (const match of prose.toLowerCase().matchAll(WORD)) {
      if (PLAIN_WORD.test(match[0]) && !isStopWord(match[0])) words.add(match[0]);
    }
    const phrases: string[] = [];
    for (const match of prose.matchAll(ADJACENT_WORDS)) {
      const first = match[1]!.toLowerCase();
      const second = match[2]!.toLowerCase();
      if (first !== second && !isStopWord(first) && !isStopWord(second)) phrases.push(`${first} ${second}`);
    }
    sample.push({ path: relative, words, phrases, frontmatterTags: note.frontmatterTags });
  }
  return sample;
}

/** A small seeded PRNG (mulberry32): the same seed gives the same query list on every machine. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
