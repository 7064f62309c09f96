// Loading many shards' postings at once. Merging shard after shard appended to each common term's
// lists once per shard, growing them by copies (two million appends at 20,000 notes, most of a warm
// start); counting first lets every list be allocated once, at its final size, and filled in place.
import { readChunk } from "./postings";

export interface MergedShard {
  /** The shard's document d is the index's document `ids[d]`; ids ascend with the shard order. */
  ids: Int32Array;
  /** Encoded chunks, already checked with `readChunk`. */
  chunks: readonly Uint8Array[];
}

/** Receives a term's postings in one field: [id, tf, …], ids ascending. */
export type PostingsSink = (term: string, field: number, pairs: Int32Array) => void;

/** Term steps between two calls of `pause` while handing lists to the sink. */
const LISTS_PER_CHECK = 512;

/**
 * Hands every term's postings, field by field, to `sink`, merged over the shards (ids ascending
 * because the shards' ids ascend with their order). Two passes over the chunks: the first numbers
 * the terms and counts each list's postings, the second fills lists allocated at their final size,
 * finding each run's list by the number the first pass noted. Throws a SnapshotError("format") in
 * the first pass, before anything is handed over, when a chunk is malformed.
 */
export async function mergeShards(
  shards: readonly MergedShard[],
  fieldCount: number,
  sink: PostingsSink,
  pause: () => Promise<void>,
): Promise<void> {
  const numbers = new Map<string, number>();
  const terms: string[] = [];
  let counts: Int32Array = new Int32Array(1024 * fieldCount);
  const runTerms: Int32Array[][] = [];
  for (const shard of shards) {
    const perChunk: Int32Array[] = [];
    for (const chunk of shard.chunks) {
      let runs: Int32Array = new Int32Array(256);
      let runCount = 0;
      let position = -1;
      let term = -1;
      readChunk(chunk, shard.ids.length, fieldCount, (text, field, _pairs, count, at) => {
        if (at !== position) {
          position = at;
          const known = numbers.get(text);
          if (known === undefined) {
            term = terms.push(text) - 1;
            numbers.set(text, term);
            if ((term + 1) * fieldCount > counts.length) counts = grow(counts, (term + 1) * fieldCount);
          } else term = known;
        }
        if (runCount === runs.length) runs = grow(runs, runCount + 1);
        runs[runCount++] = term;
        counts[term * fieldCount + field]! += count;
      });
      perChunk.push(runs.subarray(0, runCount));
      await pause();
    }
    runTerms.push(perChunk);
  }

  const lists: Array<Int32Array | undefined> = new Array<Int32Array | undefined>(terms.length * fieldCount);
  const filled = new Int32Array(terms.length * fieldCount);
  for (let slot = 0; slot < lists.length; slot++) {
    if (counts[slot]! > 0) lists[slot] = new Int32Array(2 * counts[slot]!);
    if (slot % LISTS_PER_CHECK === 0) await pause();
  }

  for (let s = 0; s < shards.length; s++) {
    const shard = shards[s]!;
    const ids = shard.ids;
    for (let c = 0; c < shard.chunks.length; c++) {
      const runs = runTerms[s]![c]!;
      let run = 0;
      readChunk(shard.chunks[c]!, ids.length, fieldCount, (_text, field, pairs, count) => {
        const slot = runs[run++]! * fieldCount + field;
        const list = lists[slot]!;
        let at = filled[slot]!;
        for (let i = 0; i < 2 * count; i += 2) {
          list[at++] = ids[pairs[i]!]!;
          list[at++] = pairs[i + 1]!;
        }
        filled[slot] = at;
      });
      await pause();
    }
  }

  for (let slot = 0; slot < lists.length; slot++) {
    const list = lists[slot];
    if (list) sink(terms[Math.floor(slot / fieldCount)]!, slot % fieldCount, list);
    if (slot % LISTS_PER_CHECK === 0) await pause();
  }
}

function grow(array: Int32Array, needed: number): Int32Array {
  const grown = new Int32Array(Math.max(needed, array.length * 2));
  grown.set(array);
  return grown;
}
