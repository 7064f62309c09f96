// A Bloom filter of each note's adjacent word pairs. The index keeps no positions, so a phrase is
// verified by reading the notes that hold all its words; for two words that are each common but
// rarely side by side, that was a thousand reads for five hits. A note whose filter lacks one of the
// phrase's pairs cannot hold the phrase (a Bloom filter has no false negatives) and is not read.
//
// Pairs come from the same word sequences the phrase check reads (the body's and the file name's),
// so the filter answers "no" only where that check would. Pairs with a CJK word are never asked: a
// CJK word of a phrase may match inside a longer run (see containsPhrase).
import { termHash } from "./term-table";
import { containsCjk } from "./tokenizer";

/** Filter bits per distinct pair: with three probes about 3% of absent pairs test present. */
const BITS_PER_PAIR = 8;
const PROBES = 3;
const MIN_BYTES = 8;
/** A note of a million words still gets a filter of bounded size (it only grows less selective). */
const MAX_BYTES = 1 << 16;

/** The filter of the adjacent pairs in each of `sequences` (never across two of them). */
export function buildPhraseFilter(sequences: ReadonlyArray<readonly string[]>): Uint8Array {
  return buildPhraseFilterFromHashes(sequences.map((words) => Int32Array.from(words, termHash)));
}

/**
 * As `buildPhraseFilter`, from the words' hashes (termHash), as the indexing scan computes them;
 * `lengths[i]` words of `sequences[i]` count (all when absent).
 */
export function buildPhraseFilterFromHashes(sequences: readonly Int32Array[], lengths?: readonly number[]): Uint8Array {
  let pairs = 0;
  sequences.forEach((words, i) => (pairs += Math.max(0, (lengths?.[i] ?? words.length) - 1)));
  // Sized to the pairs, not to a power of two: filters are a fifth of a vault's snapshot.
  const bytes = Math.min(MAX_BYTES, Math.max(MIN_BYTES, Math.ceil((pairs * BITS_PER_PAIR) / 8)));
  const filter = new Uint8Array(bytes);
  const scale = (bytes * 8) / 2 ** 32;
  sequences.forEach((words, s) => {
    const length = lengths?.[s] ?? words.length;
    for (let i = 1; i < length; i++) {
      const first = pairHash(words[i - 1]!, words[i]!);
      const step = probeStep(first);
      for (let probe = 0; probe < PROBES; probe++) {
        const bit = probeBit(first, step, probe, scale);
        filter[bit >>> 3]! |= 1 << (bit & 7);
      }
    }
  });
  return filter;
}

/**
 * The hashes of a phrase's pairs of non-CJK words, computed once per query and probed in each
 * candidate's filter by `mayHoldPairs`.
 */
export function phrasePairHashes(phrase: readonly string[]): Uint32Array {
  const hashes: number[] = [];
  for (let i = 1; i < phrase.length; i++) {
    const left = phrase[i - 1]!;
    const right = phrase[i]!;
    if (!containsCjk(left) && !containsCjk(right)) hashes.push(pairHash(termHash(left), termHash(right)));
  }
  return Uint32Array.from(hashes);
}

/**
 * False only when the note cannot hold the phrase: one of its pairs is absent from the filter. A
 * filter of a size `buildPhraseFilter` never makes (damage) answers true.
 */
export function mayHoldPairs(filter: Uint8Array, hashes: Uint32Array): boolean {
  const bytes = filter.length;
  if (hashes.length === 0 || bytes < MIN_BYTES || bytes > MAX_BYTES) return true;
  const scale = (bytes * 8) / 2 ** 32;
  for (let pair = 0; pair < hashes.length; pair++) {
    const first = hashes[pair]!;
    const step = probeStep(first);
    for (let probe = 0; probe < PROBES; probe++) {
      const bit = probeBit(first, step, probe, scale);
      if ((filter[bit >>> 3]! & (1 << (bit & 7))) === 0) return false;
    }
  }
  return true;
}

/** Whether `filter` can be a phrase filter at all (a snapshot's bytes are checked before use). */
export function isPhraseFilter(filter: Uint8Array): boolean {
  return filter.length >= MIN_BYTES && filter.length <= MAX_BYTES;
}

/** A second hash of the pair, odd and spread over all 32 bits, so the probes' high bits differ. */
function probeStep(first: number): number {
  return (Math.imul(first ^ (first >>> 16), 0x5bd1e995) | 1) >>> 0;
}

/**
 * The filter bit of a pair's probe: the probe's 32-bit hash scaled to the filter's size (a multiply
 * instead of a remainder, which a phrase query computes for every candidate note).
 */
function probeBit(first: number, step: number, probe: number, scale: number): number {
  return (((first + probe * step) >>> 0) * scale) | 0;
}

/** Both words' hashes mixed (a murmur3 finaliser), so that nearby hashes spread over the filter. */
function pairHash(left: number, right: number): number {
  let hash = Math.imul(left, 0x9e3779b1) ^ right;
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
}
